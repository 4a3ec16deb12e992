"""claims.probes.live.ollama_defaults: Ollama's defaults, as the documents print them."""

from __future__ import annotations

from claims.catalog import load_catalog
from claims.probes.live.ollama_defaults import DEFAULT_HOST, DEFAULT_PORT


def _stated(claim: str, figure: str) -> str | None:
    (found,) = [f.text for f in load_catalog().get(claim).stated if f.name == figure]
    return found


def test_the_default_address_is_the_one_the_documents_state():
    # W2 and the masterclass print Ollama's default address; a default here that
    # disagrees with them would hold a server on another address to their claims.
    assert str(DEFAULT_PORT) == _stated("W2-PORT", "port")
    assert f"{DEFAULT_HOST}:{DEFAULT_PORT}" == _stated("MC-HOST-DEFAULT", "default bind")
