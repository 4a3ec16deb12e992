"""Plain requests to one Ollama server: explicit timeouts, capped replies, clear errors.

Every request has explicit connect and read timeouts, and every reply is read
with a size cap, so a broken or hostile server ends a probe with one
:class:`~claims.probes.errors.ServerError` (see
:mod:`claims.probes.live.ollama_api.errors`) instead of a hang or unbounded memory.
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
from claims.probes.live.ollama_api.errors import (
    ServerHTTPError,
    ServerTimeout,
    ServerUnavailable,
    reason,
    seconds,
)
from claims.probes.live.ollama_api.payloads import decode_json, error_text, model_list
from claims.probes.live.ollama_api.stream import StreamLine, is_done, read_lines
from claims.probes.live.ollama_api.usage import GENERATION_PATHS, Usage

__all__ = ["DEFAULT_STALL_TIMEOUT", "MAX_REPLY_BYTES", "Transport"]

# Embeddings of a batch, the largest non-streamed replies, stay far below this.
MAX_REPLY_BYTES = 32 * 1024 * 1024
MAX_ERROR_BYTES = 64 * 1024
DEFAULT_STALL_TIMEOUT = 30.0  # seconds between two chunks, as Ollama's own integration tests

Timeouts = dict[str, float | None]


class Transport:
    """The connection to one Ollama server and its plain requests.

    ``read_timeout`` bounds the wait for a reply's first bytes (a cold model
    load happens inside that wait); ``stall_timeout`` bounds the silence
    between two chunks of a stream once it has begun.
    """

    def __init__(
        self,
        host: str,
        *,
        connect_timeout: float = 5.0,
        read_timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        stall_timeout: float | None = None,
    ) -> None:
        self.host = host.rstrip("/")
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
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
        self._client = httpx.Client(base_url=self.host, timeout=self.timeout, transport=transport)
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

    # --- requests -----------------------------------------------------------------------
    def _timeouts(self, read: float | None) -> Timeouts:
        # httpx's documented "timeout" request extension; we keep a reference to
        # the dict so a stream can tighten its read timeout once the headers are in.
        return {
            "connect": self.connect_timeout,
            "read": self.read_timeout if read is None else read,
            "write": self.connect_timeout,
            "pool": self.connect_timeout,
        }

    def _open(
        self,
        method: str,
        path: str,
        body: Any,
        timeouts: Timeouts,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """Send a request and return the response with its body unread (status < 400)."""
        request = self._client.build_request(
            method, path, json=body, headers=headers, extensions={"timeout": timeouts}
        )
        try:
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
        if resp.status_code >= 400:
            try:
                text = error_text(read_capped(resp, MAX_ERROR_BYTES, path, timeouts))
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
        timeouts = self._timeouts(read_timeout)
        started = time.perf_counter_ns()
        resp = self._open(method, path, json, timeouts, headers)
        try:
            return read_capped(resp, MAX_REPLY_BYTES, path, timeouts)
        finally:
            resp.close()
            self.last_request_ns = time.perf_counter_ns() - started

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
    ) -> Iterator[StreamLine]:
        """POST ``body`` and yield the NDJSON reply line by line.

        ``first_chunk_timeout`` (default: the client's read timeout) bounds the
        wait for the reply to start; ``stall_timeout`` the gap between later
        chunks; ``total_timeout`` the whole stream. ``finished`` says which
        object ends the stream (default: ``done: true``); a stream that closes
        before it raises :class:`~claims.probes.live.ollama_api.errors.StreamError`,
        as do malformed lines and ``{"error": ...}`` lines.
        """
        # Not a generator itself: the accounting read of /api/ps happens here, when
        # the stream is created, before a caller starts its clock on the first next().
        token = self._count_before(path, body)
        return self._stream(
            path, body, token, first_chunk_timeout, stall_timeout, total_timeout, finished
        )

    def _stream(
        self,
        path: str,
        body: Any,
        token: Any,
        first_chunk_timeout: float | None,
        stall_timeout: float | None,
        total_timeout: float | None,
        finished: Callable[[dict[str, Any]], bool] | None,
    ) -> Iterator[StreamLine]:
        stall = self.stall_timeout if stall_timeout is None else stall_timeout
        timeouts = self._timeouts(first_chunk_timeout)
        started = time.monotonic()
        resp = self._open("POST", path, body, timeouts)
        # Ollama sends its headers together with the first chunk (after a cold
        # load), so the headers wait was the first-chunk wait; from here on a
        # read only has to beat the stall timeout.
        timeouts["read"] = stall
        last: dict[str, Any] | None = None
        try:
            for line in read_lines(
                resp.iter_bytes(),
                path,
                stall=stall,
                finished=finished or is_done,
                started=started,
                total_timeout=total_timeout,
            ):
                last = line.data
                yield line
        finally:
            resp.close()
        self._count_after(token, last)


def read_capped(resp: httpx.Response, limit: int, path: str, timeouts: Timeouts) -> bytes:
    """A reply body of at most ``limit`` bytes; a stall or a break is a :class:`ServerError`.

    The read timeout bounds each wait for bytes and also the whole body: Ollama
    sends a non-streamed reply only once it is complete, so a body still
    trickling in after that long comes from a broken or hostile server.
    """
    out = bytearray()
    budget = timeouts["read"]
    deadline = None if budget is None else time.monotonic() + budget
    try:
        for chunk in resp.iter_bytes():
            out += chunk
            if len(out) > limit:
                raise ServerError(f"{path}: reply exceeds {limit} bytes")
            if deadline is not None and time.monotonic() > deadline:
                raise ServerTimeout(
                    f"{path}: reply body still incomplete after {seconds(budget)}"
                )
    except httpx.ReadTimeout:
        raise ServerTimeout(f"{path}: reply body stalled for {seconds(timeouts['read'])}") from None
    except httpx.HTTPError as exc:
        raise ServerError(f"{path}: reply broke off: {reason(exc)}") from None
    return bytes(out)
