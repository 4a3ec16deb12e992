"""Which model on a server can embed: found among what it has, nothing pulled unasked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from claims.probes.live.ollama_api.errors import ServerHTTPError
from claims.probes.live.ollama_api.names import find_model

__all__ = ["EMBED_SHOW_LIMIT", "EmbeddingPick", "pick_embedding_model"]

# At most this many models are asked /api/show for their capabilities when /api/tags
# does not list them (older servers): enough for a workstation, bounded for a big store.
EMBED_SHOW_LIMIT = 20


class _Client(Protocol):
    def tags(self) -> list[dict[str, Any]]: ...
    def show(self, model: str, *, verbose: bool = False) -> dict[str, Any]: ...
    def embed(self, model: str, inputs: Any) -> dict[str, Any]: ...


@dataclass(frozen=True)
class EmbeddingPick:
    """The chosen model (None: none can embed), why, and what was seen on the way."""

    name: str | None
    why: str
    capabilities: dict[str, list[str]] = field(default_factory=dict)
    answer: str = ""

    def missing(self, wanted: str, under_test: str) -> str:
        """Why no model could be used, and what the user can do about it."""
        listed = "; ".join(f"{n}: {', '.join(c) or 'none'}" for n, c in self.capabilities.items())
        return (
            f"no embedding-capable model on this server (capabilities: {listed}); "
            f"{under_test} answered {self.answer}. Pull one ({wanted}, or pass "
            "--ollama-allow-pull) or name one with --ollama-embed-model to run it"
        )


def pick_embedding_model(
    client: _Client, wanted: str, under_test: str, *, allow_pull: bool,
    limit: int = EMBED_SHOW_LIMIT,
) -> EmbeddingPick:
    """``wanted`` if the server has it (or may pull it), else the first listed model whose
    capabilities include "embedding", else ``under_test`` if it answers /api/embed."""
    tags = client.tags()
    if find_model(tags, wanted) is not None or allow_pull:
        return EmbeddingPick(wanted, "--ollama-embed-model")
    seen: dict[str, list[str]] = {}
    for entry in tags[:limit]:
        name = str(entry.get("name") or entry.get("model"))
        caps = entry.get("capabilities")
        if not isinstance(caps, list):
            caps = client.show(name).get("capabilities") or []
        seen[name] = [str(c) for c in caps]
        if "embedding" in caps:
            return EmbeddingPick(name, f"capabilities {caps}", seen)
    try:
        client.embed(under_test, ["a"])
    except ServerHTTPError as exc:
        return EmbeddingPick(None, "none can embed", seen, str(exc))
    return EmbeddingPick(under_test, "the model under test embeds", seen)
