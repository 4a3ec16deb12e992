"""Every figure the documents record that a transcribed fixture names: is it what was printed?

A value both stated in the catalog and transcribed from a document lives once, in
the catalog; ``fixtures/recorded/<DOC>.json`` names the figure where the document
prints it (:mod:`claims.text.references`). One test per such place judges the
figure as the run's catalog states it against the value anchored at that place in
the document: the digest the manifest kept when it was last found there
(``fixtures/recorded/MANIFEST.sha256``, written only after every value was found
at its anchor). A figure edited in the catalog, or perturbed by ``claims audit``,
no longer matches. With the documents given, the plugin also checks every value at
its anchor in the document itself.

Only figures of claims the offline tier decides are judged here (a recorded figure
is no verdict for a claim judged only live); the others are checked the same way by
tests/catalog/test_transcribed_figures.py. Comparisons that compute with recorded
figures (a rate from a time, a sum of rows) stay in each document's test modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims.catalog import Catalog, load_catalog
from claims.inputs.manifest import MANIFEST, anchored_figure_digests
from claims.text.digests import value_digest
from claims.text.references import Reference, figure_value
from claims.text.transcribed import all_figure_references
from claims.tiers import OFFLINE

pytestmark = pytest.mark.offline

ROOT = Path(__file__).resolve().parents[2]


def _places() -> list[Any]:
    """One test per place a fixture names a figure of a claim the offline tier decides."""
    catalog = load_catalog()
    return [
        pytest.param(
            doc, ref, id=f"{doc}:{ref.path}", marks=pytest.mark.claim(ref.claim, source="recorded")
        )
        for doc, ref in all_figure_references(ROOT)
        if ref.claim in catalog and OFFLINE.name in catalog.get(ref.claim).tiers
    ]


@pytest.fixture(scope="module")
def anchored_digests() -> dict[str, str]:
    return anchored_figure_digests(ROOT)


@pytest.mark.parametrize(("doc", "ref"), _places())
def test_the_recorded_figure_is_what_the_document_prints_there(
    check: Any, catalog: Catalog, anchored_digests: dict[str, str], doc: str, ref: Reference
) -> None:
    where = f"fixtures/recorded/{doc}.json {ref.path}"
    value = figure_value(catalog, ref)
    expected = anchored_digests.get(where)
    # Bytes equal: the catalog's value at this place is the one found at its anchor.
    check.measure(
        f"{ref.figure} where {doc} prints it",
        value,
        holds=expected is not None and value_digest(where, value) == expected,
        expected=f"the value anchored at {ref.path} in {doc}'s document ({MANIFEST})",
        note=f"{ref.label}, named by {where}",
    )
