"""The Ollama API probe against a real loopback server: endpoints, and every way it can fail.

Each fault must end within its timeout as one clear ServerError subclass whose
message names the reason; none may hang or raise anything else.
"""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claims.probes.errors import ServerError
from claims.probes.live.ollama_api import (
    MAX_LINE_BYTES,
    OllamaClient,
    ReplyError,
    ServerHTTPError,
    ServerTimeout,
    ServerUnavailable,
    StreamError,
    find_model,
    normalize_model_name,
)
from claims.probes.live.ollama_api.display import processor_column
from claims.testing.fake_ollama import FakeOllama, Fault, keep_alive_seconds, unused_port

PROMPT = "Explain Kubernetes scheduling in three sentences."
SHORT = 0.3  # seconds: the timeout every fault test runs under
MARGIN = 1.5  # seconds of slack on a loaded two-core CI machine


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def client(fake: FakeOllama) -> Iterator[OllamaClient]:
    with OllamaClient(fake.url, connect_timeout=SHORT, read_timeout=5.0, stall_timeout=SHORT) as c:
        yield c


def stream_all(
    client: OllamaClient, *, first_chunk_timeout: float | None = None
) -> list[dict[str, object]]:
    body = {"model": "phi4", "prompt": PROMPT, "stream": True}
    lines = client.stream("/api/generate", body, first_chunk_timeout=first_chunk_timeout)
    return [line.data for line in lines]


# --- endpoints ------------------------------------------------------------------------
def test_version_tags_show_ps(client: OllamaClient) -> None:
    assert client.version() == "0.12.6"
    names = [m["name"] for m in client.tags()]
    assert names == ["phi4:latest", "llama3.2:3b", "nomic-embed-text:latest"]
    show = client.show("phi4")
    assert show["details"]["format"] == "gguf"
    assert show["model_info"]["phi3.context_length"] == 16384
    assert client.ps() == []


def test_generate_non_streaming_is_the_recorded_reply(
    client: OllamaClient, recorded: Callable[[str], dict[str, Any]]
) -> None:
    reply = client.generate("phi4", PROMPT)
    expected = recorded("W2")["generate_reply"]
    for key in ("response", "context", "prompt_eval_count", "eval_count", "done_reason"):
        assert reply[key] == expected[key]


def test_generate_stream_joins_text_and_keeps_final_fields(client: OllamaClient) -> None:
    reply = client.generate("phi4", PROMPT, stream=None, options={"temperature": 0})
    assert reply["done"] is True and reply["response"].startswith("Kubernetes scheduling")
    assert isinstance(reply["eval_count"], int)


def test_chat_streamed_and_not(client: OllamaClient) -> None:
    messages = [{"role": "user", "content": "Give me a one-sentence tagline for a coffee shop."}]
    one = client.chat("phi4", messages, options={"temperature": 0})
    joined = client.chat("phi4", messages, options={"temperature": 0}, stream=True)
    assert one["message"]["content"] == joined["message"]["content"] != ""
    assert "context" not in one


def test_load_then_unload_polls_until_gone(client: OllamaClient, fake: FakeOllama) -> None:
    fake.unload_delay_s = 0.3  # unloading is asynchronous: the first poll still sees it
    assert client.load("phi4")["done_reason"] == "load"
    assert find_model(client.ps(), "phi4") is not None
    result = client.unload("phi4", timeout=5, poll_interval=0.05)
    assert result.done_reason == "unload"
    assert result.polls > 1 and result.seconds_until_gone >= 0.25
    assert find_model(client.ps(), "phi4") is None


def test_unload_that_never_finishes_times_out(client: OllamaClient, fake: FakeOllama) -> None:
    fake.unload_delay_s = 60
    client.load("phi4")
    started = time.monotonic()
    with pytest.raises(ServerTimeout, match="still lists phi4"):
        client.unload("phi4", timeout=SHORT, poll_interval=0.05)
    assert time.monotonic() - started < SHORT + MARGIN


def test_embed_counts_vectors(client: OllamaClient) -> None:
    reply = client.embed("nomic-embed-text", ["one", "two", "three"])
    assert len(reply["embeddings"]) == 3
    assert abs(sum(v * v for v in reply["embeddings"][0]) - 1.0) < 1e-9


def test_openai_endpoints(client: OllamaClient, fake: FakeOllama) -> None:
    reply = client.openai_chat("phi4", [{"role": "user", "content": "hi"}], temperature=0)
    assert reply["choices"][0]["message"]["role"] == "assistant"
    assert {m["id"] for m in client.openai_models()} >= {"phi4:latest"}
    sent = [e for e in fake.exchanges if e.path == "/v1/chat/completions"]
    assert sent and sent[0].body["model"] == "phi4"


def test_structured_reply_is_validated(client: OllamaClient) -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "rooms": {"type": "integer", "minimum": 1}},
        "required": ["name", "rooms"],
    }
    good = client.structured("phi4", "Describe a hotel as JSON.", schema)
    assert good.valid and good.value["rooms"] >= 1
    # A schema the fake's reply cannot meet: the validator's complaint is kept.
    bad = client.structured("phi4", "x", schema | {"required": ["missing"]})
    assert not bad.valid and "'missing' is a required property" in bad.errors[0]


def test_tools_give_tool_calls(client: OllamaClient) -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
    reply = client.chat(
        "llama3.2:3b", [{"role": "user", "content": "Weather in Oslo?"}], tools=[tool]
    )
    (call,) = reply["message"]["tool_calls"]
    assert call["function"]["name"] == "get_weather"
    assert isinstance(call["function"]["arguments"], dict)


def test_create_delete_and_pull(client: OllamaClient) -> None:
    client.create("claims-test-derived", base="phi4", system="Be brief.")
    assert find_model(client.tags(), "claims-test-derived") is not None
    client.delete("claims-test-derived")
    assert find_model(client.tags(), "claims-test-derived") is None
    statuses = [line["status"] for line in client.pull("phi4")]
    assert statuses[0] == "pulling manifest" and statuses[-1] == "success"


def test_model_names() -> None:
    # As `ollama list` shows them (Ollama's DisplayShortest): defaults dropped, tag kept.
    assert normalize_model_name("phi4") == "phi4:latest"
    assert normalize_model_name("library/phi4") == "phi4:latest"
    assert normalize_model_name("registry.ollama.ai/library/phi4:latest") == "phi4:latest"
    assert normalize_model_name("user/model") == "user/model:latest"
    assert normalize_model_name("host:5000/ns/model") == "host:5000/ns/model:latest"
    assert find_model([{"name": "phi4:latest"}], "phi4") == {"name": "phi4:latest"}
    assert find_model([{"name": "phi4:14b"}], "phi4") is None
    assert find_model([{"name": "PHI4:Latest"}], "library/phi4") == {"name": "PHI4:Latest"}


# Ollama's types/model/name.go: ParseName fills registry.ollama.ai / library / latest,
# and two names are one model when every part is equal ignoring case (EqualFold).
SAME = [
    ("phi4", "phi4:latest"),
    ("phi4", "library/phi4:latest"),
    ("phi4", "registry.ollama.ai/library/phi4:latest"),
    ("phi4", "PHI4"),
    ("https://registry.ollama.ai/library/phi4", "phi4"),
    ("llama3.2:3b", "library/Llama3.2:3B"),
]
DIFFERENT = [
    ("phi4", "phi4:14b"),
    ("phi4", "user/phi4"),
    ("phi4", "example.com/library/phi4"),
    ("host:5000/ns/m", "ns/m"),
    ("phi4:", "phi4"),  # an empty tag is Ollama's MISSING part, not "latest"
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_one_name_rule_same(a: str, b: str) -> None:
    from claims.check import model_matches
    from claims.probes.live.ollama_api import same_model

    assert same_model(a, b) and same_model(b, a)
    assert model_matches(a, b)  # the catalog's per-model figures use the same rule
    assert find_model([{"name": b}], a) is not None


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_one_name_rule_different(a: str, b: str) -> None:
    from claims.check import model_matches
    from claims.probes.live.ollama_api import same_model

    assert not same_model(a, b)
    assert not model_matches(a, b)
    assert find_model([{"name": b}], a) is None


@given(
    st.from_regex(r"[a-z0-9_][a-z0-9_.-]{0,10}", fullmatch=True),
    st.from_regex(r"[a-z0-9_][a-z0-9_-]{0,8}", fullmatch=True),
    st.from_regex(r"[a-z0-9_][a-z0-9_.-]{0,8}", fullmatch=True),
)
def test_strict_and_lenient_parsers_agree_on_valid_names(
    model: str, namespace: str, tag: str
) -> None:
    from claims.probes.files.ollama_store import ModelName
    from claims.probes.files.ollama_store.names import parse_name

    for text in (model, f"{model}:{tag}", f"{namespace}/{model}:{tag}"):
        if ".." in text:
            continue  # ModelName.parse refuses '..' inside a part; Ollama allows it
        assert ModelName.parse(text) == parse_name(text)


def test_processor_column() -> None:
    assert processor_column(9_700_000_000, 9_700_000_000) == "100% GPU"
    assert processor_column(9_700_000_000, 0) == "100% CPU"
    assert processor_column(1000, 750) == "25%/75% CPU/GPU"


def test_keep_alive_parsing() -> None:
    assert keep_alive_seconds("5m", 0) == 300
    assert keep_alive_seconds("24h", 0) == 86400
    assert keep_alive_seconds(-1, 0) == float("inf")
    assert keep_alive_seconds(None, 300) == 300
    with pytest.raises(ValueError):
        keep_alive_seconds("soon", 0)


# --- faults ------------------------------------------------------------------------------
def test_unknown_model_is_http_404(client: OllamaClient) -> None:
    with pytest.raises(ServerHTTPError) as info:
        client.show("no-such-model")
    assert info.value.status == 404
    # /api/show completes the name with :latest (fixtures/ollama-*/http-by-hand/03-*).
    assert "model 'no-such-model:latest' not found" in str(info.value)


def test_http_500_names_path_and_reason(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(
        Fault("status", path="/api/generate", status=500, message="llama runner crashed")
    )
    with pytest.raises(ServerHTTPError, match=r"/api/generate: HTTP 500: llama runner crashed"):
        stream_all(client)


def test_connection_refused_is_unavailable() -> None:
    started = time.monotonic()
    with (
        OllamaClient(f"http://127.0.0.1:{unused_port()}", connect_timeout=SHORT) as c,
        pytest.raises(ServerUnavailable, match="connection refused"),
    ):
        c.version()
    assert time.monotonic() - started < SHORT + MARGIN


def test_first_chunk_slower_than_timeout(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("slow_first", delay_s=3.0))
    started = time.monotonic()
    with pytest.raises(ServerTimeout, match=r"no reply within 0.3 s"):
        stream_all(client, first_chunk_timeout=SHORT)
    assert time.monotonic() - started < SHORT + MARGIN


def test_first_chunk_slower_than_stall_timeout_after_early_headers(
    client: OllamaClient, fake: FakeOllama
) -> None:
    fake.headers_with_first_chunk = False
    fake.add_fault(Fault("slow_first", delay_s=3.0))
    started = time.monotonic()
    with pytest.raises(
        ServerTimeout, match=r"stalled: no data for 0.3 s while waiting for the first"
    ):
        stream_all(client, first_chunk_timeout=5.0)
    assert time.monotonic() - started < SHORT + MARGIN


def test_stall_mid_stream(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("stall", after_lines=2, delay_s=3.0))
    started = time.monotonic()
    with pytest.raises(
        ServerTimeout, match=r"stalled: no data for 0.3 s while waiting for the line 3"
    ):
        stream_all(client)
    assert time.monotonic() - started < SHORT + MARGIN


def test_stream_cut_before_done(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("cut", after_lines=3))
    with pytest.raises(StreamError, match=r"line 4: connection broke after 3 complete line"):
        stream_all(client)


def test_stream_ending_cleanly_without_done(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("end", after_lines=3))
    with pytest.raises(StreamError, match=r"ended after 3 line\(s\) without its final object"):
        stream_all(client)


def test_malformed_line(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("malformed", after_lines=2))
    with pytest.raises(StreamError, match=r"/api/generate, line 3: not JSON"):
        stream_all(client)


def test_error_line_mid_stream(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(
        Fault("error_line", after_lines=5, message="model runner has unexpectedly stopped")
    )
    with pytest.raises(StreamError) as info:
        stream_all(client)
    assert info.value.line == 6
    assert "error mid-stream: model runner has unexpectedly stopped" in str(info.value)


def test_accepted_but_never_answered(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("hang", path="/api/version"))
    started = time.monotonic()
    with (
        OllamaClient(fake.url, read_timeout=SHORT) as c,
        pytest.raises(ServerTimeout, match=r"/api/version: no reply within 0\.3 s"),
    ):
        c.version()
    assert time.monotonic() - started < SHORT + MARGIN


def test_listener_that_never_accepts() -> None:
    # The kernel completes the handshake from the backlog; nobody ever reads.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        started = time.monotonic()
        with (
            OllamaClient(url, connect_timeout=SHORT, read_timeout=SHORT) as c,
            pytest.raises(ServerError, match=r"0\.3 s"),
        ):
            c.version()
        assert time.monotonic() - started < 2 * SHORT + MARGIN


def test_connection_closed_without_reply(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("close", path="/api/tags"))
    with pytest.raises(ServerError, match="/api/tags"):
        client.tags()


def test_non_json_reply(client: OllamaClient) -> None:
    with pytest.raises(ReplyError, match="answered non-JSON: 'Ollama is running'"):
        client.get_json("/")


def test_overlong_line_is_refused_with_bounded_memory(client: OllamaClient) -> None:
    def endless() -> Iterator[bytes]:
        block = b"x" * 65536
        for _ in range(2 * MAX_LINE_BYTES // len(block)):
            yield block

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=endless()))
    with (
        OllamaClient("http://ollama.invalid", transport=transport) as c,
        pytest.raises(StreamError, match=f"exceeds {MAX_LINE_BYTES} bytes without a newline"),
    ):
        stream_all(c)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b'{"response": ' + b"1" * 5000 + b"}", "digits"),  # past Python's int digit limit
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
    ids=["huge-integer", "deep-nesting"],
)
def test_hostile_json_line_is_a_stream_error(line: bytes, why: str) -> None:
    with _mock_client([line + b"\n"]) as c, pytest.raises(StreamError, match=why):
        stream_all(c)


@pytest.mark.parametrize(
    "body", [b"1" * 5000, b"[" * 100_000], ids=["huge-integer", "deep-nesting"]
)
def test_hostile_json_reply_is_a_reply_error(body: bytes) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=body))
    with (
        OllamaClient("http://ollama.invalid", transport=transport) as c,
        pytest.raises(ReplyError, match="answered non-JSON"),
    ):
        c.tags()


def test_a_reply_body_that_trickles_forever_times_out() -> None:
    def trickle() -> Iterator[bytes]:
        while True:  # one byte every 50 ms: each read beats the timeout, the body never ends
            time.sleep(0.05)
            yield b" "

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=trickle()))
    started = time.monotonic()
    with (
        OllamaClient("http://ollama.invalid", transport=transport, read_timeout=SHORT) as c,
        pytest.raises(ServerTimeout, match="/api/version: reply body still incomplete after"),
    ):
        c.version()
    assert time.monotonic() - started < SHORT + MARGIN


def test_bytes_trickling_after_the_final_object_do_not_hold_the_stream() -> None:
    def trickle() -> Iterator[bytes]:
        yield b'{"response": "hi", "done": false}\n{"response": "", "done": true}\n'
        while True:  # one byte every 50 ms: 64 KiB of it would take nearly an hour
            time.sleep(0.05)
            yield b" "

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=trickle()))
    started = time.monotonic()
    with OllamaClient("http://ollama.invalid", transport=transport) as c:
        lines = stream_all(c)
    assert lines[-1]["done"] is True
    assert time.monotonic() - started < 1.0 + MARGIN


def test_session_goes_on_after_a_fault(client: OllamaClient, fake: FakeOllama) -> None:
    fake.add_fault(Fault("cut", after_lines=1, times=1))
    with pytest.raises(StreamError):
        stream_all(client)
    lines = stream_all(client)
    assert lines[-1]["done"] is True


def test_concurrent_clients_each_get_their_stream(fake: FakeOllama) -> None:
    results: list[int] = []

    def run() -> None:
        with OllamaClient(fake.url, read_timeout=5) as c:
            results.append(len(stream_all(c)))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 4 and len(set(results)) == 1


# --- NDJSON framing (no sockets: httpx's mock transport feeds arbitrary chunkings) -------
def _mock_client(chunks: list[bytes]) -> OllamaClient:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=iter(chunks)))
    return OllamaClient("http://ollama.invalid", transport=transport)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(st.text(max_size=12), min_size=0, max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
)
def test_any_chunking_gives_the_same_lines(texts: list[str], cuts: list[int]) -> None:
    import json

    objs = [{"response": t, "done": False} for t in texts] + [{"response": "", "done": True}]
    payload = b"".join(json.dumps(o).encode() + b"\n" for o in objs)
    points = sorted({min(c, len(payload)) for c in cuts} | {0, len(payload)})
    chunks = [payload[a:b] for a, b in itertools.pairwise(points) if b > a]
    with _mock_client(chunks) as c:
        got = [line.data for line in c.stream("/api/generate", {})]
    assert got == objs


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=300))
def test_garbage_streams_end_in_a_clear_error(payload: bytes) -> None:
    with _mock_client([payload]) as c:
        try:
            for _ in c.stream("/api/generate", {}):
                pass
        except StreamError as exc:
            assert str(exc).startswith("/api/generate")


# --- usage accounting -------------------------------------------------------------------
def test_usage_counts_loads_tokens_and_bounds(fake: FakeOllama, client: OllamaClient) -> None:
    from claims.probes.live.ollama_api.usage import Usage, bounded

    client.usage = Usage()
    seen: list[int] = []
    client.on_usage = lambda u: seen.append(u.requests)
    client.unload("phi4", timeout=5.0)
    counts = [
        client.generate("phi4", "hi", options=bounded(3, num_ctx=2048))["eval_count"],  # load
        client.generate("phi4", "hi", options=bounded(3, num_ctx=2048))["eval_count"],  # warm
    ]
    lines = list(client.stream("/api/generate", {"model": "phi4", "prompt": "hi",
                                                 "options": bounded(2, num_ctx=4096)}))
    assert lines[-1].data["done"] is True  # a reload for the new context, streamed
    counts.append(lines[-1].data["eval_count"])
    # Unbounded and random: counted as such (the live tier refuses to send one).
    counts.append(client.generate("phi4", "hi", options={"temperature": 1.2})["eval_count"])
    usage = client.usage.to_json()
    assert usage["model_loads"] == 2
    assert usage["unloads"] == 1
    assert usage["generated_tokens"] == sum(counts)
    assert usage["bounds"] == {"num_predict=2": 1, "num_predict=3": 2}
    assert usage["unbounded"] == ["/api/generate phi4"]
    assert usage["sampling"]["fixed"] == 3
    assert usage["sampling"]["random (no seed)"] == 1
    assert seen  # the listener heard every counted request


def test_usage_reads_ps_outside_the_timed_stream(fake: FakeOllama, client: OllamaClient) -> None:
    from claims.probes.live.ollama_api.usage import Usage

    client.usage = Usage()
    lines = client.stream("/api/generate", {"model": "phi4", "prompt": "hi",
                                            "options": {"num_predict": 2}})
    before = len(fake.exchanges)
    assert fake.exchanges[-1].path == "/api/ps"  # read when the stream was created
    list(lines)
    paths = [e.path for e in fake.exchanges[before:]]
    assert paths == ["/api/generate", "/api/ps"]


def test_bound_and_sampling_labels() -> None:
    from claims.probes.live.ollama_api.usage import bound_of, sampling_of

    assert bound_of("/api/generate", {"options": {"num_predict": 8, "stop": [","]}}) == (
        "num_predict=8, stop=[',']"
    )
    assert bound_of("/api/generate", {"options": {"stop": [","]}}) is None
    assert bound_of("/v1/chat/completions", {"max_tokens": 8}) == "max_tokens=8"
    assert sampling_of("/api/generate", {"options": {"temperature": 0}}) == "fixed"
    assert sampling_of("/api/generate", {"options": {"temperature": 1, "seed": 4}}) == "fixed"
    assert sampling_of("/api/generate", {}) == "random (no seed and no temperature)"


def test_owner_pid_finds_the_process_holding_a_listening_socket() -> None:
    import os

    from claims.probes.live.listeners import listeners, owner_pid

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        (found,) = listeners(s.getsockname()[1])
        assert owner_pid(found.inode) == os.getpid()
    assert owner_pid(2**40) is None


def test_last_request_time_leaves_out_the_accounting(
    fake: FakeOllama, client: OllamaClient
) -> None:
    from claims.probes.live.ollama_api.usage import Usage, bounded

    client.usage = Usage()
    fake.first_token_delay_s = 0.0
    started = time.perf_counter_ns()
    reply = client.generate("phi4", "hi", options=bounded(2))
    whole = time.perf_counter_ns() - started
    assert reply["done"] is True
    # The generate request alone: shorter than the call with its two /api/ps reads.
    assert 0 < client.last_request_ns < whole
    assert [e.path for e in fake.exchanges[-3:]] == ["/api/ps", "/api/generate", "/api/ps"]


def test_the_package_names_resolve_lazily_to_their_modules() -> None:
    """``claims.probes.live.ollama_api`` imports its names when first used (PEP 562): each
    name it exports is listed once in ``_SOURCES`` and is its module's own object; a leaf
    module imported through the package does not pull in the client's httpx."""
    import importlib
    import subprocess
    import sys

    import claims.probes.live.ollama_api as package

    assert set(package.__all__) == set(package._SOURCES)
    for name, source in package._SOURCES.items():
        module = importlib.import_module(f"{package.__name__}.{source}")
        assert getattr(package, name) is getattr(module, name), name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        assert package.nothing is None  # raises before it compares
    probe = ("import sys, claims.probes.live.ollama_api.usage; "
             "print('httpx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == "False"
