"""What an Ollama client needs of a run's settings: the host, its credentials, the deadline.

One protocol, read by both of its users: the client factory
(:func:`claims.probes.live.ollama_api.factory.client_from`) and the tiers' settings
(:class:`claims.tiers.TierSettings`, which extends it with what the detectors read);
:class:`claims.plugin.options.Settings` has every field. It sits outside
``ollama_api`` because that package loads httpx, and the tier table is imported by
the plugin in every pytest run (``tests/plugin/test_inert.py``): so it imports nothing.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["ClientSettings"]


class ClientSettings(Protocol):
    """The run's ``--ollama-host`` (a URL), its Basic-auth credentials if any (never
    printed), and ``--ollama-timeout`` (seconds, each request end to end)."""

    @property
    def ollama_host(self) -> str: ...
    @property
    def ollama_auth(self) -> tuple[str, str] | None: ...
    @property
    def ollama_timeout(self) -> float: ...
