"""MC claims about particular models, checked on the models a live server already has
(the ollama tier): which families call tools, how wide nomic-embed-text's vectors are.
Nothing is pulled: a model the server lacks leaves the claim not run."""

from __future__ import annotations

from typing import Any

import pytest

from claims.testkit import not_run

pytestmark = pytest.mark.ollama

EMBED_MODEL = "nomic-embed-text"


def _names(live: Any) -> list[str]:
    return [str(e.get("name") or e.get("model")) for e in live.client.tags()]


def _family_of(name: str, families: tuple[str, ...]) -> str | None:
    """The stated family a model name belongs to ("qwen2.5:7b" -> "qwen2.5"), or None."""
    base = name.split("/")[-1].split(":")[0].lower()
    for family in families:
        if base == family or base.startswith(family + "-"):
            return family
    return None


@pytest.mark.claim("MC-TOOL-MODELS")
def test_named_families_report_the_tools_capability(live, check, catalog):
    families = catalog.get("MC-TOOL-MODELS").figure("families").values
    installed = [(n, f) for n in _names(live) if (f := _family_of(n, families)) is not None]
    if not installed:
        not_run(f"none of the named families ({', '.join(families)}) is installed on the "
                "server; pull one to check it (the suite pulls nothing)")
    for name, family in installed:
        caps = live.client.show(name).get("capabilities") or []
        check.measure(f"{name} ({family}) capabilities", caps, holds="tools" in caps,
                      expected="include tools")
    checked = sorted({f for _, f in installed})
    if set(checked) == set(families):
        check.against("families", checked, unordered=True)
    else:
        check.observe("families checked", checked, note="the others are not installed here")


@pytest.mark.claim("MC-EMBED-DIMS")
def test_nomic_embed_text_vector_width(live, check):
    name = next((n for n in _names(live) if n.split(":")[0] == EMBED_MODEL), None)
    if name is None:
        not_run(f"{EMBED_MODEL} is not on the server; pull it there (ollama pull {EMBED_MODEL}) "
                "to check it (the suite pulls nothing)")
    info = live.client.show(name).get("model_info") or {}
    widths = {k: v for k, v in info.items() if k.endswith(".embedding_length")}
    check.observe("embedding_length in /api/show", widths)
    vector = live.client.embed(name, "a short passage to embed")["embeddings"][0]
    check.against("nomic-embed-text dimensions", len(vector), model=name,
                  note="length of the vector /api/embed returned")
    check.not_judged("another embedding model's width", "an example width of no named model")
    check.not_judged("generative hidden size", "Llama 3 8B's hidden size, a property of that "
                     "model's configuration (hub tier), not of an embedding model on this server")
    for key, width in widths.items():
        check.measure(f"{key} vs the vector's length", width, holds=width == len(vector),
                      expected=str(len(vector)))
