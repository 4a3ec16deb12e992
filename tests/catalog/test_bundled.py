"""The bundled catalog: loads cleanly, one document per file in series order, reads honestly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.tiers import TIERS


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_every_catalog_file_is_a_document_in_series_order(catalog):
    """Each claims/catalog/<ID>.toml is one document, named by its file; they come in the
    series' order (by publication date, the undated last) and each states claims."""
    folder = Path(__file__).resolve().parents[2] / "claims" / "catalog"
    files = {p.name.removesuffix(".toml") for p in folder.glob("*.toml")
             if not p.name.endswith(".anchors.toml")}
    assert {d.id for d in catalog.documents} == files
    dates = [d.published for d in catalog.documents]
    dated = [p for p in dates if p is not None]
    assert dated == sorted(dated) and dates == dated + [None] * (len(dates) - len(dated))
    assert dated, "the series has dated documents"
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



def test_every_copied_lab_file_is_one_a_document_lists(catalog):
    """A lab file is copied because a document relies on it: upstream.json's every entry
    lies in some document's lab list (the documents a changed byte fails)."""
    from claims.catalog.loader import covers

    lab = Path(__file__).resolve().parents[2] / "fixtures" / "lab"
    files = json.loads((lab / "upstream.json").read_text("utf-8"))["files"]
    for rel in files:
        assert any(covers(p, rel) for d in catalog.documents for p in d.lab), rel
