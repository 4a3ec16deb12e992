"""How a request to an Ollama server can fail, from the outside in.

Every one is a :class:`~claims.probes.errors.ServerError`, so a caller that
only wants "the server let us down" catches that; the subclasses say where:

* :class:`ServerUnavailable` - nothing answered at the address (refused, unreachable).
* :class:`ServerTimeout` - the server accepted the connection but did not answer,
  or a stream stalled, within the configured time.
* :class:`ServerHTTPError` - an HTTP error status (404 unknown model, 500...).
* :class:`StreamError` - a streamed reply broke: a line that is not JSON, an
  ``{"error": ...}`` line after the stream began, a stream that ended before
  its final ``done: true`` object, or a line or a whole stream over its size cap.
* :class:`ReplyError` - a reply that is JSON but not the shape the endpoint
  documents (a missing field, a wrong type).

A plain :class:`~claims.probes.errors.ServerError` is left for what fits none
of them: a non-streamed reply that broke off or passed its size cap, or a
``{"error": ...}`` object in place of a reply.
"""

from __future__ import annotations

from claims.probes.errors import ServerError

__all__ = [
    "ReplyError",
    "ServerHTTPError",
    "ServerStopped",
    "ServerTimeout",
    "ServerUnavailable",
    "StreamError",
]


class ServerUnavailable(ServerError):
    """Nothing answered at the address (refused, unreachable, DNS failure)."""


class ServerTimeout(ServerError):
    """The server accepted the request but did not answer (or went quiet) in time."""


class ServerStopped(ServerUnavailable):
    """Not asked at all: an earlier request to this server timed out (the breaker is open).

    A wedged server answers nothing; waiting a full timeout for each later
    request would cost one timeout per test. ``hung`` says which request hung.
    """

    def __init__(self, hung: str) -> None:
        super().__init__(f"not sent: the server stopped answering ({hung})")
        self.hung = hung


class ServerHTTPError(ServerError):
    """The server answered with an HTTP error status."""

    def __init__(self, status: int, message: str, path: str | None = None) -> None:
        where = f"{path}: " if path else ""
        super().__init__(f"{where}HTTP {status}: {message}")
        self.status = status
        self.path = path


class StreamError(ServerError):
    """A streamed reply broke; ``line`` is the 1-based NDJSON line where it did."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        parts = [p for p in (path, f"line {line}" if line is not None else None) if p]
        prefix = ", ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.path = path
        self.line = line
        self.problem = message


class ReplyError(ServerError):
    """A JSON reply that lacks a field the endpoint documents, or has the wrong type."""


# --- wording shared by the modules that raise them ---------------------------------------
def seconds(value: float | None) -> str:
    """A timeout as the messages print it ("0.3 s", or "no limit" for None)."""
    # Rounded: a wait cut to what was left of a deadline reads 1 s, not 0.999997 s.
    return "no limit" if value is None else f"{round(value, 2):g} s"


def reason(exc: Exception) -> str:
    """Why a connection failed, in one phrase (httpx's text, "connection refused" kept short)."""
    text = str(exc) or type(exc).__name__
    if "refused" in text.lower():
        return "connection refused"
    return text
