"""The HTTP side of a fake Ollama: one handler thread per connection, routes by path.

:class:`_Handler` reads a request (its arrival time is when its request line was
read, in ``perf_counter_ns``), applies the fault that matches its path, then calls
the route registered for its method and path (:func:`_route`), or answers 404/405
as Gin does. Streamed replies are real chunked NDJSON written line by line;
headers go out with the first chunk, as Ollama's Go server sends them.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from claims.testing.fake_ollama.faults import HOSTILE_HOLD_S, Fault
from claims.testing.fake_ollama.replies import _iso
from claims.testing.fake_ollama.state import Exchange, _HTTPError, _sleep, _sleep_until

__all__ = ["BODY_REQUIRED", "ROUTES", "Served", "go_json_error", "unused_port"]


class Served(Protocol):
    """What the handler reads of the fake it serves (FakeOllama satisfies it)."""

    exchanges: list[Exchange]
    headers_with_first_chunk: bool
    token_interval_s: float
    _stopping: threading.Event

    def stream_interval_s(self) -> float: ...

    def _take_fault(self, path: str) -> Fault | None: ...

    def _blob(self, h: _Handler, method: str, digest: str) -> None: ...


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
        interval_s = fake.stream_interval_s()
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
            if sent and interval_s:
                # Deadlines from the first chunk, so the fake's own per-chunk work
                # does not stretch the interval the tests rely on.
                _sleep_until(first_sent + sent * interval_s)
            self._chunk(json.dumps(obj).encode() + b"\n")
            if sent == 0:
                self.exchange.first_chunk_ns = time.perf_counter_ns()
        self.wfile.write(b"0\r\n\r\n")


# A route is a method of the fake (claims.testing.fake_ollama.routes and .generation):
# (fake, handler, the request's JSON body, the fault that hit it).
Route = Callable[[Any, _Handler, dict[str, Any], "Fault | None"], None]
# Routes that read a JSON body; without one Ollama answers 400 "missing request body".
BODY_REQUIRED = frozenset(
    {"/api/show", "/api/generate", "/api/chat", "/api/embed", "/api/embeddings",
     "/api/copy", "/api/delete", "/api/create", "/api/pull"}
)


ROUTES: dict[tuple[str, str], Route] = {}  # (method, path) -> FakeOllama handler


def _route(method: str, path: str) -> Callable[[Route], Route]:
    """Register a :class:`FakeOllama` method as the handler of ``method path``."""

    def register(handler: Route) -> Route:
        ROUTES[(method, path)] = handler
        return handler

    return register


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False
    fake: Served


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


def unused_port() -> int:
    """A loopback port nothing listens on (the OS picks it; it is released at once).

    A connection to it is refused: the address of a server that is not there.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
