"""Why a private ``ollama serve`` could not be used.

* :class:`ServeError` – base class; every message names the binary and, where
  the server said something, ends with the tail of its log.
* :class:`ServerExited` – the process ended before it answered (a binary that
  exits at once, a crash, a bind that failed).
* :class:`PortInUse` – the address it was told to bind is taken (the suite then
  tries another port, or says why the default-bind check cannot run).
* :class:`StartupTimeout` – it was still not answering when the timeout ran out.
"""

from __future__ import annotations

from claims.probes.errors import ProbeError

__all__ = ["PortInUse", "ServeError", "ServerExited", "StartupTimeout"]


class ServeError(ProbeError):
    """A private Ollama server could not be started, reached or stopped."""


class ServerExited(ServeError):
    """The server process ended before answering."""

    def __init__(self, message: str, *, returncode: int | None) -> None:
        super().__init__(message)
        self.returncode = returncode


class PortInUse(ServerExited):
    """The server could not bind its address: something else listens there."""


class StartupTimeout(ServeError):
    """The server did not answer GET /api/version within the startup timeout."""
