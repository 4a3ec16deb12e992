"""A loopback fake of the Ollama server, for testing the instrument, not the claims.

What it answers is checked against recordings of real servers: the contract test
(tests/testing/test_fake_ollama.py) replays the requests captured from Ollama
0.31.2 and 0.32.15 (fixtures/ollama-<version>/http/, http-by-hand/) and compares
status codes, content types, fields and their types, error texts, stream framing,
done_reason values and expires_at for each keep_alive form. ``behaves_as`` (or
:meth:`FakeOllama.as_release`) picks the release it imitates; the few answers that
differ between them are in :mod:`claims.testing.ollama_versions`.

:class:`FakeOllama` runs :class:`http.server.ThreadingHTTPServer` on 127.0.0.1
with a port chosen by the OS. Replies are scripted from the exchanges Week 2
records (``fixtures/recorded/W2.json``: the generate reply, the seed runs) and
from the shapes in the project's notes on Ollama's API: streamed replies are
real chunked NDJSON written line by line, headers go out together with the
first chunk as Ollama's Go server does, and state (which models are loaded, at
what context, until when) changes as a real server's would.

Timing and failures are injected: ``first_token_delay_s`` (the server waits
that long after reading a request before its first text chunk),
``token_interval_s`` (between chunks), and :class:`Fault` entries (HTTP status,
a hung reply, a stream cut or ended before ``done``, a malformed line, an
``{"error": ...}`` line, a stall). It must never stand in for a real server in a
claims run: its figures are scripted, so verdicts against it mean nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

from claims.catalog import load_catalog
from claims.catalog.references import resolve
from claims.probes.files.ollama_store.names import same_model
from claims.probes.live.ollama_api.names import normalize_model_name as _norm
from claims.testing import recordings
from claims.testing.ollama_versions import DEFAULT_RELEASE, OllamaRelease, release

__all__ = [
    "GENERATION_PATHS",
    "FakeModel",
    "FakeOllama",
    "Fault",
    "Loaded",
    "hostile_text",
    "keep_alive_seconds",
    "never_finish_streams",
    "unused_port",
    "wedge_generation",
]


FaultKind = Literal[
    "status",  # answer with HTTP `status` and an {"error": ...} body
    "hang",  # read the request, then never answer
    "close",  # read the request, then close the connection without a reply
    "cut",  # stream `after_lines` lines, then drop the connection mid-body
    "end",  # stream `after_lines` lines, then end the body cleanly without done:true
    "malformed",  # stream `after_lines` lines, then a line that is not JSON
    "error_line",  # stream `after_lines` lines, then {"error": ...} (status 200 already sent)
    "stall",  # stream `after_lines` lines, then pause `delay_s` before going on
    "slow_first",  # wait `delay_s` before the first chunk (headers included)
    "trickle",  # stream a chunk every `delay_s`, never done (stream false: never answer)
]


@dataclass
class Fault:
    """A failure to inject into requests whose path starts with ``path`` (None: all)."""

    kind: FaultKind
    path: str | None = None
    status: int = 500
    after_lines: int = 1
    delay_s: float = 0.0
    message: str = "an error was encountered while running the model: unexpected EOF"
    times: int | None = None  # how many requests it hits; None: every one

    def matches(self, path: str) -> bool:
        return (self.path is None or path.startswith(self.path)) and self.times != 0


@dataclass
class FakeModel:
    """A model the fake serves: its listing, its /api/show reply, its memory shape."""

    name: str
    digest: str
    size: int
    family: str
    parameter_size: str
    quantization: str
    model_info: dict[str, Any]
    parameters: str = ""
    capabilities: tuple[str, ...] = ("completion",)
    base_bytes: int = 0  # loaded size before the KV cache
    kv_bytes_per_token: int = 0
    template: str = "{{ .Prompt }}"
    extra_show: tuple[tuple[str, Any], ...] = ()  # system, license, messages set by create
    license: str = ""

    def details(self) -> dict[str, Any]:
        return {
            "parent_model": "",
            "format": "gguf",
            "family": self.family,
            "families": [self.family],
            "parameter_size": self.parameter_size,
            "quantization_level": self.quantization,
        }


def _digest(prefix: str) -> str:
    # Only the 12-hex prefix is printed by the documents; the rest is made up.
    return prefix + hashlib.sha256(prefix.encode()).hexdigest()[: 64 - len(prefix)]


def _kv_per_token(layers: int, kv_heads: int, head_dim: int, bytes_per: int = 2) -> int:
    return 2 * layers * kv_heads * head_dim * bytes_per


def _transformer(
    name: str,
    digest_prefix: str,
    size: int,
    *,
    arch: str,
    parameter_size: str,
    parameter_count: int,
    shape: tuple[int, int, int, int, int],
    loaded_at_4096: int,
    model_info: dict[str, Any] | None = None,
    **fields: Any,
) -> FakeModel:
    """A Q4_K_M transformer whose model_info and KV cost follow from one shape.

    ``shape`` is (layers, attention heads, KV heads, embedding length, trained
    context); the f16 KV cache per token follows from it, so /api/ps grows with
    num_ctx exactly as the W4 formula predicts. ``loaded_at_4096`` is what
    /api/ps reports at the default context; ``model_info`` adds keys the shape
    does not give.
    """
    layers, heads, kv_heads, embedding, context = shape
    kv = _kv_per_token(layers, kv_heads, embedding // heads)
    info = {
        "general.architecture": arch,
        "general.parameter_count": parameter_count,
        f"{arch}.block_count": layers,
        f"{arch}.context_length": context,
        f"{arch}.embedding_length": embedding,
        f"{arch}.attention.head_count": heads,
        f"{arch}.attention.head_count_kv": kv_heads,
        **(model_info or {}),
    }
    return FakeModel(
        name=name, digest=_digest(digest_prefix), size=size, family=arch,
        parameter_size=parameter_size, quantization="Q4_K_M", model_info=info,
        base_bytes=loaded_at_4096 - 4096 * kv, kv_bytes_per_token=kv, **fields,
    )


# /api/show prints Modelfile parameters as "key<padding>value" lines.
PHI4_STOPS = "\n".join(f'stop{" " * 27}"{m}"' for m in ("<|im_start|>", "<|im_end|>", "<|im_sep|>"))
PHI4_TEMPLATE = (
    "{{- range $i, $_ := .Messages }}<|im_start|>{{ .Role }}<|im_sep|>"
    "{{ .Content }}<|im_end|>{{ end }}"
)


def default_models() -> list[FakeModel]:
    """phi4, llama3.2:3b and nomic-embed-text as Week 2 and Week 4 list them."""
    phi4 = _transformer(
        "phi4:latest", "ac896e5b8b34", 9_053_116_391, arch="phi3", parameter_size="14.7B",
        parameter_count=14_659_507_200, shape=(40, 40, 10, 5120, 16384),
        loaded_at_4096=9_700_000_000, parameters=PHI4_STOPS, template=PHI4_TEMPLATE,
        license="MIT License",
        model_info={"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "dbrx"},
    )
    llama = _transformer(
        "llama3.2:3b", "a80c4f17acd5", 2_019_393_189, arch="llama", parameter_size="3.2B",
        parameter_count=3_212_749_888, shape=(28, 24, 8, 3072, 131072),
        loaded_at_4096=2_600_000_000, capabilities=("completion", "tools"),
        model_info={"llama.attention.key_length": 128, "llama.attention.value_length": 128},
    )
    nomic = FakeModel(
        name="nomic-embed-text:latest",
        digest=_digest("0a109f422b47"),
        size=274_302_450,
        family="nomic-bert",
        parameter_size="137M",
        quantization="F16",
        model_info={
            "general.architecture": "nomic-bert",
            "nomic-bert.context_length": 2048,
            "nomic-bert.embedding_length": 768,
        },
        capabilities=("embedding",),
        base_bytes=300_000_000,
    )
    return [phi4, llama, nomic]


_DURATION = re.compile(r"^(-?\d+(?:\.\d+)?)(ns|us|ms|s|m|h)$")
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def keep_alive_seconds(value: Any, default: float) -> float:
    """Ollama's keep_alive: number = seconds, Go duration string, negative = forever (inf)."""
    if value is None:
        return default
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        m = _DURATION.match(value.strip())
        if m is None:
            # Go's time.ParseDuration, its argument quoted as strconv.Quote does.
            raise ValueError(f"time: invalid duration {json.dumps(value)}")
        seconds = float(m.group(1)) * _UNIT_S[m.group(2)]
    else:
        raise ValueError(f"invalid keep_alive {value!r}")
    return math.inf if seconds < 0 else seconds


@dataclass
class Loaded:
    model: FakeModel
    context_length: int
    expires: float  # time.time() seconds, inf = never


@dataclass
class Exchange:
    """One request the fake served; stream timings in perf_counter_ns (the test's clock)."""

    method: str
    path: str
    body: Any
    arrival_ns: int = 0
    first_chunk_ns: int | None = None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Small NDJSON writes must leave at once: Nagle's algorithm would hold
        # them for the peer's delayed ACK and spoil the timing tests.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def parse_request(self) -> bool:
        # The request line has just been read: this is when the request arrived.
        # Injected delays count from here, so the fake's own parsing and
        # bookkeeping do not add to them.
        self.arrival_ns = time.perf_counter_ns()
        self.arrival = self.arrival_ns / 1e9
        return super().parse_request()

    # --- plumbing ----------------------------------------------------------------
    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            return {"__invalid__": go_json_error(raw, exc)}

    def _send(self, status: int, data: bytes = b"", content_type: str | None = None) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json; charset=utf-8")

    def _send_text(self, status: int, text: str) -> None:
        self._send(status, text.encode(), "text/plain; charset=utf-8")

    def _start_chunked(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _dispatch(self, method: str) -> None:
        fake = self.server.fake
        path = self.path.split("?", 1)[0]
        if path.startswith("/api/blobs/"):
            fake._blob(self, method, path.removeprefix("/api/blobs/"))
            return
        body = self._body() if method in ("POST", "DELETE") else None
        self.exchange = Exchange(method, path, body, arrival_ns=self.arrival_ns)
        fake.exchanges.append(self.exchange)
        fault = fake._take_fault(path)
        if fault is not None and fault.kind == "status":
            self._send_json(fault.status, {"error": fault.message})
            return
        if fault is not None and fault.kind == "hang":
            fake._stopping.wait(60.0)
            self.close_connection = True
            return
        if fault is not None and fault.kind == "close":
            self.close_connection = True
            return
        if fault is not None and fault.kind == "trickle":
            _trickle(self, fault, body)
            return
        route = ROUTES.get((method, path))
        if route is None:
            if any(p == path for _, p in ROUTES):
                # Gin answers a known path with another method like this (the captures:
                # POST /api/delete).
                self._send(405, b"405 method not allowed", "text/plain")
            else:
                self._send(404, b"404 page not found", "text/plain")  # no charset (by hand)
            return
        if isinstance(body, dict) and "__invalid__" in body:
            self._send_json(400, {"error": body["__invalid__"]})
            return
        if method in ("POST", "DELETE") and body is None and path in BODY_REQUIRED:
            self._send_json(400, {"error": "missing request body"})
            return
        try:
            route(fake, self, body if isinstance(body, dict) else {}, fault)
        except _HTTPError as exc:
            self._send_json(exc.status, {"error": exc.message})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # --- streaming -------------------------------------------------------------------
    def stream_lines(
        self, lines: Iterator[dict[str, Any]], fault: Fault | None, *, first_delay_s: float
    ) -> None:
        """Write NDJSON lines chunk by chunk, applying the injected delays and fault."""
        fake = self.server.fake
        if fault is not None and fault.kind == "slow_first":
            first_delay_s = fault.delay_s
        deadline = self.arrival + first_delay_s
        if fake.headers_with_first_chunk:
            _sleep_until(deadline)
            self._start_chunked()
        else:
            self._start_chunked()
            self.wfile.flush()
            _sleep_until(deadline)
        first_sent = time.perf_counter()
        for sent, obj in enumerate(lines):
            if fault is not None and sent == fault.after_lines:
                if fault.kind == "cut":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if fault.kind == "end":
                    break
                if fault.kind == "malformed":
                    self._chunk(b'{"model":"phi4","response":"K\n')
                    break
                if fault.kind == "error_line":
                    self._chunk(json.dumps({"error": fault.message}).encode() + b"\n")
                    break
                if fault.kind == "stall":
                    _sleep(fault.delay_s)
            if sent and fake.token_interval_s:
                # Deadlines from the first chunk, so the fake's own per-chunk work
                # does not stretch the interval the tests rely on.
                _sleep_until(first_sent + sent * fake.token_interval_s)
            self._chunk(json.dumps(obj).encode() + b"\n")
            if sent == 0:
                self.exchange.first_chunk_ns = time.perf_counter_ns()
        self.wfile.write(b"0\r\n\r\n")


Route = Callable[["FakeOllama", _Handler, dict[str, Any], "Fault | None"], None]
# Routes that read a JSON body; without one Ollama answers 400 "missing request body".
BODY_REQUIRED = frozenset(
    {"/api/show", "/api/generate", "/api/chat", "/api/embed", "/api/embeddings",
     "/api/copy", "/api/delete", "/api/create", "/api/pull"}
)
ROUTES: dict[tuple[str, str], Route] = {}  # (method, path) -> FakeOllama handler


# What this fake says of any GGUF imported with /api/create (family, parameter size,
# quantization): the bundled Gemma 3 270M's, the one file the suite imports.
IMPORTED_AS = ("gemma3", "268.10M", "Q4_K_M")


def _route(method: str, path: str) -> Callable[[Route], Route]:
    """Register a :class:`FakeOllama` method as the handler of ``method path``."""

    def register(handler: Route) -> Route:
        ROUTES[(method, path)] = handler
        return handler

    return register


class _HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _sleep(seconds: float) -> None:
    if seconds > 0:
        time.sleep(seconds)


def _sleep_until(deadline: float) -> None:
    """Sleep until perf_counter() reaches ``deadline``; the last 2 ms are spun.

    time.sleep overshoots by up to a scheduler tick under load; spinning the
    tail keeps the injected delay exact to well under the 2 ms the TTFT
    instrument is held to.
    """
    remaining = deadline - time.perf_counter()
    if remaining > 0.002:
        time.sleep(remaining - 0.002)
    while time.perf_counter() < deadline:
        time.sleep(0)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False
    fake: FakeOllama


# A negative keep_alive is stored by Ollama as Go's largest time.Duration (2^63 - 1
# ns, about 292 years), so /api/ps shows an expires_at that far ahead (the captures:
# 2319-03-13 from 2026-12-01).
GO_MAX_DURATION_S = (2**63 - 1) / 1e9


def _iso(ts: float) -> str:
    """A time as Ollama writes it: RFC 3339 with nanoseconds and Z ("never": Go's maximum)."""
    if math.isinf(ts):
        ts = time.time() + GO_MAX_DURATION_S
    whole = math.floor(ts)
    nanos = min(int((ts - whole) * 1e9), 999_999_999)
    return datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"


# Where a reply puts its text: generate's "response", chat's assistant "message".
Shape = Callable[[str, dict[str, Any]], dict[str, Any]]


def _as_response(text: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"response": text, **extra}


def _as_message(text: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": text, **extra}}


def _pieces(text: str) -> list[str]:
    """Split a reply into token-sized pieces (word or punctuation with its space)."""
    return re.findall(r"\s*[\w'-]+|\s*[^\w\s]|\s+$", text) or [text]


def go_json_error(raw: bytes, exc: json.JSONDecodeError) -> str:
    """What Ollama's Go JSON decoder says of a body that does not parse (http-by-hand/).

    A body that ends early is "unexpected EOF"; a bad first character is named.
    Go's wording for a bad character further in depends on where it is, so that
    case keeps a shorter text of the same form.
    """
    text = raw.decode("utf-8", "replace")
    if exc.pos >= len(text.rstrip()):
        return "unexpected EOF"
    char = text[exc.pos]
    where = " looking for beginning of value" if not text[: exc.pos].strip() else ""
    return f"invalid character {char!r}{where}"


def _with_tag(name: str) -> str:
    """A model name completed as Ollama completes it: ``:latest`` when it has no tag."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def unused_port() -> int:
    """A loopback port nothing listens on (the OS picks it; it is released at once).

    A connection to it is refused: the address of a server that is not there.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FakeOllama:
    """A scripted Ollama on 127.0.0.1 (port chosen by the OS). Use as a context manager."""

    def __init__(
        self,
        *,
        version: str = "0.12.6",
        behaves_as: str = DEFAULT_RELEASE,
        first_token_delay_s: float = 0.0,
        token_interval_s: float = 0.0,
        cold_load_s: float = 0.0,
        headers_with_first_chunk: bool = True,
        default_num_ctx: int = 4096,
        unload_delay_s: float = 0.05,
        empty_leading_chunks: int = 0,
        models: list[FakeModel] | None = None,
    ) -> None:
        self.version = version
        # The recorded release it imitates (claims.testing.ollama_versions): the few
        # answers that differ between releases follow it; /api/version says `version`.
        self.release: OllamaRelease = release(behaves_as)
        self.first_token_delay_s = first_token_delay_s
        self.token_interval_s = token_interval_s
        self.cold_load_s = cold_load_s
        self.headers_with_first_chunk = headers_with_first_chunk
        self.default_num_ctx = default_num_ctx
        self.unload_delay_s = unload_delay_s
        # Chunks with no text before the first token, as thinking models send.
        self.empty_leading_chunks = empty_leading_chunks
        self.models: dict[str, FakeModel] = {_norm(m.name): m for m in (models or default_models())}
        self.loaded: dict[str, Loaded] = {}
        self.faults: list[Fault] = []
        self.exchanges: list[Exchange] = []
        self.blobs: dict[str, int] = {}  # digest -> size, uploaded through /api/blobs
        recorded_w2 = recordings.fixtures_dir() / "recorded" / "W2.json"
        # The catalog figures the file names instead of copying (claims.catalog.references).
        self.recorded = resolve(json.loads(recorded_w2.read_text(encoding="utf-8")), load_catalog())
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._rng = random.Random()
        self._unseeded = 0
        self._openai_counter = 0
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @classmethod
    def as_release(cls, version: str, **kwargs: Any) -> FakeOllama:
        """A fake answering as the recorded release ``version``, /api/version included."""
        return cls(version=release(version).version, behaves_as=version, **kwargs)

    @classmethod
    def from_store(cls, root: Path, **kwargs: Any) -> FakeOllama:
        """A fake whose models are the manifests of a real store on disk.

        Names, digests (the manifest's SHA-256) and sizes come from the store,
        the architecture and tokenizer fields from each model blob's GGUF
        header, so the store cross-checks of the claim tests have something
        true to find.
        """
        from claims.probes.files.gguf_file import read_header
        from claims.probes.files.ollama_store import OllamaStore

        store = OllamaStore(root)
        models = []
        for manifest in store.manifests():
            header = read_header(store.model_blob_path(manifest.name), verify_layout=False)
            arch = str(header.get("general.architecture") or "llama")
            info = {
                k: header.get(k)
                for k in header.keys()  # noqa: SIM118 (GGUFHeader is not a dict)
                if not k.startswith("tokenizer.ggml.")
                or k in ("tokenizer.ggml.model", "tokenizer.ggml.pre")
            }
            info = {k: v for k, v in info.items() if isinstance(v, (int, float, str, bool))}
            models.append(
                FakeModel(
                    name=manifest.name.display
                    if ":" in manifest.name.display
                    else f"{manifest.name.display}:latest",
                    digest=manifest.digest,
                    size=manifest.total_size,
                    family=arch,
                    parameter_size=str(header.parameter_count),
                    quantization="Q4_K_M",
                    model_info=info,
                    base_bytes=manifest.total_size,
                )
            )
        return cls(models=models, **kwargs)

    # --- lifecycle ------------------------------------------------------------------
    def start(self) -> FakeOllama:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the fake first"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add_fault(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def _take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(path):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    # --- model state ------------------------------------------------------------------
    def _model(
        self,
        body: dict[str, Any],
        *,
        missing: Callable[[str], str] = lambda name: f"model '{name}' not found",
        required: bool = True,
    ) -> FakeModel:
        """The model a request names; Ollama's 400/404 when it names none or a missing one.

        ``missing`` words the 404 as the route does; ``required`` False: a request
        without a model is a missing model named "" (what /api/generate answers).
        """
        name = body.get("model") or body.get("name")
        if not isinstance(name, str) or not name:
            if required:
                raise _HTTPError(400, "model is required")
            name = ""
        model = self.find(name) if name else None
        if model is None:
            raise _HTTPError(404, missing(name))
        return model

    def find(self, name: str) -> FakeModel | None:
        """The served model ``name`` is, by Ollama's rule (ParseName, then EqualFold)."""
        return next((m for m in self.models.values() if same_model(m.name, name)), None)

    def _expire(self) -> None:
        now = time.time()
        for key in [k for k, v in self.loaded.items() if v.expires <= now]:
            del self.loaded[key]

    def _ensure_loaded(self, model: FakeModel, body: dict[str, Any]) -> float:
        """Load (or reload at a new context) and return the load time in seconds."""
        options = body.get("options") or {}
        ctx = int(options.get("num_ctx") or self.default_num_ctx)
        try:
            keep = keep_alive_seconds(body.get("keep_alive"), 300.0)
        except ValueError as exc:
            raise _HTTPError(400, str(exc)) from None
        started = time.perf_counter()
        with self._lock:
            self._expire()
            current = self.loaded.get(_norm(model.name))
            cold = current is None or current.context_length != ctx
        if cold:
            _sleep(self.cold_load_s)
        expires = time.time() + (GO_MAX_DURATION_S if math.isinf(keep) else keep)
        with self._lock:
            self.loaded[_norm(model.name)] = Loaded(model, ctx, expires)
        # A loaded model still reports a small load_duration (queueing, as Ollama does).
        return time.perf_counter() - started + 0.0001

    def _unload_later(self, model: FakeModel) -> None:
        # Until the runner is gone 0.31.2's /api/ps still lists the model, expiring now
        # (its 07-ps-empty.json right after keep_alive 0); 0.32.15's lists none.
        key = _norm(model.name)
        if not self.release.ps_lists_unloading:
            self._unload_at_once(key)
            return
        with self._lock:
            current = self.loaded.get(key)
            if current is not None:
                current.expires = min(current.expires, time.time() + self.unload_delay_s)

        def drop() -> None:
            with self._lock:
                # A request that reloaded the model meanwhile keeps its new runner.
                if self.loaded.get(key) is current:
                    self.loaded.pop(key, None)

        timer = threading.Timer(self.unload_delay_s, drop)
        timer.daemon = True
        timer.start()

    def _unload_at_once(self, key: str) -> None:
        """0.32.15: the model leaves /api/ps before the next read can see it."""
        with self._lock:
            self.loaded.pop(key, None)

    # --- routes -----------------------------------------------------------------------------
    @_route("GET", "/")
    def _root(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        h._send_text(200, "Ollama is running")

    @_route("GET", "/api/version")
    def _version(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        h._send_json(200, {"version": self.version})

    @_route("GET", "/api/tags")
    def _tags(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        models = []
        for m in self.models.values():
            details = m.details()
            arch = m.model_info.get("general.architecture")
            for key in ("context_length", "embedding_length"):
                value = m.model_info.get(f"{arch}.{key}")
                if isinstance(value, int):
                    details[key] = value
            models.append(
                {
                    "name": m.name,
                    "model": m.name,
                    "modified_at": "2026-07-07T10:00:00.000000000Z",
                    "size": m.size,
                    "digest": m.digest,
                    "details": details,
                    "capabilities": list(m.capabilities),
                }
            )
        h._send_json(200, {"models": models})

    @_route("GET", "/api/ps")
    def _ps(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        with self._lock:
            self._expire()
            loaded = list(self.loaded.values())
        models = []
        for item in loaded:
            size = item.model.base_bytes + item.context_length * item.model.kv_bytes_per_token
            models.append(
                {
                    "name": item.model.name,
                    "model": item.model.name,
                    "size": size,
                    "digest": item.model.digest,
                    "details": item.model.details(),
                    "expires_at": _iso(item.expires),
                    "size_vram": size,
                    "context_length": item.context_length,
                }
            )
        h._send_json(200, {"models": models})

    @_route("POST", "/api/show")
    def _show(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body, missing=lambda name: f"model '{_with_tag(name)}' not found")
        info = dict(m.model_info)
        if info.get("tokenizer.ggml.pre") == "dbrx":
            # As Ollama does: the long tokenizer arrays only when asked for (verbose).
            info["tokenizer.ggml.tokens"] = _phi4_tokens() if body.get("verbose") else None
        reply: dict[str, Any] = {
            "modelfile": f"FROM {m.name}\nTEMPLATE {m.template}\n",
            "template": m.template,
            "details": m.details(),
            "model_info": info,
            "tensors": [],
            "capabilities": list(m.capabilities),
            "modified_at": "2026-07-07T10:00:00.000000000Z",
            **dict(m.extra_show),
        }
        # Ollama leaves out what the Modelfile did not set (the captures: a bare
        # FROM has no parameters and no license).
        if m.parameters:
            reply["parameters"] = m.parameters
        if m.license and "license" not in reply:
            reply["license"] = m.license
        h._send_json(200, reply)

    def _reply_for(
        self, model: FakeModel, prompt: str, options: dict[str, Any], fmt: Any
    ) -> tuple[str, list[int] | None, dict[str, Any] | None]:
        """Scripted text (and recorded context/durations) for one generate prompt."""
        text, context, recorded = self._scripted(prompt, options, fmt)
        for stop in options.get("stop") or []:
            if isinstance(stop, str) and stop and stop in text:
                text, context, recorded = text[: text.index(stop)], None, None
        return text, context, recorded

    def _scripted(
        self, prompt: str, options: dict[str, Any], fmt: Any
    ) -> tuple[str, list[int] | None, dict[str, Any] | None]:
        rec = self.recorded
        if fmt == "json":
            return (
                json.dumps(
                    {"name": "Canada", "capital": "Ottawa", "languages": ["English", "French"]}
                ),
                None,
                None,
            )
        if fmt is not None:
            return json.dumps(_instance(fmt)), None, None
        if prompt.startswith("Count from 1 to"):
            return ", ".join(str(i) for i in range(1, 201)), None, None
        if prompt == rec["generate_request"]["prompt"]:
            reply = rec["generate_reply"]
            limit = options.get("num_predict")
            if isinstance(limit, int) and 0 <= limit < reply["eval_count"]:
                # Cut by num_predict as a real server cuts it: the first `limit` answer
                # ids, the text they decode to, done_reason "length".
                from claims.probes.tokens.cl100k_base import cl100k

                prompt_len = int(reply["prompt_eval_count"])
                ids = list(reply["context"][: prompt_len + limit])
                text = cl100k().decode(ids[prompt_len:])
                cut = {**reply, "eval_count": limit, "done_reason": "length", "response": text}
                return text, ids, cut
            return reply["response"], reply["context"], reply
        if prompt == rec["seed_runs"]["request"]["prompt"]:
            if options.get("seed") == 42:
                return rec["seed_runs"]["replies"][0], None, None
            return self._rng.choice(["Bean There", "Grind Theory", "Velvet Roast"]), None, None
        if "tagline" not in prompt:
            # Any other prompt: what a base model does, running on (with commas) until
            # the token limit stops it, as gemma3:270m did in the captures.
            if options.get("temperature") == 0 or "seed" in options:
                return BASE_MODEL_TEXT, None, None
            self._unseeded += 1
            return f"{self._unseeded}: {BASE_MODEL_TEXT}", None, None
        tag_temp0 = "Awaken Your Senses, One Cup at a Time."
        variants = [
            "Where every sip is a moment of delight.",
            "Where Every Cup is a Perfect Brew—Awaken Your Senses.",
            "Brewed for the moments that matter.",
        ]
        if options.get("temperature") == 0:
            return tag_temp0, None, None
        if "seed" in options:
            return random.Random(options["seed"]).choice(variants), None, None
        # Unseeded sampling: successive requests get successive variants, so two
        # runs in a row always differ (a real model differs with high probability).
        self._unseeded += 1
        return variants[self._unseeded % len(variants)], None, None

    @_route("POST", "/api/generate")
    def _generate(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body, required=False)
        prompt = body.get("prompt")
        now = _iso(time.time())
        if not prompt:
            # An empty prompt loads the model, or with keep_alive 0 unloads it.
            if body.get("keep_alive") in (0, "0", "0s"):
                self._unload_later(m)
                reason = "unload"
            else:
                self._ensure_loaded(m, body)
                reason = "load"
            self._send_done(h, m, now, _as_response, reason)
            return
        options = body.get("options") or {}
        load_s = self._ensure_loaded(m, body)
        text, context, recorded = self._reply_for(m, str(prompt), options, body.get("format"))
        final = self._final(
            m,
            text,
            load_s,
            options,
            prompt_tokens=len(_pieces(str(prompt))) + 10,
            recorded=recorded,
        )
        if context is None:
            # As Ollama keeps it: the prompt's ids (not an added BOS) and the answer's
            # (not the stop token that ended it).
            bos = 1 if m.model_info.get("tokenizer.ggml.add_bos_token") is True else 0
            stop = 1 if final["done_reason"] == "stop" else 0
            length = final["prompt_eval_count"] - bos + final["eval_count"] - stop
            context = list(range(1000, 1000 + max(length, 0)))
        if not body.get("raw"):
            final["context"] = context  # a raw request gets no context (11-*.json)
        if recorded is not None and context is not None:
            # A recorded reply streams one chunk per token, as the server sent it.
            from claims.probes.tokens.cl100k_base import cl100k

            start = int(recorded["prompt_eval_count"])
            ids = context[start : start + int(recorded["eval_count"])]
            pieces = [cl100k().decode([i]) for i in ids]
        else:
            pieces = _truncate(_pieces(text), options)
        self._send_answer(h, body, fault, m, now, _as_response, pieces, final)

    def _send_done(self, h: _Handler, m: FakeModel, now: str, shape: Shape, reason: str) -> None:
        """The reply to a request that only loads or unloads: no text, done at once."""
        reply = {"model": m.name, "created_at": now, **shape("", {}), "done": True}
        h._send_json(200, {**reply, "done_reason": reason})

    def _send_answer(
        self,
        h: _Handler,
        body: dict[str, Any],
        fault: Fault | None,
        m: FakeModel,
        now: str,
        shape: Shape,
        pieces: list[str],
        final: dict[str, Any],
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Send generated ``pieces``: one object (stream false) or NDJSON, one chunk a piece.

        The time the final chunk reports is taken for real: prefill before the
        first byte, decode per token. A stream opens with
        ``empty_leading_chunks`` thinking-only chunks; ``extra`` (tool calls)
        goes with the final object.
        """
        extra = extra or {}
        _sleep(final["prompt_eval_duration"] / 1e9)

        def served(final: dict[str, Any]) -> dict[str, Any]:
            # total_duration is the server's own wall time for the request, as Ollama
            # reports it: the scripted phases and whatever the fake spent besides.
            elapsed = time.perf_counter_ns() - h.arrival_ns
            return {**final, "total_duration": max(int(final["total_duration"]), elapsed)}

        if body.get("stream") is False:
            _sleep(final["eval_duration"] / 1e9)
            text = shape("".join(pieces), extra)
            h._send_json(200, {"model": m.name, "created_at": now, **text, **served(final)})
            return

        def chunk(fields: dict[str, Any]) -> dict[str, Any]:
            return {"model": m.name, "created_at": _iso(time.time()), **fields}

        def lines() -> Iterator[dict[str, Any]]:
            for _ in range(self.empty_leading_chunks):
                yield chunk({**shape("", {"thinking": "…"}), "done": False})
            for piece in pieces:
                yield chunk({**shape(piece, {}), "done": False})
            yield chunk({**shape("", extra), **served(final)})

        h.stream_lines(lines(), fault, first_delay_s=self.first_token_delay_s)

    def _final(
        self,
        m: FakeModel,
        text: str,
        load_s: float,
        options: dict[str, Any],
        *,
        prompt_tokens: int,
        recorded: dict[str, Any] | None,
    ) -> dict[str, Any]:
        pieces = _truncate(_pieces(text), options)
        limited = "num_predict" in options and len(pieces) >= int(options["num_predict"])
        eval_count = len(pieces) if limited else len(pieces) + 1
        if recorded is not None:
            # The recorded token counts (they match the recorded context array);
            # the durations stay the fake's own, so they agree with the clock.
            prompt_tokens, eval_count = recorded["prompt_eval_count"], recorded["eval_count"]
        per_token = max(self.token_interval_s, 0.0005)
        eval_ns = int(eval_count * per_token * 1e9)
        prompt_ns = int(prompt_tokens * 0.0001 * 1e9)
        load_ns = int(load_s * 1e9)
        reason = "length" if limited else "stop"
        if recorded is not None:
            reason = str(recorded.get("done_reason") or reason)
        return {
            "done": True,
            "done_reason": reason,
            "total_duration": load_ns + prompt_ns + eval_ns + 1_000_000,
            "load_duration": load_ns,
            "prompt_eval_count": prompt_tokens,
            "prompt_eval_duration": prompt_ns,
            "eval_count": eval_count,
            "eval_duration": eval_ns,
        }

    @_route("POST", "/api/chat")
    def _chat(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        messages = body.get("messages")
        if messages is None or not isinstance(messages, list):
            messages = []
        now = _iso(time.time())
        if not messages:
            self._ensure_loaded(m, body)
            self._send_done(h, m, now, _as_message, "load")
            return
        options = body.get("options") or {}
        load_s = self._ensure_loaded(m, body)
        joined = " ".join(str(msg.get("content", "")) for msg in messages if isinstance(msg, dict))
        tool_calls = None
        last_role = messages[-1].get("role") if isinstance(messages[-1], dict) else None
        if last_role == "tool":
            text = f"It is {messages[-1].get('content', '')} in the city you asked about."
        elif body.get("tools"):
            tool = body["tools"][0]["function"]
            props = (tool.get("parameters") or {}).get("properties") or {}
            tool_calls = [
                {
                    "function": {
                        "name": tool["name"],
                        "arguments": {k: _instance(v) for k, v in props.items()},
                    }
                }
            ]
            text = ""
        elif body.get("format") is not None:
            text = json.dumps(_instance(body["format"]))
        elif "What name did I give it?" in joined:
            text = "Atlas" if "Atlas" in joined else "UNKNOWN"
        else:
            text, _, _ = self._reply_for(m, str(messages[-1].get("content", "")), options, None)
        # Week 2 records 50 prompt tokens with the Atlas history and 31 without it.
        ctx = int(options.get("num_ctx") or self.default_num_ctx)
        prompt_tokens = (
            50
            if "Atlas" in joined
            else 31
            if "What name" in joined
            else _prompt_tokens(_truncate_history(messages, ctx))
        )
        final = self._final(m, text, load_s, options, prompt_tokens=prompt_tokens, recorded=None)
        pieces = _truncate(_pieces(text), options) if text else []
        extra = {"tool_calls": tool_calls} if tool_calls else {}
        self._send_answer(h, body, fault, m, now, _as_message, pieces, final, extra)

    @_route("POST", "/api/embeddings")
    def _embeddings_legacy(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        if "embedding" not in m.capabilities:
            raise _HTTPError(500, NO_EMBEDDINGS)  # the legacy route says 500 (27-*.json)
        self._ensure_loaded(m, body)
        h._send_json(200, {"embedding": _unit_vector(str(body.get("prompt", "")), 768)})

    @_route("POST", "/api/embed")
    def _embed(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(
            body, missing=lambda name: f"model {json.dumps(name)} not found, try pulling it first"
        )
        if "embedding" not in m.capabilities:
            # What Ollama 0.31's llama-server runner answers for a model without a
            # pooling type (the captures: 26-embed.json).
            raise _HTTPError(501, NO_EMBEDDINGS)
        inputs = body.get("input")
        items = [inputs] if isinstance(inputs, str) else list(inputs or [])
        load_s = self._ensure_loaded(m, body)
        # A fixed per-request cost, so one batched call is cheaper than many.
        _sleep(0.002)
        vectors = [_unit_vector(str(text), 768) for text in items]
        h._send_json(
            200,
            {
                "model": m.name,
                "embeddings": vectors,
                "total_duration": int(load_s * 1e9) + 2_000_000,
                "load_duration": int(load_s * 1e9),
                "prompt_eval_count": sum(len(_pieces(str(t))) for t in items),
            },
        )

    def _blob(self, h: _Handler, method: str, digest: str) -> None:
        """HEAD: is the blob here; POST: receive it and check its SHA-256."""
        if method == "HEAD":
            h._send(200 if digest in self.blobs else 404)
            return
        length = int(h.headers.get("Content-Length") or 0)
        hasher, remaining = hashlib.sha256(), length
        while remaining > 0:
            chunk = h.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            hasher.update(chunk)
            remaining -= len(chunk)
        if f"sha256:{hasher.hexdigest()}" != digest:
            h._send_json(400, {"error": "digest mismatch"})
            return
        self.blobs[digest] = length
        h._send(201)

    def reuse_layers(self, *, weights: str | None, base: FakeModel | None) -> None:
        """What a create does to the layers it already has (this fake keeps none on disk)."""

    @_route("POST", "/api/create")
    def _create(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        name = body.get("model")
        files = body.get("files")
        if isinstance(name, str) and isinstance(files, dict) and files:
            digest = next(iter(files.values()))
            if digest not in self.blobs:
                raise _HTTPError(400, f"blob {digest} not found")
            self.reuse_layers(weights=digest, base=None)
            self.models[_norm(name)] = FakeModel(
                name=_norm(name),
                digest=hashlib.sha256(name.encode()).hexdigest(),
                size=self.blobs[digest],
                family=IMPORTED_AS[0],
                parameter_size=IMPORTED_AS[1],
                quantization=IMPORTED_AS[2],
                model_info={"general.architecture": IMPORTED_AS[0]},
                template=str(body.get("template") or "{{ .Prompt }}"),
            )
            h._send_json(200, {"status": "success"})
            return
        base = self.find(str(body.get("from") or ""))
        if not isinstance(name, str) or base is None:
            raise _HTTPError(400, "neither 'from' nor 'files' was specified")
        self.reuse_layers(weights=None, base=base)
        params = body.get("parameters") or {}
        lines = [m for m in base.parameters.splitlines() if m]
        lines += [f"{k:<30} {v}" for k, v in params.items()]
        extra = tuple((k, body[k]) for k in ("system", "license", "messages") if k in body)
        derived = FakeModel(
            **{
                **base.__dict__,
                "name": _norm(name),
                "digest": hashlib.sha256(name.encode()).hexdigest(),
                "parameters": "\n".join(lines),
                "template": body.get("template") or base.template,
                "extra_show": extra,
            }
        )
        self.models[_norm(name)] = derived
        h._send_json(200, {"status": "success"})

    @_route("DELETE", "/api/delete")
    def _delete(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        self.models = {k: v for k, v in self.models.items() if v is not m}
        h._send(200)  # Ollama answers an empty body, no content type

    @_route("POST", "/api/copy")
    def _copy(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        source = self._model({"model": body.get("source")})
        destination = body.get("destination")
        if not isinstance(destination, str) or not destination:
            raise _HTTPError(400, "destination is required")
        self.models[_norm(destination)] = FakeModel(
            **{**source.__dict__, "name": _norm(destination)}
        )
        h._send(200)

    @_route("POST", "/api/pull")
    def _pull(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        name = body.get("model") or body.get("name")
        found = self.find(name) if isinstance(name, str) else None
        if found is None:
            raise _HTTPError(500, "pull model manifest: file does not exist")
        digest = found.digest

        def lines() -> Iterator[dict[str, Any]]:
            yield {"status": "pulling manifest"}
            yield {
                "status": f"pulling {digest[:12]}",
                "digest": f"sha256:{digest}",
                "total": 100,
                "completed": 100,
            }
            yield {"status": "verifying sha256 digest"}
            yield {"status": "writing manifest"}
            yield {"status": "success"}

        h.stream_lines(lines(), fault, first_delay_s=0.0)

    @_route("POST", "/v1/chat/completions")
    def _openai_chat(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        messages = body.get("messages") or []
        load_s = self._ensure_loaded(m, {"model": m.name})
        last = str(messages[-1].get("content", "")) if messages else ""
        options = {"temperature": body.get("temperature")}
        text, _, _ = self._reply_for(m, last, options, None)
        limit = body.get("max_tokens")
        limits = {"num_predict": limit} if isinstance(limit, int) else {}
        pieces = _truncate(_pieces(text), limits)
        final = self._final(
            m, text, load_s, limits, prompt_tokens=len(_pieces(last)) + 8, recorded=None
        )
        finish = final["done_reason"]
        usage = {
            "prompt_tokens": final["prompt_eval_count"],
            "completion_tokens": final["eval_count"],
            "total_tokens": final["prompt_eval_count"] + final["eval_count"],
        }
        self._openai_counter += 1
        head = {
            "id": f"chatcmpl-{self._openai_counter}",
            "created": int(time.time()),
            "model": m.name,
            "system_fingerprint": "fp_ollama",
        }
        if body.get("stream") is True:
            with_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._openai_stream(h, fault, head, pieces, finish, usage if with_usage else None)
            return
        h._send(
            200,
            json.dumps(
                {
                    **head,
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "".join(pieces)},
                            "finish_reason": finish,
                        }
                    ],
                    "usage": usage,
                }
            ).encode(),
            "application/json",  # no charset, unlike the native routes (28-*.json)
        )

    def _openai_stream(
        self,
        h: _Handler,
        fault: Fault | None,
        head: dict[str, Any],
        pieces: list[str],
        finish: str,
        usage: dict[str, int] | None,
    ) -> None:
        """Server-sent events as Ollama writes them: "data: {json}", a blank line, "[DONE]"."""

        def chunk(delta: dict[str, Any], reason: str | None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": reason}
            return {**head, "object": "chat.completion.chunk", "choices": [choice]}

        events: list[bytes] = [
            json.dumps(chunk({"role": "assistant", "content": p}, None)).encode() for p in pieces
        ]
        last: dict[str, Any] = (
            {} if self.release.openai_finish_delta_empty else {"role": "assistant", "content": ""}
        )
        events.append(json.dumps(chunk(last, finish)).encode())
        if usage is not None:
            events.append(
                json.dumps(
                    {**head, "object": "chat.completion.chunk", "choices": [], "usage": usage}
                ).encode()
            )
        events.append(b"[DONE]")
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for event in events:
            h._chunk(b"data: " + event + b"\n\n")
        h.wfile.write(b"0\r\n\r\n")

    @_route("GET", "/v1/models")
    def _openai_models(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        h._send(
            200,
            json.dumps(
                {
                    "object": "list",
                    "data": [
                        {
                            "id": m.name,
                            "object": "model",
                            "created": 1_783_000_000,
                            "owned_by": "library",
                        }
                        for m in self.models.values()
                    ],
                }
            ).encode(),
            "application/json",
        )


# --- hostile modes (issue 22): a server that attacks the instrument -------------------
#
# Each is a function of its own that arms an existing fake, so a test says which
# attack it makes in one line. A hung or trickling handler gives up on its own
# after HOSTILE_HOLD_S (and at once when the fake stops): no test leaves a thread
# behind for long.

GENERATION_PATHS = ("/api/generate", "/api/chat", "/api/embed", "/api/embeddings",
                    "/v1/chat/completions")
HOSTILE_HOLD_S = 120.0


def wedge_generation(fake: FakeOllama) -> None:
    """A wedged runner: /api/version, tags, show and ps answer; no generation ever does."""
    for path in GENERATION_PATHS:
        fake.add_fault(Fault("hang", path=path))


def never_finish_streams(fake: FakeOllama, interval_s: float = 0.2) -> None:
    """Generation streams trickle a chunk every ``interval_s`` and never send ``done``."""
    for path in ("/api/generate", "/api/chat"):
        fake.add_fault(Fault("trickle", path=path, delay_s=interval_s))


def hostile_text(fake: FakeOllama, text: str) -> None:
    """Model names and error bodies that carry ``text`` (terminal escapes, say).

    /api/tags lists one more model whose name holds ``text``, and /api/show
    answers 404 with ``text`` in its error body, as a hostile server would.
    """
    model = default_models()[0]
    extra = replace(model, name=f"evil{text}:latest")
    fake.models[_norm(extra.name)] = extra
    fake.add_fault(Fault("status", path="/api/show", status=404,
                         message=f"model '{text}' not found"))


def _trickle(h: _Handler, fault: Fault, body: Any) -> None:
    """The never-ending stream of :func:`never_finish_streams` (bounded by HOSTILE_HOLD_S)."""
    fake = h.server.fake
    h.close_connection = True
    if not isinstance(body, dict) or body.get("stream") is False:
        fake._stopping.wait(HOSTILE_HOLD_S)  # a whole reply that never comes
        return
    model = body.get("model")
    h._start_chunked()
    give_up = time.monotonic() + HOSTILE_HOLD_S
    try:
        while not fake._stopping.wait(fault.delay_s) and time.monotonic() < give_up:
            line = {"model": model, "created_at": _iso(time.time()), "response": " more",
                    "done": False}
            h._chunk(json.dumps(line).encode() + b"\n")
    except (BrokenPipeError, ConnectionResetError):
        pass


BASE_MODEL_TEXT = " ".join(
    ["and then the next note says what the cluster did, which node it used, and why"] * 12
)
NO_EMBEDDINGS = "This server does not support embeddings. Start it with `--embeddings`"
PHI4_VOCAB_SIZE = 100_352
PHI4_SPECIALS = {
    100257: "<|endoftext|>",
    100264: "<|im_start|>",
    100265: "<|im_end|>",
    100266: "<|im_sep|>",
}


def _phi4_tokens() -> list[str]:
    """phi4's token strings as its GGUF writes them: cl100k_base in GPT-2 byte-level form."""
    from gguf.vocab import bytes_to_unicode

    from claims.probes.tokens.cl100k_base import cl100k

    enc = cl100k()
    table = bytes_to_unicode()
    tokens = []
    for i in range(PHI4_VOCAB_SIZE):
        if i in PHI4_SPECIALS:
            tokens.append(PHI4_SPECIALS[i])
            continue
        try:
            raw = enc.decode_single_token_bytes(i)
        except KeyError:
            tokens.append(f"<|dummy_{i}|>")
            continue
        tokens.append("".join(table[b] for b in raw))
    return tokens


def _message_tokens(message: Any) -> int:
    """A message's prompt tokens in the fake's template: its pieces plus 4 for the markers."""
    content = message.get("content", "") if isinstance(message, dict) else ""
    return len(_pieces(str(content))) + 4


def _prompt_tokens(messages: list[Any]) -> int:
    return 3 + sum(_message_tokens(m) for m in messages)


def _truncate_history(messages: list[Any], num_ctx: int) -> list[Any]:
    """Ollama's chatPrompt (server/prompt.go): drop messages from the front until the
    prompt fits num_ctx, keeping the system messages of the dropped part and always
    the last message."""
    for i in range(len(messages)):
        system = [m for m in messages[:i] if isinstance(m, dict) and m.get("role") == "system"]
        kept = system + messages[i:]
        if _prompt_tokens(kept) <= num_ctx or i == len(messages) - 1:
            return kept
    return messages


def _truncate(pieces: list[str], options: dict[str, Any]) -> list[str]:
    limit = options.get("num_predict")
    if isinstance(limit, int) and limit >= 0:
        return pieces[:limit]
    return pieces


def _unit_vector(text: str, dims: int) -> list[float]:
    rng = random.Random(hashlib.sha256(text.encode()).digest())
    vec = [rng.gauss(0.0, 1.0) for _ in range(dims)]
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec]


def _instance(schema: Any) -> Any:
    """A small value that satisfies a simple JSON schema (what a constrained model emits)."""
    if not isinstance(schema, dict):
        return "text"
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        return {k: _instance(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [_instance(schema.get("items") or {})]
    if kind == "integer":
        return max(int(schema.get("minimum", 3)), 0)
    if kind == "number":
        return 2.5
    if kind == "boolean":
        return True
    return "Atlas"
