"""The fake Ollama against recordings of a real one: the captured requests, replayed.

fixtures/ollama-0.31.2/http/ holds every exchange the live tier depends on, recorded
from a real Ollama 0.31.2 (README there). Each request is sent to
claims/testing/fake_ollama.py in the recorded order, and the fake's answer is held to
the real one: status code, content type, the fields of every object and the type of
each, error texts, stream framing (NDJSON lines, SSE events), done_reason, the 405 of
POST /api/delete, the 404 of a missing model and the expires_at each keep_alive form
sets. Values that belong to the model's text or the machine's speed are not compared.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from claims.testing.fake_ollama import FakeModel, FakeOllama, Loaded

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT / "fixtures" / "ollama-0.31.2" / "http"
EXCHANGES = sorted(CAPTURES.glob("*.json"))
# expires_at minus the reply's created_at, for the /api/ps read after each keep_alive
# form: the real server's own offsets, to within the two stamps' gap on a busy machine.
EXPIRY_TOLERANCE_S = 2.0


def capture(name: str) -> dict[str, Any]:
    path = next(p for p in EXCHANGES if p.stem.split("-", 1)[1] == name)
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def gemma_model() -> FakeModel:
    """gemma3:270m as the real server listed and described it (03-tags, 04-show)."""
    entry = capture("tags")["body"]["models"][0]
    show = capture("show")["body"]
    return FakeModel(
        name=entry["name"],
        digest=entry["digest"],
        size=entry["size"],
        family=entry["details"]["family"],
        parameter_size=entry["details"]["parameter_size"],
        quantization=entry["details"]["quantization_level"],
        model_info=dict(show["model_info"]),
        capabilities=tuple(show["capabilities"]),
        base_bytes=253_000_000,
        kv_bytes_per_token=3 * 1024,
        template=show["template"],
    )


def shape(value: Any) -> Any:
    """What is compared of a JSON value: its type, and for objects their keys' shapes."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return ["list", shape(value[0]) if value else None]
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "str"
    return "null"


# Objects whose keys are the model's own metadata or tensors, not the API's shape.
OPAQUE = {"model_info", "tensors"}


def comparable(value: Any) -> Any:
    """``shape`` with the model's own metadata reduced to its type."""
    if isinstance(value, dict):
        return {
            k: ("object" if k in OPAQUE and isinstance(v, (dict, list)) else comparable(v))
            for k, v in sorted(value.items())
        }
    if isinstance(value, list):
        if value and all(isinstance(v, (int, float)) for v in value):
            return ["list", "number"]  # context ids, vectors: ints or floats alike
        return ["list", comparable(value[0]) if value else None]
    return shape(value)


def parse_time(text: str) -> datetime:
    trimmed = text.strip().replace("Z", "+00:00")
    head, _, rest = trimmed.partition(".")
    if rest:
        digits = rest.split("+")[0][:6]
        trimmed = f"{head}.{digits}+{rest.split('+')[1]}"
    return datetime.fromisoformat(trimmed)


@pytest.fixture(scope="module")
def replayed() -> Iterator[dict[str, tuple[dict[str, Any], httpx.Response, list[str] | None]]]:
    """Every captured request sent to the fake in the recorded order, with its answer."""
    out: dict[str, tuple[dict[str, Any], httpx.Response, list[str] | None]] = {}
    model = gemma_model()
    # The real server unloaded within about 0.2 s of keep_alive 0 (the suite's evidence
    # from that run); the recording began with the model loaded at a 16,384-token
    # context by an earlier request (07-ps-empty lists it so, expiring).
    with FakeOllama(version="0.31.2", models=[model], unload_delay_s=0.2) as fake, httpx.Client(
        base_url=fake.url, timeout=30.0
    ) as client:
        fake.loaded["gemma3:270m"] = Loaded(model, 16384, time.time() + 300)
        for path in EXCHANGES:
            real = json.loads(path.read_text("utf-8"))
            req = real["request"]
            kwargs: dict[str, Any] = {}
            if req["body"] is not None:
                kwargs["content"] = json.dumps(req["body"]).encode()
                kwargs["headers"] = {"Content-Type": "application/json"}
            if "lines" in real:
                with client.stream(req["method"], req["path"], **kwargs) as resp:
                    lines = list(resp.iter_lines())
                out[path.stem] = (real, resp, lines)
            else:
                resp = client.request(req["method"], req["path"], **kwargs)
                out[path.stem] = (real, resp, None)
    yield out


@pytest.mark.parametrize("path", EXCHANGES, ids=lambda p: p.stem)
def test_status_and_content_type(replayed, path: Path) -> None:
    real, resp, _ = replayed[path.stem]
    assert resp.status_code == real["status"], resp.text[:300]
    assert resp.headers.get("content-type") == real["headers"].get("content-type")


@pytest.mark.parametrize(
    "path", [p for p in EXCHANGES if "lines" not in json.loads(p.read_text("utf-8"))],
    ids=lambda p: p.stem,
)
def test_body_fields_types_and_error_texts(replayed, path: Path) -> None:
    real, resp, _ = replayed[path.stem]
    if real["body"] is None:
        assert resp.text == (real["body_text"] or ""), resp.text[:300]
        return
    mine = resp.json()
    assert comparable(mine) == comparable(real["body"])
    if "error" in real["body"]:
        assert mine["error"] == real["body"]["error"]
    for key in ("done", "done_reason", "object", "version"):
        if key in real["body"]:
            assert mine[key] == real["body"][key], key
    if "choices" in real["body"]:
        assert [c["finish_reason"] for c in mine["choices"]] == [
            c["finish_reason"] for c in real["body"]["choices"]
        ]


@pytest.mark.parametrize(
    "stem", ["08-generate-cold-stream", "09-generate-warm-stream", "25-chat-stream"]
)
def test_ndjson_stream_framing(replayed, stem: str) -> None:
    real, _resp, lines = replayed[stem]
    assert lines is not None
    mine = [json.loads(line) for line in lines if line.strip()]
    theirs = [json.loads(item["line"]) for item in real["lines"] if item["line"].strip()]
    # One object per token, then a final object (num_predict decides how many).
    assert len(mine) == len(theirs)
    assert [o["done"] for o in mine] == [o["done"] for o in theirs]
    assert comparable(mine[0]) == comparable(theirs[0])
    assert comparable(mine[-1]) == comparable(theirs[-1])
    assert mine[-1]["done_reason"] == theirs[-1]["done_reason"]


def test_openai_stream_is_sse_with_usage_and_done(replayed) -> None:
    real, _resp, lines = replayed["29-openai-chat-stream"]
    assert lines is not None
    theirs = [item["line"] for item in real["lines"]]
    # "data: {json}" then a blank line, ending "data: [DONE]".
    assert [bool(x) for x in lines] == [bool(x) for x in theirs]
    assert lines[-2:] == theirs[-2:] == ["data: [DONE]", ""]
    mine = [json.loads(x.removeprefix("data: ")) for x in lines if x and x != "data: [DONE]"]
    real_events = [
        json.loads(x.removeprefix("data: ")) for x in theirs if x and x != "data: [DONE]"
    ]
    assert [comparable(e) for e in (mine[0], mine[-2], mine[-1])] == [
        comparable(e) for e in (real_events[0], real_events[-2], real_events[-1])
    ]
    assert mine[-2]["choices"][0]["finish_reason"] == real_events[-2]["choices"][0]["finish_reason"]


@pytest.mark.parametrize(
    ("generate", "ps"),
    [
        ("16-generate-keepalive-24h", "17-ps-24h"),
        ("18-generate-keepalive-neg", "19-ps-neg"),
        ("20-generate-numctx-2048", "21-ps-2048"),
        ("22-generate-numctx-8192", "23-ps-8192"),
    ],
)
def test_expires_at_for_each_keep_alive_form(replayed, generate: str, ps: str) -> None:
    def offset(reply: dict[str, Any], listing: dict[str, Any]) -> float:
        expires = parse_time(listing["models"][0]["expires_at"])
        return (expires - parse_time(reply["created_at"])).total_seconds()

    real_reply, mine_reply = replayed[generate][0]["body"], replayed[generate][1].json()
    real_ps, mine_ps = replayed[ps][0]["body"], replayed[ps][1].json()
    assert abs(offset(mine_reply, mine_ps) - offset(real_reply, real_ps)) < EXPIRY_TOLERANCE_S
    assert mine_ps["models"][0]["context_length"] == real_ps["models"][0]["context_length"]


def test_default_keep_alive_and_forever(replayed) -> None:
    mine = replayed["15-ps-default"][1].json()["models"][0]["expires_at"]
    created = replayed["14-generate-schema"][1].json()["created_at"]
    offset = (parse_time(mine) - parse_time(created)).total_seconds()
    # Each server stamps created_at and the expiry at two moments of request 14: the real one
    # (its recorded stamps) 1 ms beyond 300 s, the fake at most the time the client waited
    # for that reply after it. A busy machine widens the fake's gap; the wait measures it.
    real_reply, reply = replayed["14-generate-schema"][0]["body"], replayed["14-generate-schema"][1]
    real_ps = replayed["15-ps-default"][0]["body"]["models"][0]["expires_at"]
    real = (parse_time(real_ps) - parse_time(real_reply["created_at"])).total_seconds()
    waited = reply.elapsed.total_seconds()
    assert real - abs(real - 300) - 1e-3 <= offset <= real + waited, (offset, real, waited)
    forever = replayed["19-ps-neg"][1].json()["models"][0]["expires_at"]
    assert forever.startswith("2319-03-1")  # now + Go's largest duration


def test_unload_answers_unload_and_ps_still_lists_the_model_expiring(replayed) -> None:
    for stem in ("06-unload", "37-unload-end"):
        assert replayed[stem][1].json()["done_reason"] == "unload"


def test_missing_model_and_delete_by_post(replayed) -> None:
    missing = replayed["31-missing-model"][1]
    assert missing.status_code == 404
    assert missing.json() == {"error": "model 'no-such-model:latest' not found"}
    post = replayed["35-delete-post"][1]
    assert (post.status_code, post.text) == (405, "405 method not allowed")


def test_every_capture_is_replayed() -> None:
    assert len(EXCHANGES) == 37
