"""The one way the suite builds an Ollama client: the user's deadline, credentials and breaker.

Every client of a run (the ollama tier's reachability probe in
:mod:`claims.tiers`, the claim tests' session client in
:mod:`claims.plugin.ollama_fixtures`, the look at the user's server in
:mod:`claims.plugin.serve`) is made by :func:`client_for`, so all of them wait
the same way: each request ends by ``--ollama-timeout`` seconds, end to end
(:mod:`.deadline`), and none has a fixed limit of its own that would cut a slow
server short or outwait the user's deadline.
"""

from __future__ import annotations

from claims.probes.live.ollama_api.breaker import Breaker
from claims.probes.live.ollama_api.client import OllamaClient
from claims.probes.live.ollama_settings import ClientSettings

__all__ = ["CONNECT_S", "STALL_S", "client_for", "client_from"]

# The longest wait for a connection, and for the next chunk of a stream once it has
# begun (Ollama's own integration tests allow 30 s), each never past the deadline.
CONNECT_S = 5.0
STALL_S = 30.0


def client_for(
    host: str,
    timeout: float,
    *,
    auth: tuple[str, str] | None = None,
    breaker: bool | Breaker = False,
) -> OllamaClient:
    """A client of ``host`` whose every request ends within ``timeout`` seconds.

    ``timeout`` is the user's ``--ollama-timeout``: the connection, a cold load
    before the first byte and the whole reply or stream fit in it (a pull may
    outlast it, asking so itself). ``breaker``: stop asking after the first
    timeout (:mod:`.breaker`).
    """
    return OllamaClient(
        host,
        connect_timeout=min(CONNECT_S, timeout),
        read_timeout=timeout,
        stall_timeout=min(STALL_S, timeout),
        request_timeout=timeout,
        breaker=breaker,
        auth=auth,
    )


def client_from(settings: ClientSettings, *, breaker: bool | Breaker = False) -> OllamaClient:
    """:func:`client_for` the run's ``--ollama-host`` with its credentials and timeout."""
    return client_for(
        settings.ollama_host, settings.ollama_timeout, auth=settings.ollama_auth, breaker=breaker
    )
