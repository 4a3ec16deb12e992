"""Plain requests to one Ollama server: explicit timeouts, capped replies, clear errors.

Every request has explicit connect and read timeouts, and every reply is read
with a size cap, so a broken or hostile server ends a probe with one
:class:`~claims.probes.errors.ServerError` (see
:mod:`claims.probes.live.ollama_api.errors`) instead of a hang or unbounded memory.

With ``request_timeout`` set, that is each request's deadline end to end: the
connection, the wait for the first byte and the whole body or stream must all
fit in it, whatever longer total a caller asks for (only a pull, which downloads
gigabytes, may outlast it). A stream is also cut at its own bound: a generation
limited to ``num_predict`` tokens that sends more lines than that (plus
:data:`STREAM_MARGIN_LINES`) without its final object is stopped, and the error
says so. With ``breaker`` set, the first request that times out opens the
breaker (:mod:`claims.probes.live.ollama_api.breaker`): every later request fails
at once with :class:`~claims.probes.live.ollama_api.errors.ServerStopped`, naming
the request that hung, so a wedged server costs one timeout, not one per request.
:meth:`Transport.sibling` gives a second connection under the same timeouts and
breaker (the concurrency probe streams on several at once). The breaker is per
process: each pytest-xdist worker pays one timeout before it stops asking.
The endpoint groups build on :class:`Transport`;
:class:`~claims.probes.live.ollama_api.client.OllamaClient` puts them together.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Self

import httpx

from claims.probes.errors import ServerError
from claims.probes.live.ollama_api.breaker import Breaker
from claims.probes.live.ollama_api.deadline import Deadline, bounded, install, within
from claims.probes.live.ollama_api.errors import (
    ServerHTTPError,
    ServerTimeout,
    ServerUnavailable,
    StreamError,
    reason,
    seconds,
)
from claims.probes.live.ollama_api.payloads import decode_json, error_text, model_list
from claims.probes.live.ollama_api.stream import StreamLine, is_done, read_lines
from claims.probes.live.ollama_api.usage import GENERATION_PATHS, Usage

__all__ = [
    "DEFAULT_STALL_TIMEOUT",
    "MAX_REPLY_BYTES",
    "STREAM_MARGIN_LINES",
    "Deadline",
    "Transport",
    "stream_line_bound",
]

# Embeddings of a batch, the largest non-streamed replies, stay far below this.
MAX_REPLY_BYTES = 32 * 1024 * 1024
MAX_ERROR_BYTES = 64 * 1024
DEFAULT_STALL_TIMEOUT = 30.0  # seconds between two chunks, as Ollama's own integration tests

Timeouts = dict[str, float | None]

# Ollama streams one line per generated token and a final one; a thinking model's
# thinking and a multi-byte character split over tokens add no lines beyond their
# tokens. The margin leaves room for servers that send a few empty lines.
STREAM_MARGIN_LINES = 16


def stream_line_bound(path: str, body: Any) -> tuple[int, str] | None:
    """The most lines a generate or chat stream may send, and why (None: unbounded).

    ``num_predict`` tokens, a line each, the final object, and
    :data:`STREAM_MARGIN_LINES` (or a quarter of the tokens, if more).
    """
    if path not in ("/api/generate", "/api/chat") or not isinstance(body, Mapping):
        return None
    options = body.get("options")
    limit = options.get("num_predict") if isinstance(options, Mapping) else None
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        return None  # -1 (and Ollama's default) is "until the model stops"
    margin = max(STREAM_MARGIN_LINES, limit // 4)
    return limit + 1 + margin, f"num_predict={limit}, so at most {limit + 1} lines + {margin}"


class Transport:
    """The connection to one Ollama server and its plain requests.

    ``read_timeout`` bounds the wait for a reply's first bytes (a cold model
    load happens inside that wait); ``stall_timeout`` bounds the silence
    between two chunks of a stream once it has begun; ``request_timeout`` (when
    set) bounds each request end to end. ``breaker``: the first timeout stops
    every later request (``stopped`` says which request hung; ``on_stop`` is
    told once); True makes this client's own :class:`Breaker`, a :class:`Breaker`
    shares one with other clients of the same server (per process, see
    :mod:`~claims.probes.live.ollama_api.breaker`). ``auth``: HTTP Basic
    credentials for this host.
    """

    def __init__(
        self,
        host: str,
        *,
        connect_timeout: float = 5.0,
        read_timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        stall_timeout: float | None = None,
        request_timeout: float | None = None,
        breaker: bool | Breaker = False,
        auth: tuple[str, str] | None = None,
    ) -> None:
        self.host = host.rstrip("/")
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        # Each request's deadline end to end (None: only the per-wait timeouts bound it).
        self.request_timeout = request_timeout
        self.breaker: Breaker | None = (
            breaker if isinstance(breaker, Breaker) else Breaker() if breaker else None
        )
        self.stall_timeout = (
            min(read_timeout, DEFAULT_STALL_TIMEOUT) if stall_timeout is None else stall_timeout
        )
        self.timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        if transport is None:
            # httpx writes a request's headers and body separately; with Nagle's
            # algorithm the body could wait for an ACK and inflate every TTFT.
            # Ollama's Go server sets TCP_NODELAY on its side already.
            transport = httpx.HTTPTransport(
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
            )
            # Every wait on the socket ends by the request's deadline (a trickle of
            # header bytes or of 102 interim responses would otherwise never end).
            install(transport)
        # ``auth``: HTTP Basic credentials for this host (never part of ``host``, which
        # is printed and recorded); httpx drops them on a redirect to another origin.
        self.auth = auth
        self._client = httpx.Client(
            base_url=self.host,
            timeout=self.timeout,
            transport=transport,
            auth=httpx.BasicAuth(*auth) if auth else None,
        )
        # Set by a caller that wants the session's cost counted
        # (claims.probes.live.ollama_api.usage);
        # ``on_usage`` is called after every counted request.
        self.usage: Usage | None = None
        self.on_usage: Callable[[Usage], None] | None = None
        self.last_request_ns = 0  # the last plain request's round trip (see _request)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def sibling(self) -> Self:
        """Another client of this server on a connection of its own, under the same
        timeouts, credentials and breaker: a timeout on either stops both.

        Its requests are not counted in this client's ``usage`` (the accounting
        reads /api/ps around each generation, which side-by-side streams would blur).
        """
        return type(self)(
            self.host,
            connect_timeout=self.connect_timeout,
            read_timeout=self.read_timeout,
            stall_timeout=self.stall_timeout,
            request_timeout=self.request_timeout,
            breaker=self.breaker or False,
            auth=self.auth,
        )

    # --- the breaker (claims.probes.live.ollama_api.breaker) -----------------------------
    @property
    def stopped(self) -> str | None:
        """Which request hung, once one timed out under the breaker (else None)."""
        return None if self.breaker is None else self.breaker.stopped

    @property
    def on_stop(self) -> Callable[[str], None] | None:
        """Told once, when a timeout opens the breaker (None without a breaker)."""
        return None if self.breaker is None else self.breaker.on_stop

    @on_stop.setter
    def on_stop(self, callback: Callable[[str], None] | None) -> None:
        if self.breaker is None:
            raise ValueError("on_stop needs a client made with breaker set")
        self.breaker.on_stop = callback

    # --- requests -----------------------------------------------------------------------
    def _timeouts(self, read: float | None, deadline: Deadline) -> Timeouts:
        # httpx's documented "timeout" request extension; we keep a reference to
        # the dict so a stream can tighten its read timeout once the headers are in
        # (httpcore reads it again before every read of the socket).
        return {
            "connect": deadline.cap(self.connect_timeout),
            "read": deadline.cap(self.read_timeout if read is None else read),
            "write": deadline.cap(self.connect_timeout),
            "pool": deadline.cap(self.connect_timeout),
        }

    def _deadline(self, total: float | None = None, *, outlast: bool = False) -> Deadline:
        """One request's deadline: ``total`` or the request timeout, whichever is shorter."""
        if outlast:
            return Deadline(total)
        limit = self.request_timeout
        if total is not None and (limit is None or total < limit):
            limit = total
        return Deadline(limit)

    def _stop(self, method: str, path: str, exc: ServerTimeout) -> None:
        """Open the breaker (when set): the server timed out once, it is not asked again."""
        if self.breaker is not None:
            self.breaker.open(f"{method} {exc}")  # the message starts with the path

    def _check_breaker(self) -> None:
        if self.breaker is not None:
            self.breaker.check()

    def _open(
        self,
        method: str,
        path: str,
        body: Any,
        timeouts: Timeouts,
        deadline: Deadline,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """Send a request and return the response with its body unread (status < 300)."""
        self._check_breaker()
        request = self._client.build_request(
            method, path, json=body, headers=headers, extensions={"timeout": timeouts}
        )
        try:
            with within(deadline):  # the connection, the request and every header byte
                resp = self._client.send(request, stream=True)
        # Unavailability is about the server, not the endpoint: no path in the message.
        except httpx.ConnectTimeout:
            raise ServerUnavailable(
                f"no connection within {seconds(timeouts['connect'])}"
            ) from None
        except httpx.ConnectError as exc:
            raise ServerUnavailable(reason(exc)) from None
        except httpx.TimeoutException as exc:
            raise ServerTimeout(
                f"{path}: no reply within {seconds(timeouts['read'])} ({type(exc).__name__})"
            ) from None
        except httpx.HTTPError as exc:
            raise ServerError(f"{path}: {type(exc).__name__}: {exc}") from None
        if 300 <= resp.status_code < 400:
            # Ollama never redirects; a proxy or another server in its place does.
            # Not followed: credentials and the request's body stay with this host.
            where = resp.headers.get("location", "")[:200]
            resp.close()
            raise ServerHTTPError(
                resp.status_code,
                f"a redirect{f' to {where}' if where else ''} (not followed: "
                "this is not an Ollama API reply; is --ollama-host the server itself?)",
                path,
            )
        if resp.status_code >= 400:
            try:
                text = error_text(
                    read_capped(resp, MAX_ERROR_BYTES, path, timeouts, deadline)
                )
            except ServerError as exc:
                text = f"(error body unreadable: {exc})"
            finally:
                resp.close()
            raise ServerHTTPError(resp.status_code, text, path)
        return resp

    def _request(
        self,
        method: str,
        path: str,
        json: Any = None,
        *,
        read_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> bytes:
        """The whole reply body of one request (at most ``MAX_REPLY_BYTES``).

        ``last_request_ns`` is then the request's own round trip on the client's
        clock (perf_counter_ns), without the accounting reads of /api/ps around it.
        """
        deadline = self._deadline()
        timeouts = self._timeouts(read_timeout, deadline)
        started = time.perf_counter_ns()
        try:
            resp = self._open(method, path, json, timeouts, deadline, headers)
            # The body must arrive within what is left of the deadline, not a fresh wait.
            timeouts["read"] = deadline.cap(self.read_timeout if read_timeout is None
                                            else read_timeout)
            try:
                return read_capped(resp, MAX_REPLY_BYTES, path, timeouts, deadline)
            finally:
                resp.close()
                self.last_request_ns = time.perf_counter_ns() - started
        except ServerTimeout as exc:
            self._stop(method, path, exc)
            raise

    def get_json(
        self,
        path: str,
        *,
        read_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        return decode_json(
            self._request("GET", path, read_timeout=read_timeout, headers=headers), path
        )

    def post_json(
        self,
        path: str,
        body: Any,
        *,
        read_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        token = self._count_before(path, body)
        raw = self._request("POST", path, json=body, read_timeout=read_timeout, headers=headers)
        elapsed = self.last_request_ns
        reply = decode_json(raw, path)
        self._count_after(token, reply)
        self.last_request_ns = elapsed  # this request's, not the accounting read's
        return reply

    # --- usage accounting (only when ``usage`` is set) ---------------------------------
    def _listed(self) -> list[dict[str, Any]] | None:
        """/api/ps's models, or None when it cannot be read (accounting never fails a probe)."""
        try:
            return model_list(self.get_json("/api/ps"), "/api/ps")
        except ServerError:
            return None

    def _count_before(self, path: str, body: Any) -> Any:
        if self.usage is None or path not in GENERATION_PATHS:
            return None
        return self.usage.before(path, body, self._listed())

    def _count_after(self, token: Any, reply: Any) -> None:
        if self.usage is None or token is None:
            return
        self.usage.after(token, reply, self._listed())
        if self.on_usage is not None:
            self.on_usage(self.usage)

    def stream(
        self,
        path: str,
        body: Any,
        *,
        first_chunk_timeout: float | None = None,
        stall_timeout: float | None = None,
        total_timeout: float | None = None,
        finished: Callable[[dict[str, Any]], bool] | None = None,
        outlast_request_timeout: bool = False,
    ) -> Iterator[StreamLine]:
        """POST ``body`` and yield the NDJSON reply line by line.

        ``first_chunk_timeout`` (default: the client's read timeout) bounds the
        wait for the reply to start; ``stall_timeout`` the gap between later
        chunks; ``total_timeout`` the whole stream, never longer than the
        client's ``request_timeout`` unless ``outlast_request_timeout`` (a pull).
        ``finished`` says which object ends the stream (default: ``done: true``);
        a stream that closes before it raises
        :class:`~claims.probes.live.ollama_api.errors.StreamError`, as do
        malformed lines, ``{"error": ...}`` lines and a generation that sends
        more lines than its ``num_predict`` allows (:func:`stream_line_bound`).
        """
        # Not a generator itself: the accounting read of /api/ps happens here, when
        # the stream is created, before a caller starts its clock on the first next().
        self._check_breaker()
        token = self._count_before(path, body)
        deadline = self._deadline(total_timeout, outlast=outlast_request_timeout)
        return self._stream(path, body, token, first_chunk_timeout, stall_timeout, deadline,
                            finished)

    def _stream(
        self,
        path: str,
        body: Any,
        token: Any,
        first_chunk_timeout: float | None,
        stall_timeout: float | None,
        deadline: Deadline,
        finished: Callable[[dict[str, Any]], bool] | None,
    ) -> Iterator[StreamLine]:
        stall = self.stall_timeout if stall_timeout is None else stall_timeout
        timeouts = self._timeouts(first_chunk_timeout, deadline)
        started = time.monotonic()
        bound = stream_line_bound(path, body)
        try:
            resp = self._open("POST", path, body, timeouts, deadline)
        except ServerTimeout as exc:
            self._stop("POST", path, exc)
            raise

        def tighten() -> None:
            # Ollama sends its headers together with the first chunk (after a cold
            # load), so the headers wait was the first-chunk wait; from here on a
            # read only has to beat the stall timeout, and never the deadline.
            timeouts["read"] = deadline.cap(stall)

        last: dict[str, Any] | None = None
        try:
            for line in read_lines(
                bounded(resp.iter_bytes(), deadline),
                path,
                stall=stall,
                finished=finished or is_done,
                started=started,
                total_timeout=deadline.seconds,
                before_read=tighten,
            ):
                if bound is not None and line.index > bound[0]:
                    raise StreamError(
                        f"stopped reading: {line.index - 1} lines without the final object "
                        f"(done: true), past the request's own bound ({bound[1]})",
                        path=path,
                        line=line.index,
                    )
                last = line.data
                yield line
        except ServerTimeout as exc:
            self._stop("POST", path, exc)
            raise
        finally:
            resp.close()
        self._count_after(token, last)


def read_capped(
    resp: httpx.Response,
    limit: int,
    path: str,
    timeouts: Timeouts,
    deadline: Deadline | None = None,
) -> bytes:
    """A reply body of at most ``limit`` bytes; a stall or a break is a :class:`ServerError`.

    The read timeout bounds each wait for bytes and also the whole body: Ollama
    sends a non-streamed reply only once it is complete, so a body still
    trickling in after that long comes from a broken or hostile server.
    """
    out = bytearray()
    budget = timeouts["read"]  # already capped by the request's deadline (Transport._timeouts)
    body_end = None if budget is None else time.monotonic() + budget
    chunks = resp.iter_bytes()
    try:
        # ``deadline`` (the request's) bounds every wait on the socket, not only each read.
        for chunk in chunks if deadline is None else bounded(chunks, deadline):
            out += chunk
            if len(out) > limit:
                raise ServerError(f"{path}: reply exceeds {limit} bytes")
            if body_end is not None and time.monotonic() > body_end:
                raise ServerTimeout(
                    f"{path}: reply body still incomplete after {seconds(budget)}"
                )
    except httpx.ReadTimeout:
        raise ServerTimeout(f"{path}: reply body stalled for {seconds(timeouts['read'])}") from None
    except httpx.HTTPError as exc:
        raise ServerError(f"{path}: reply broke off: {reason(exc)}") from None
    return bytes(out)
