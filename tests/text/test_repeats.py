"""One fact printed twice (claims.text.repeats): the candidates found, and every
ledger entry that sends a figure to be judged elsewhere pointing at a claim that reads it.

The bundled catalog is held to no such entry with the documents ($CLAIMS_DOCUMENTS;
skipped without them); the made-up feed of tests/text/conftest.py shows each way
an entry fails, naming it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.catalog.loader import Catalog
from claims.text.measure import Accounting, account
from claims.text.repeats import (
    LAB,
    Place,
    distinctive,
    lab_places,
    places_of,
    repeated_figures,
    same_value,
    unread_deferrals,
)

from .conftest import Toy

ROOT = Path(__file__).resolve().parents[2]

# T2 states the port its feed prints on line 4; copy.txt prints the port again.
PORT_CLAIM = """\
[[claim]]
id = "T2-PORT"
section = "Numbers"
statement = "The port is 11434."
tiers = ["offline"]
stated = [{ name = "port", value = "11434" }]
"""
PORT_ANCHOR = """\
[[anchor]]
claim = "T2-PORT"
figure = "port"
seed = "feed.txt"
line = 4
before = "and the port is "
text = "11434"
"""


def _entry(reason: str) -> str:
    return ('[[ledger]]\nseed = "copy.txt"\nline = 3\ntext = "11434"\nkind = "illustration"\n'
            f"reason = {json.dumps(reason)}\n")


def _deferrals(toy: Toy) -> list[str]:
    acc = account(toy.catalog, toy.seeds, toy.root, catalog_dir=toy.catalog_dir)
    return unread_deferrals(acc, toy.catalog.ids,
                            {c.id for c in toy.catalog if not c.testable})


def test_an_entry_naming_the_claim_that_reads_the_figure_passes(toy: Toy) -> None:
    toy.claim("T2", PORT_CLAIM, PORT_ANCHOR)
    toy.ledger("T2", _entry("the port again, judged in the feed (T2-PORT)"))
    assert _deferrals(toy) == []


def test_an_entry_naming_a_claim_that_reads_another_figure_fails(toy: Toy) -> None:
    toy.claim("T2", PORT_CLAIM, PORT_ANCHOR)
    toy.ledger("T2", _entry("the port again, judged in the feed (T2-SUM)"))
    assert _deferrals(toy) == [
        "T2.anchors.toml, ledger 1: '11434' at copy.txt line 3: T2-SUM judges no figure "
        "of this value, so it does not read it"]


def test_an_entry_sending_a_figure_elsewhere_without_a_claim_fails(toy: Toy) -> None:
    toy.ledger("T2", _entry("the port again, judged where the feed prints it"))
    (problem,) = _deferrals(toy)
    assert problem.startswith("T2.anchors.toml, ledger 1: '11434' at copy.txt line 3: ")
    assert "names no claim" in problem


def test_an_entry_naming_an_unknown_claim_fails(toy: Toy) -> None:
    toy.ledger("T2", _entry("the port again, judged in the feed (T2-PORTS)"))
    (problem,) = _deferrals(toy)
    assert "T2-PORTS, not a claim of the catalog" in problem


def test_an_entry_that_sends_nothing_elsewhere_is_not_asked_for_a_claim(toy: Toy) -> None:
    toy.ledger("T2", _entry("the port the reader's client calls, a setting"))
    assert _deferrals(toy) == []


def test_distinctive_figures() -> None:
    assert all(map(distinctive, ["aa8e725", "580.159.03", "6,171,877,376", "0.31.2",
                                 "121Gi", "3.97", "sha256:fd7b"]))
    assert not any(map(distinctive, ["2", "13", "3B", "v1", "64"]))


def test_same_value() -> None:
    assert same_value("aa8e725", "aa8e72537993ba99e69dfaafa59ed015b17504d1")
    assert same_value("6,171,877,376", "6171877376")
    assert same_value("20", "20-core") and same_value("4,096", "4096-token")
    assert not same_value("aa8e726", "aa8e72537993ba99e69dfaafa59ed015b17504d1")
    assert not same_value("121", "12") and not same_value("GB10", "GB100")


def test_repeats_join_documents_and_short_digests() -> None:
    places = [
        Place("W4", "s", 1, "aa8e72537993ba99e69dfaafa59ed015b17504d1"),
        Place("W3", "s", 9, "aa8e725"),
        Place("W1", "s", 2, "580.159.03"),
        Place("W1", "s", 3, "580.159.03"),  # one document twice: not a repeat
        Place(LAB, "week-01/report.md", 4, "172.57"),
        Place("W1", "s", 5, "172.57"),
        Place(LAB, "a.md", 1, "999.9"),
        Place(LAB, "b.md", 1, "999.9"),  # lab files only: no document prints it
    ]
    found = {r.key: r.documents for r in repeated_figures(places)}
    # The documents a repeat spans, in order: Week 3's place, then Week 4's (two weeks
    # that print one fact, not a list of the series' documents).
    w3 = "W3"
    w4 = "W4"
    assert found == {"aa8e72537993ba99e69dfaafa59ed015b17504d1": [w3, w4],
                     "172.57": ["W1", LAB]}


def test_lab_places_skip_a_documents_own_files(tmp_path: Path) -> None:
    (tmp_path / "week").mkdir()
    (tmp_path / "week" / "notes.md").write_text("driver 580.159.03\n", "utf-8")
    (tmp_path / "week" / "own.md").write_text("size 4096\n", "utf-8")
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe 12345")
    assert lab_places(tmp_path, skip=["week/own.md"]) == [
        Place(LAB, "week/notes.md", 1, "580.159.03")]


@pytest.fixture(scope="module")
def series() -> tuple[Catalog, Accounting]:
    documents = os.environ.get("CLAIMS_DOCUMENTS")
    if not documents:
        pytest.skip("no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")
    catalog = load_catalog()
    return catalog, account(catalog, Path(documents), ROOT)


def test_every_entry_sending_a_figure_elsewhere_names_a_claim_reading_it(
        series: tuple[Catalog, Accounting]) -> None:
    catalog, acc = series
    problems = unread_deferrals(acc, catalog.ids, {c.id for c in catalog if not c.testable})
    assert not problems, (
        "ledger entries say a figure is judged elsewhere, but no claim they name reads it "
        "there: name the claim that does, or judge the figure with a claim:\n"
        + "\n".join(problems))


def test_the_revision_two_weeks_print_is_one_judged_fact(
        series: tuple[Catalog, Accounting]) -> None:
    """The known repeat (issue 52): Week 3's short commit and Week 4's pinned revision
    are found as one figure, and each place is judged, Week 4's by the claim reading
    Week 3's figure."""
    _, acc = series
    (revision,) = [r for r in repeated_figures(places_of(acc)) if r.key.startswith("aa8e725")]
    first = "W3"  # the week that pins it
    then = "W4"  # the week that takes it from there
    assert revision.documents == [first, then]
    by_line = {(p.document, p.line): (p.status, p.by) for p in revision.places}
    assert by_line[("W3", 831)] == ("judged", "W3-RESULTS-TABLE")
    assert by_line[("W4", 242)] == ("judged", "W4-REVISION-IS-WEEK3S")
