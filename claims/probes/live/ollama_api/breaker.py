"""The circuit breaker: once a request to a server timed out, no later request waits on it.

A wedged server (a runner stuck in a load, a process stopped) accepts the
connection and answers nothing; every request would wait out its own timeout,
one per test. The breaker opens at the first timeout, and every later request
of each client that shares it fails at once with
:class:`~claims.probes.live.ollama_api.errors.ServerStopped`, naming the request
that hung.

The breaker is per process: its state is this object's, in this Python process.
Clients of one process share it by being handed the same :class:`Breaker` (the
session client's siblings, a private server's clients); a pytest-xdist worker is
a process of its own, so each worker pays one timeout of a hung server before it
stops asking, and ``-n 4`` against a wedged server costs four.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from claims.probes.live.ollama_api.errors import ServerStopped

__all__ = ["Breaker"]


class Breaker:
    """Open once a request timed out; then every request of the clients sharing it stops.

    ``stopped`` says which request hung (None while closed); ``on_stop`` is told
    once, by the request that opened it. Safe to share between threads: the
    concurrency probe's streams each run on a thread and a connection of their own.
    """

    def __init__(self) -> None:
        self.stopped: str | None = None
        self.on_stop: Callable[[str], None] | None = None
        self._lock = threading.Lock()

    def open(self, hung: str) -> None:
        """The server did not answer ``hung`` in time: stop asking it (the first call wins)."""
        with self._lock:
            if self.stopped is not None:
                return
            self.stopped = hung
        if self.on_stop is not None:
            self.on_stop(hung)

    def check(self) -> None:
        """Raise ServerStopped if the breaker is open: the request is not sent."""
        if self.stopped is not None:
            raise ServerStopped(self.stopped)
