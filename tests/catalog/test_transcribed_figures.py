"""A figure's number is typed once: in the catalog, or in a transcribed fixture, never both.

The catalog states what the documents state; ``fixtures/recorded/<DOC>.json``
transcribes what they print, anchored to where they print it. A value in both is
named by the fixture (:mod:`claims.text.references`), not copied. This scan
fails on any number of three or more digits, or text of four or more characters,
that a catalog figure states and a fixture types out, unless listed below with the
reason the two are different things that happen to read alike. Shorter values
(2, 18, "user") recur by chance too often to tell apart by value; the references
are what ties them. Across documents only long values count (a digest, a byte
count): 2048 or Q4_K_M in two write-ups are two facts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import Catalog, load_catalog
from claims.inputs.manifest import anchored_figure_digests
from claims.text.digests import value_digest
from claims.text.references import REFERENCE_KEY, figure_value
from claims.text.transcribed import all_figure_references, leaves, transcribed_documents
from claims.tiers import OFFLINE

ROOT = Path(__file__).resolve().parents[2]

# (document, fixture path): why the value equals a catalog figure's by coincidence.
DIFFERENT_THINGS = {
    ("W2", "chat_exchanges.with_history.messages[1].role"): "a message role, not the token 882",
    ("W2", "chat_exchanges.with_history.messages[3].role"): "a message role, not the token 882",
    ("W2", "chat_exchanges.without_history.messages[1].role"): "a message role, not token 882",
    ("W2", "chat_exchanges.with_history.messages[2].role"): "a message role, not the token 78191",
    ("W2", "chat_exchanges.with_history.reply.role"): "a message role, not the token 78191",
    ("W2", "chat_exchanges.without_history.reply.role"): "a message role, not the token 78191",
    ("W2", "chat_exchanges.with_history.messages[2].content"): (
        "the earlier answer the request sends back as history, not the reply the claim states"
    ),
    ("MC", "kv_table.rows[0].num_ctx"): "a row of the KV table, not the default num_ctx",
    ("MC", "kv_table.rows[2].num_ctx"): "a row of the KV table (2.4), not Q13's context",
    ("MC", "tool_call_example.reply.message.role"): "the tool-call example's role",
    ("MC", "chat_example.request.options.num_ctx"): (
        "the chat example's context setting, not Q19's long context or Q41's hidden size"
    ),
    # llama3.2:3b as a model a listing, a file or a request names, not MC's recommendation.
    ("W2", "ollama_list.rows[1].name"): "a model in W2's ollama list, not MC's code chat pick",
    ("W4", "q4_file.model"): "the model whose file W4 measures, not MC's code chat pick",
    ("MC", "chat_example.request.model"): "the model the chat example asks, not the RAG pick",
    ("MC", "chat_example.reply.model"): "the model the chat example's reply names",
}
_DIGITS = re.compile(r"\d")


def distinctive(text: str) -> bool:
    """A value too particular to equal another by chance: 3+ digits, or 4+ characters."""
    if re.fullmatch(r"[-+]?[\d,]*\.?\d+", text):
        return len(_DIGITS.findall(text)) >= 3
    return len(text) >= 4


# Across documents, a value this long is one fact typed twice, not two facts alike.
LONG = 8


def _catalog_values(catalog: Catalog) -> dict[str, list[tuple[str, str]]]:
    """Each distinctive printed value the catalog states (separators dropped) -> the
    documents and figures stating it."""
    out: dict[str, list[tuple[str, str]]] = {}
    for doc in catalog.documents:
        for claim in doc.claims:
            for fig in claim.stated:
                for text in (fig.text, fig.low, fig.high, *fig.values):
                    if text is not None and distinctive(text):
                        out.setdefault(text.replace(",", ""), []).append(
                            (doc.id, f"{claim.id} '{fig.name}'")
                        )
    return out


def _copies(data: Any) -> Any:
    """The fixture with its figure references left out: what it types itself."""
    if isinstance(data, dict):
        if REFERENCE_KEY in data:
            return None
        return {k: _copies(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_copies(v) for v in data]
    return data


def typed_twice(
    catalog: Catalog, fixtures: Iterable[tuple[str, Any]]
) -> Iterator[tuple[str, str, str]]:
    """(document, fixture path, the catalog figures) for every value typed in both."""
    stated = _catalog_values(catalog)
    for doc, data in fixtures:
        for path, value in leaves(_copies(data)):
            text = str(value).replace(",", "")
            if (doc, path) in DIFFERENT_THINGS or not distinctive(text):
                continue
            figures = [
                figure for where, figure in stated.get(text, [])
                if where == doc or len(text) >= LONG
            ]
            if figures:
                yield doc, path, ", ".join(figures)


def _raw_fixtures() -> list[tuple[str, Any]]:
    return [
        (doc, json.loads((ROOT / "fixtures" / "recorded" / f"{doc}.json").read_text("utf-8")))
        for doc in transcribed_documents(ROOT)
    ]


def test_no_number_is_typed_both_in_the_catalog_and_in_a_fixture() -> None:
    found = [f"{doc}.json {path}: also {figs}" for doc, path, figs in
             typed_twice(load_catalog(), _raw_fixtures())]
    assert not found, "name the catalog figure instead ({\"$figure\": ...}):\n" + "\n".join(found)


def test_the_scan_finds_a_planted_copy() -> None:
    planted = [
        ("W1", {"benchmark": {
            "cpu_ms": "172.57", "n": {"$figure": "W1-MATMUL-FLOPS/matrix size"}
        }}),
        ("W3", {"total": 6171877376, "heads": "16"}),  # 16 heads: too short to tell
    ]
    assert list(typed_twice(load_catalog(), planted)) == [
        ("W1", "benchmark.cpu_ms", "W1-RECORDED-ARITH 'CPU time'"),
        ("W3", "total", "W3-INDEX-TOTAL 'total_size', W3-RESULTS-TABLE 'tensor bytes', "
         "W4-QWEN-EXACT 'weight bytes', W4-INDEX-IS-PAYLOAD 'total_size', "
         "W4-QWEN-FIGURES-ARE-WEEK3S 'index total'"),
    ]


def test_every_listed_coincidence_is_still_in_its_fixture() -> None:
    paths = {(doc, path) for doc, data in _raw_fixtures() for path, _ in leaves(data)}
    assert set(DIFFERENT_THINGS) <= paths, sorted(set(DIFFERENT_THINGS) - paths)


def test_figures_of_claims_judged_only_live_are_as_anchored_too() -> None:
    """tests/claims/test_recorded_figures.py judges the named figures of offline claims;
    a claim judged only live gets no offline verdict, but its figure must still be the
    value anchored in its document."""
    catalog = load_catalog()
    digests = anchored_figure_digests(ROOT)
    live_only = [
        (doc, ref) for doc, ref in all_figure_references(ROOT)
        if OFFLINE.name not in catalog.get(ref.claim).tiers
    ]
    assert live_only
    edited = [
        f"{doc}.json {ref.path} ({ref.label})"
        for doc, ref in live_only
        if digests.get(f"fixtures/recorded/{doc}.json {ref.path}")
        != value_digest(f"fixtures/recorded/{doc}.json {ref.path}", figure_value(catalog, ref))
    ]
    assert not edited, f"not the value anchored in the document: {edited}"


def test_a_reference_with_the_place_s_unit_resolves_a_slipped_unit_to_another_value() -> None:
    """A manifest prints a layer's size as a bare number of bytes: the reference says so
    ("unit": "B"), so a figure whose unit slipped (275 KB for 275 B) resolves to 275,000
    and no longer matches the digest anchored where the document prints 275."""
    import dataclasses

    from claims.catalog import CatalogError
    from claims.text.references import Reference

    catalog = load_catalog()
    ref = Reference("manifest.layers[1].size", "W2-MANIFEST-LAYERS", "template layer size",
                    as_type="int", unit="B")
    assert figure_value(catalog, ref) == 275
    claim = catalog.get("W2-MANIFEST-LAYERS")
    slipped = dataclasses.replace(claim.figure("template layer size"), unit="KB")
    doc = catalog.document("W2")
    edited = dataclasses.replace(
        catalog, documents=tuple(
            dataclasses.replace(d, claims=tuple(
                dataclasses.replace(c, stated=tuple(slipped if f.name == slipped.name else f
                                                    for f in c.stated))
                if c.id == claim.id else c for c in d.claims)) if d is doc else d
            for d in catalog.documents))
    assert figure_value(edited, ref) == 275_000
    bare = dataclasses.replace(ref, unit=None)
    assert figure_value(edited, bare) == 275  # without the place's unit, the slip is unseen
    with pytest.raises(CatalogError, match="cannot convert"):
        figure_value(catalog, dataclasses.replace(ref, unit="ms"))
