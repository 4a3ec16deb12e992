"""Plain HTTP requests to a private server, where the claim is about the request itself.

The suite's client (:mod:`claims.probes.live.ollama_api`) sends no ``Origin`` and
raises on a failed reply; the server-side claims need what a browser page gets
(the status and ``Access-Control-Allow-Origin`` for an ``Origin`` header), whether
the server still answers, and a generation left in flight while its runner is
killed, whose status is the measurement. Each request has its own timeout; none
follows proxies from the environment.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

__all__ = ["ANSWER_TIMEOUT_S", "InFlight", "origin_replies", "version_status"]

# A server that is up answers /api/version at once; ten seconds is a wedged one.
ANSWER_TIMEOUT_S = 10.0
# A generation in flight may run long before it is cut; the connection is quick.
IN_FLIGHT_TIMEOUT = httpx.Timeout(600.0, connect=5.0)
# Enough of an error body to say what went wrong, never the whole of a long one.
BODY_CHARS = 300


def origin_replies(
    url: str, origins: Sequence[str], timeout: float = ANSWER_TIMEOUT_S
) -> dict[str, dict[str, Any]]:
    """For each origin, GET /api/version as a page of that origin: the HTTP status and
    the ``Access-Control-Allow-Origin`` header (None when absent)."""
    replies: dict[str, dict[str, Any]] = {}
    with httpx.Client(timeout=timeout, trust_env=False) as http:
        for origin in origins:
            reply = http.get(f"{url}/api/version", headers={"Origin": origin})
            replies[origin] = {
                "status": reply.status_code,
                "allow-origin": reply.headers.get("Access-Control-Allow-Origin"),
            }
    return replies


def version_status(url: str, timeout: float = ANSWER_TIMEOUT_S) -> int:
    """The HTTP status of GET /api/version (200: the server answers)."""
    with httpx.Client(timeout=timeout, trust_env=False) as http:
        return http.get(f"{url}/api/version").status_code


class InFlight:
    """One non-streamed POST /api/generate on a thread of its own, started at once.

    ``reply`` holds ``status`` (an int, or None when no reply came) and ``body`` (the
    first characters of the reply, or the transport error); ``done`` is set when it
    ended either way.
    """

    def __init__(self, url: str, body: Mapping[str, Any]) -> None:
        self.reply: dict[str, Any] = {}
        self.done = threading.Event()
        self._thread = threading.Thread(target=self._ask, args=(url, dict(body)), daemon=True)
        self._thread.start()

    def _ask(self, url: str, body: dict[str, Any]) -> None:
        try:
            with httpx.Client(timeout=IN_FLIGHT_TIMEOUT, trust_env=False) as http:
                got = http.post(f"{url}/api/generate", json={**body, "stream": False})
            self.reply.update(status=got.status_code, body=got.text[:BODY_CHARS])
        except httpx.HTTPError as exc:
            self.reply.update(status=None, body=f"{type(exc).__name__}: {exc}")
        finally:
            self.done.set()

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the reply."""
        self._thread.join(timeout)
