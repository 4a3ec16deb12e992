"""Every printed figure accounted for (claims.text.measure, .sources, .ledger)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from claims.text.ledger import LedgerError
from claims.text.measure import Accounting, account
from claims.text.reads import ReadsError
from claims.text.sources import SourceError
from claims.text.text_report import format_table
from tests.text.conftest import UNTESTABLE_ANCHOR, UNTESTABLE_CLAIM, Toy


def run(toy: Toy) -> Accounting:
    return account(toy.catalog, toy.seeds, toy.root, catalog_dir=toy.catalog_dir)


def statuses(acc: Accounting, doc: str) -> dict[tuple[str, int, str], str]:
    d = next(d for d in acc.documents if d.document.id == doc)
    return {(f.at.source, f.at.line, f.at.text): f.status for f in d.figures}


def test_a_shared_seed_is_split_at_the_titles_and_each_figure_has_a_status(toy: Toy) -> None:
    acc = run(toy)
    t2 = statuses(acc, "T2")
    assert t2[("feed.txt", 4, "4.0")] == "judged"
    assert t2[("feed.txt", 6, "42")] == "recorded"
    assert t2[("feed.txt", 4, "11434")] == "unaccounted"
    # The copy seed is T2's alone; the feed's lines after "Post Three" are T3's.
    assert ("copy.txt", 2, "4.0") in t2
    assert not any(line >= 7 for (src, line, _) in t2 if src == "feed.txt")
    t3 = statuses(acc, "T3")
    assert t3 == {("feed.txt", 8, "7"): "judged", ("feed.txt", 8, "12"): "unaccounted"}
    assert acc.problems == []
    data = json.loads(acc.dumps())
    assert data["totals"]["printed"] == len(t2) + len(t3)
    one = data["documents"][0]
    assert set(one) >= {"printed", "judged", "recorded", "excluded", "unaccounted", "percent"}
    fig = next(f for f in data["figures"] if f["status"] == "judged")
    assert {"document": "T2", "file": "feed.txt", "line": 4, "text": "4.0",
            "claim": "T2-SUM"}.items() <= fig.items()


def test_ledger_entries_exclude_a_figure_a_line_a_block_and_a_copy(toy: Toy) -> None:
    toy.ledger("T2", """\
[[ledger]]
seed = "feed.txt"
line = 3
kind = "structure"
reason = "the series' numbering and the post's date"

[[ledger]]
seed = "feed.txt"
lines = [4, 5]
kind = "command"
reason = "the port and context the reader passes to the commands"

[[ledger]]
seed = "feed.txt"
line = 6
text = "1.5"
kind = "incidental"
reason = "one run's duration, which no statement rests on"

[[ledger]]
seed = "copy.txt"
lines = [2, 3]
kind = "copy"
reason = "the copy repeats the post's text, accounted for there"
of = { seed = "feed.txt", lines = [4, 4] }
""")
    toy.ledger("T3", """\
[[ledger]]
text = "12"
kind = "illustration"
reason = "a made-up time in an example"
""")
    acc = run(toy)
    t2 = statuses(acc, "T2")
    assert t2[("feed.txt", 4, "4.0")] == "judged"  # an anchor outranks a block around it
    assert t2[("feed.txt", 4, "11434")] == "excluded"
    assert t2[("feed.txt", 6, "1.5")] == "excluded"
    assert t2[("copy.txt", 3, "11434")] == "excluded"
    assert "unaccounted" not in {s for k, s in t2.items() if k[0] == "feed.txt"}
    assert statuses(acc, "T3")[("feed.txt", 8, "12")] == "excluded"
    fig = next(f for f in acc.figures if f.at.text == "1.5")
    assert fig.to_json()["reason"] == "one run's duration, which no statement rests on"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('seed = "feed.txt"\nline = 3\nkind = "structure"\n',
         "T2.anchors.toml, ledger 1: reason must say why"),
        ('seed = "feed.txt"\nline = 3\nkind = "structure"\nreason = "not interesting"\n',
         "ledger 1: reason must say why"),
        ('seed = "feed.txt"\nline = 3\nkind = "boring"\nreason = "x y"\n',
         "ledger 1: kind must be one of"),
        ('seed = "feed.txt"\nline = 1\nkind = "structure"\nreason = "a header"\n',
         "ledger 1: covers nothing"),
        ('seed = "feed.txt"\nline = 4\ntext = "4.0"\nkind = "name"\nreason = "a name"\n',
         "ledger 1: overlaps an anchor: seed feed.txt line 4 '4.0' is judged (T2-SUM)"),
        ('seed = "feed.txt"\nline = 6\ntext = "42"\nkind = "name"\nreason = "a name"\n',
         "overlaps an anchor"),
        ('seed = "feed.txt"\nline = 8\nkind = "structure"\nreason = "T3 text"\n',
         "ledger 1: seed feed.txt line 8 is not T2's text (it is T3's)"),
        ('seed = "other.txt"\nline = 1\nkind = "structure"\nreason = "elsewhere"\n',
         "ledger 1: seed other.txt is not one of T2's texts"),
        ('seed = "feed.txt"\nline = 99\nkind = "structure"\nreason = "past the end"\n',
         "ledger 1: seed feed.txt has 8 lines, not 99"),
        ('kind = "structure"\nreason = "no scope"\n', "ledger 1: covers nothing: give"),
        ('seed = "feed.txt"\nline = 4\ncolumn = 3\nkind = "structure"\nreason = "r"\n',
         "ledger 1: column is a positive integer, with line and text"),
        ('seed = "feed.txt"\nline = 3\nkind = "structure"\nreason = "r"\ncolour = 1\n',
         "ledger 1: unknown field(s) colour"),
        ('seed = "copy.txt"\nlines = [2, 3]\nkind = "copy"\nreason = "a copy"\n'
         'of = { seed = "feed.txt", lines = [4, 5] }\n',
         "ledger 1: the copy differs from seed feed.txt lines 4-5"),
        ('seed = "copy.txt"\nline = 3\ntext = "11434"\nkind = "repeat"\nreason = "again"\n'
         'of = { seed = "feed.txt", line = 4 }\n',
         "ledger 1: of: '11434' at seed feed.txt line 4 is not judged, recorded or "
         "untestable there"),
    ],
)
def test_a_bad_ledger_entry_is_an_error_naming_file_and_entry(
    toy: Toy, entry: str, message: str
) -> None:
    toy.ledger("T2", "[[ledger]]\n" + entry)
    with pytest.raises(LedgerError) as err:
        run(toy)
    assert message in str(err.value)


def test_a_repeat_of_a_judged_figure_is_excluded(toy: Toy) -> None:
    toy.ledger("T2", '[[ledger]]\nseed = "copy.txt"\nline = 2\ntext = "4.0"\n'
               'kind = "repeat"\nreason = "the sum again, judged where first printed"\n'
               'of = { seed = "feed.txt", line = 4 }\n')
    assert statuses(run(toy), "T2")[("copy.txt", 2, "4.0")] == "excluded"


def test_a_column_excludes_one_figure_of_a_line_printing_it_twice(toy: Toy) -> None:
    """The sum printed again on its own line, after the anchored one: a column names it."""
    feed = toy.seeds / "feed.txt"
    feed.write_text(feed.read_text("utf-8").replace(
        "the port is 11434.", "the port is 11434, and 4.0 again."), "utf-8")
    line = 'seed = "feed.txt"\nline = 4\ntext = "4.0"\n'
    toy.ledger("T2", f'[[ledger]]\n{line}column = 48\nkind = "repeat"\n'
               'reason = "the sum again"\nof = { seed = "feed.txt", line = 4 }\n')
    t2 = {(f.at.line, f.at.column): f.status for f in run(toy).figures
          if f.at.source == "feed.txt" and f.at.text == "4.0"}
    assert t2 == {(4, 17): "judged", (4, 48): "excluded"}
    toy.ledger("T2", f'[[ledger]]\n{line}column = 17\nkind = "name"\nreason = "a name"\n')
    with pytest.raises(LedgerError, match=r"ledger 2: overlaps an anchor: seed feed.txt "
                                          r"line 4 '4.0' at column 17 is judged"):
        run(toy)


def test_a_missing_or_binary_document_is_an_error_naming_the_file(toy: Toy) -> None:
    (toy.seeds / "copy.txt").unlink()
    with pytest.raises(SourceError, match=r"T2: seed copy.txt: not found"):
        run(toy)
    (toy.seeds / "copy.txt").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    with pytest.raises(SourceError, match=r"T2: seed copy.txt: not text"):
        run(toy)
    (toy.seeds / "copy.txt").write_bytes(b"caf\xe9 1")
    with pytest.raises(SourceError, match=r"T2: seed copy.txt: not text \(not UTF-8 at byte 3"):
        run(toy)


def test_a_figure_added_to_a_document_is_unaccounted_with_its_line(toy: Toy) -> None:
    before = {(f.at.line, f.at.text) for f in run(toy).figures if f.status == "unaccounted"}
    feed = toy.seeds / "feed.txt"
    feed.write_text(feed.read_text("utf-8").replace("Feed header\n", "Feed header\n"
                                                     "Post Two: numbers\nIt needs 3 GB.\n", 1),
                    "utf-8")
    # The new lines shift the rest down by two; line 3 is the new figure's.
    after = {(f.at.line, f.at.text) for f in run(toy).figures if f.status == "unaccounted"}
    assert (3, "3") in after - {(line + 2, text) for line, text in before}


def test_the_count_is_the_same_on_every_run(toy: Toy) -> None:
    assert run(toy).dumps() == run(toy).dumps()


@pytest.mark.skipif(not os.environ.get("CLAIMS_DOCUMENTS"),
                    reason="no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")
def test_every_anchor_of_the_catalog_lands_on_printed_text() -> None:
    """On the real write-ups: each anchor marks the figures it prints (none is lost)."""
    from claims.catalog import load_catalog

    root = Path(__file__).resolve().parents[2]
    acc = account(load_catalog(), Path(os.environ["CLAIMS_DOCUMENTS"]), root)
    assert acc.problems == []
    for d in acc.documents:
        assert d.printed > 0
        assert d.count("judged") > 0


def test_one_document_of_a_shared_seed_counts_only_its_own_lines(toy: Toy) -> None:
    alone = account(toy.catalog, toy.seeds, toy.root, ["T3"], catalog_dir=toy.catalog_dir)
    assert [d.document.id for d in alone.documents] == ["T3"]
    assert alone.documents[0].to_json() == run(toy).documents[1].to_json()


def test_a_bundled_documents_text_files_are_read_under_fixtures_lab(toy: Toy) -> None:
    """Week 5's shape (#43): a [document] naming ``text`` files under fixtures/lab, no
    seeds; ledger entries name them with ``file``. No documents folder is needed."""
    from dataclasses import dataclass, field

    @dataclass(frozen=True)
    class Bundled:  # the catalog's Document with the ``text`` field #43 adds
        id: str
        title: str
        seeds: tuple[str, ...] = ()
        text: tuple[str, ...] = ()
        lab: tuple[str, ...] = ()
        claims: tuple[object, ...] = field(default=())

    @dataclass(frozen=True)
    class OneDocument:
        documents: tuple[Bundled, ...]

    lab = toy.root / "fixtures" / "lab" / "week-05"
    lab.mkdir(parents=True)
    (lab / "post.md").write_text("# Week 5\n\nThe matmul ran at 17.9 TFLOP/s.\n", "utf-8")
    (toy.catalog_dir / "T5.anchors.toml").write_text(
        '[[ledger]]\nfile = "week-05/post.md"\nline = 1\nkind = "structure"\n'
        'reason = "the week\'s number in its heading"\n', "utf-8")
    # A file of the folder that ``text`` does not list is the document's text all the same
    # (after the listed ones); an interpreter's cache is not.
    (lab / "bench.py").write_text("SIZE = 4096\n", "utf-8")
    (lab / "__pycache__").mkdir()
    (lab / "__pycache__" / "bench.cpython-312.pyc").write_text("3 12\n", "utf-8")
    catalog: Any = OneDocument((Bundled("T5", "Week 5", text=("week-05/post.md",),
                                        lab=("week-05",)),))
    acc = account(catalog, None, toy.root, catalog_dir=toy.catalog_dir)
    assert [(f.at.source, f.at.line, f.at.text, f.status) for f in acc.figures] == [
        ("week-05/post.md", 1, "5", "excluded"), ("week-05/post.md", 3, "17.9", "unaccounted"),
        ("week-05/bench.py", 1, "4096", "unaccounted")]
    (lab / "post.md").unlink()
    with pytest.raises(SourceError, match=r"T5: file week-05/post.md: not found"):
        account(catalog, None, toy.root, catalog_dir=toy.catalog_dir)


def test_an_untestable_claim_s_figure_is_accounted_for_but_not_judged(toy: Toy) -> None:
    toy.claim("T3", UNTESTABLE_CLAIM, UNTESTABLE_ANCHOR)
    acc = run(toy)
    assert statuses(acc, "T3") == {("feed.txt", 8, "7"): "judged",
                                   ("feed.txt", 8, "12"): "untestable"}
    t3 = next(d for d in acc.documents if d.document.id == "T3")
    assert (t3.count("judged"), t3.count("untestable"), t3.percent) == (1, 1, 100.0)
    data = json.loads(acc.dumps())
    assert data["totals"]["untestable"] == 1
    fig = next(f for f in data["figures"] if f["status"] == "untestable")
    assert fig["claim"] == "T3-TIME" and fig["figure"] == "time"
    assert fig["reason"] == "A made-up duration no machine here could time."
    assert "Untestable" in format_table(acc).splitlines()[0]


def test_a_figure_both_an_untestable_and_a_testable_claim_state_is_judged(toy: Toy) -> None:
    # Anchored to an untestable claim first, then to the claim that judges it.
    toy.claim("T3", UNTESTABLE_CLAIM.replace("12", "7"),
              UNTESTABLE_ANCHOR.replace("takes ", "costs ").replace('"12"', '"7"'))
    acc = run(toy)
    seven = next(f for f in acc.figures if f.at.text == "7")
    assert seven.status == "judged" and seven.claims[0] == ("T3-COST", "cost")
    assert ("T3-TIME", "time") in seven.claims and seven.reason is None


def test_a_ledger_entry_on_an_untestable_claim_s_figure_is_an_error(toy: Toy) -> None:
    toy.claim("T3", UNTESTABLE_CLAIM, UNTESTABLE_ANCHOR)
    toy.ledger("T3", '[[ledger]]\nseed = "feed.txt"\nline = 8\ntext = "12"\n'
                     'kind = "incidental"\nreason = "a duration, said in passing"\n')
    with pytest.raises(LedgerError, match=r"overlaps an anchor: .* is untestable \(T3-TIME\)"):
        run(toy)


def test_a_transcribed_value_no_claim_test_reads_accounts_for_nothing(toy: Toy) -> None:
    """Recorded means read (fixtures/recorded/READ.json, claims.text.reads): the same
    anchored value is recorded only while the record says a claim test reads it."""
    assert statuses(run(toy), "T2")[("feed.txt", 6, "42")] == "recorded"
    (toy.root / "fixtures" / "recorded" / "READ.json").write_text('{"T2": []}', "utf-8")
    assert statuses(run(toy), "T2")[("feed.txt", 6, "42")] == "unaccounted"


@pytest.mark.parametrize(("text", "message"), [
    (None, "fixtures/recorded/READ.json: not found: write it with scripts/record-reads.py"),
    ('{"T2": "tokens"}', "fixtures/recorded/READ.json, T2: must be a list"),
    ("[1]", "fixtures/recorded/READ.json: must be an object"),
])
def test_a_missing_or_malformed_record_of_reads_is_an_error_naming_it(
    toy: Toy, text: str | None, message: str
) -> None:
    path = toy.root / "fixtures" / "recorded" / "READ.json"
    if text is None:
        path.unlink()
    else:
        path.write_text(text, "utf-8")
    with pytest.raises(ReadsError) as err:
        run(toy)
    assert message in str(err.value)


def test_an_anchor_credits_its_claim_only_with_the_figures_the_claim_states(toy: Toy) -> None:
    """An anchor whose text runs over another figure (the port after the sum) credits the
    claim with the sum alone, and the accounting names the anchor."""
    path = toy.catalog_dir / "T2.anchors.toml"
    path.write_text(path.read_text("utf-8").replace(
        'text = "4.0"', 'text = "4.0 and the port is 11434"'), "utf-8")
    acc = run(toy)
    t2 = statuses(acc, "T2")
    assert t2[("feed.txt", 4, "4.0")] == "judged"
    assert t2[("feed.txt", 4, "11434")] == "unaccounted"
    assert acc.problems == [
        "T2: T2-SUM figure 'sum' (feed.txt line 4): its text '4.0 and the port is 11434' "
        "runs over '11434', which the claim does not state: narrow the text to the figures "
        "it judges (claims/text/credit.py)"]


def test_an_incidental_entry_whose_reason_names_a_claim_is_an_error(toy: Toy) -> None:
    """'incidental' says no statement rests on the figure; naming a claim says one does."""
    toy.ledger("T2", '[[ledger]]\nseed = "feed.txt"\nline = 4\ntext = "11434"\n'
               'kind = "incidental"\nreason = "the port, printed in passing; T3-COST checks '
               'it"\n')
    with pytest.raises(LedgerError) as err:
        run(toy)
    assert str(err.value).startswith(
        "T2.anchors.toml, ledger 1: kind 'incidental' says no statement rests on seed "
        "feed.txt line 4 '11434', yet its reason names T3-COST")


def test_no_anchor_of_the_catalog_runs_over_a_figure_its_claim_does_not_state() -> None:
    """On the real write-ups (Week 5's bundled text always; the seeds with
    $CLAIMS_DOCUMENTS): each anchor marks the figures its claim states and no others, but
    the other values a list or range passes over between its own."""
    from claims.catalog import load_catalog

    catalog = load_catalog()
    documents = os.environ.get("CLAIMS_DOCUMENTS")
    docs = [d.id for d in catalog.documents if documents or not d.seeds]
    root = Path(__file__).resolve().parents[2]
    acc = account(catalog, Path(documents) if documents else None, root, docs)
    over = [p for p in acc.problems if "runs over" in p]
    assert over == [], "\n".join(over)
