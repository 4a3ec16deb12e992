"""The bundled catalog: loads cleanly, covers all five documents, reads honestly."""

from __future__ import annotations

import json
from pathlib import Path

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


def test_each_lab_path_is_a_bundled_file_or_folder(catalog):
    lab = Path(__file__).resolve().parents[2] / "fixtures" / "lab"
    for doc in catalog.documents:
        for path in (*doc.lab, *doc.text):
            assert (lab / path).exists(), f"{doc.id}: fixtures/lab/{path} is not there"
        for path in doc.text:
            assert (lab / path).is_file(), f"{doc.id}: text {path} is not a file"


def test_lab_lists_name_the_documents_upstream_json_names(catalog):
    """Each lab file's documents in fixtures/lab/upstream.json are those whose lab covers it."""
    from claims.catalog.loader import covers

    lab = Path(__file__).resolve().parents[2] / "fixtures" / "lab"
    files = json.loads((lab / "upstream.json").read_text("utf-8"))["files"]
    for rel, entry in files.items():
        relying = [d.id for d in catalog.documents if any(covers(p, rel) for p in d.lab)]
        assert relying == entry["documents"], rel
