"""claims.probes.live.ollama_settings: one protocol for what an Ollama client reads of a run."""

from __future__ import annotations

from claims.probes.live.ollama_api import factory
from claims.probes.live.ollama_settings import ClientSettings
from claims.tiers import TierSettings
from tests.interpreter import modules_loaded

CLIENT_FIELDS = {"ollama_host", "ollama_auth", "ollama_timeout"}


def _declared(protocol: type) -> set[str]:
    return {name for name, value in vars(protocol).items() if isinstance(value, property)}


def test_the_client_fields_are_declared_once_and_both_users_read_them():
    assert _declared(ClientSettings) == CLIENT_FIELDS
    # The tiers extend the protocol rather than restating it...
    assert ClientSettings in TierSettings.__mro__
    assert not _declared(TierSettings) & CLIENT_FIELDS
    # ...and the client factory takes it as it is.
    assert factory.client_from.__annotations__["settings"] == "ClientSettings"
    assert factory.ClientSettings is ClientSettings
    assert "ClientSettings" not in factory.__all__


def test_the_tier_table_loads_no_http_client():
    """The plugin imports the tier table in every pytest run: httpx waits for a detector."""
    loaded = modules_loaded("import claims.tiers, claims.plugin")
    assert "claims.tiers" in loaded
    assert not loaded & {"httpx", "httpcore", "claims.probes.live.ollama_api"}
