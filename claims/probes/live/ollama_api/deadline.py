"""One request's deadline, enforced at every wait on the socket.

httpx (through httpcore) applies its read timeout to each ``recv`` on its own:
a server that sends its headers one byte a second, or an endless series of
``HTTP/1.1 102 Processing`` interim responses, never lets one wait reach the
timeout, and the request never ends. The deadline here is the request's end on
:func:`time.monotonic`: :class:`DeadlineBackend` wraps httpcore's socket backend
so that every connect, read and write waits at most until that end, and past it
fails with httpcore's own timeout error (which httpx raises as its
``ConnectTimeout`` / ``ReadTimeout`` / ``WriteTimeout``).

Which deadline applies is per call, not per connection: :func:`within` sets it in a
context variable for the duration of one blocking step (sending a request and
reading its headers, reading one chunk of its body), so connections reused from
the pool and threads of their own (the concurrency probe) each see their own.
"""

from __future__ import annotations

import contextlib
import ssl
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar

import httpcore

__all__ = ["Deadline", "DeadlineBackend", "bounded", "install", "within"]

T = TypeVar("T")

# The monotonic end of the request whose step runs now in this context (None: no deadline).
_END: ContextVar[float | None] = ContextVar("claims_request_deadline", default=None)
# Never quite zero: a zero timeout is "do not wait" on some of httpcore's paths.
_MIN_WAIT_S = 0.001


class Deadline:
    """The end of one request's time (:func:`time.monotonic`), or none (``seconds`` None)."""

    def __init__(self, seconds_: float | None) -> None:
        self.seconds = seconds_
        self.end = None if seconds_ is None else time.monotonic() + seconds_

    def left(self) -> float | None:
        """Seconds left (None: no deadline; 0 once it has passed)."""
        return None if self.end is None else max(self.end - time.monotonic(), 0.0)

    def passed(self) -> bool:
        return self.end is not None and time.monotonic() >= self.end

    def cap(self, value: float | None) -> float | None:
        """``value`` or the time left, whichever is shorter (never quite zero)."""
        left = self.left()
        if left is None:
            return value
        left = max(left, _MIN_WAIT_S)
        return left if value is None else min(value, left)


@contextlib.contextmanager
def within(deadline: Deadline) -> Iterator[None]:
    """Every socket wait of this context, while the block runs, ends by ``deadline``."""
    token = _END.set(deadline.end)
    try:
        yield
    finally:
        _END.reset(token)


def bounded(items: Iterable[T], deadline: Deadline) -> Iterator[T]:
    """``items`` with each step (each ``next``) run :func:`within` ``deadline``.

    The deadline is set and reset around each step, never across a ``yield``:
    the caller's own requests between two chunks keep their own deadlines.
    """
    it = iter(items)
    while True:
        with within(deadline):
            try:
                item = next(it)
            except StopIteration:
                return
        yield item


def _wait(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` capped by the current deadline; ``error`` if that has passed."""
    end = _END.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request's deadline has passed")
    left = max(left, _MIN_WAIT_S)
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A socket stream whose every wait ends by the current request's deadline."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _wait(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _wait(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        wrapped = self._inner.start_tls(
            ssl_context, server_hostname, _wait(timeout, httpcore.ConnectTimeout)
        )
        return _DeadlineStream(wrapped)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's network backend with the current request's deadline on every wait."""

    def __init__(self, inner: httpcore.NetworkBackend | None = None) -> None:
        self._inner = inner if inner is not None else httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(
            host,
            port,
            _wait(timeout, httpcore.ConnectTimeout),
            local_address=local_address,
            socket_options=socket_options,
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(
            path, _wait(timeout, httpcore.ConnectTimeout), socket_options=socket_options
        )
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install(transport: Any) -> None:
    """Put :class:`DeadlineBackend` under an ``httpx.HTTPTransport``'s connection pool.

    httpx has no parameter for httpcore's network backend, so the pool's is
    wrapped in place; an httpx whose pool has none fails here, loudly, rather
    than leaving requests unbounded (tests/probes/live/test_ollama_stalls.py).
    """
    pool: Any = getattr(transport, "_pool", None)
    inner = getattr(pool, "_network_backend", None)
    if pool is None or not isinstance(inner, httpcore.NetworkBackend):
        raise RuntimeError(
            "this httpx/httpcore has no network backend to bound; the Ollama client "
            "needs httpx's HTTPTransport over httpcore's ConnectionPool"
        )
    if not isinstance(inner, DeadlineBackend):
        pool._network_backend = DeadlineBackend(inner)
