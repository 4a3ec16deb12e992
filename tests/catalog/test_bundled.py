"""The bundled catalog: loads cleanly, covers all five documents, reads honestly."""

from __future__ import annotations

import pytest

from claims.catalog import load_catalog
from claims.tiers import TIERS


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_all_five_documents_are_catalogued(catalog):
    assert [d.id for d in catalog.documents] == ["W1", "W2", "W3", "W4", "MC"]
    assert all(doc.claims for doc in catalog.documents)


def test_claims_are_stated_and_cited(catalog):
    for claim in catalog:
        assert claim.statement.strip().endswith((".", ")", "”", '"')), claim.id
        assert claim.section, claim.id
        assert set(claim.tiers) <= set(TIERS.names()), claim.id


def test_errata_explain_themselves(catalog):
    for claim in catalog:
        if claim.erratum:
            assert len(claim.erratum.explanation) > 20, claim.id


def test_untestable_claims_say_why(catalog):
    for claim in catalog:
        if not claim.testable:
            assert claim.untestable_reason and len(claim.untestable_reason) > 10, claim.id
