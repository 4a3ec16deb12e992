"""The ledger's own reading (claims.text.ledger); its checks against the text are in
test_measure.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.text.anchors import anchors_path, dump_anchors, load_anchors
from claims.text.ledger import KINDS, LEDGER_HEADER, LedgerError, ledger_tail, load_ledger


def test_rewriting_the_anchors_keeps_the_ledger() -> None:
    """scripts/anchor-figures.py writes dump_anchors(...) + the file's ledger_tail."""
    text = anchors_path("W1").read_text("utf-8")
    tail = ledger_tail(text)
    assert tail.startswith(LEDGER_HEADER) and "[[ledger]]" in tail
    rewritten = dump_anchors("W1", load_anchors("W1")) + "\n" + tail
    assert ledger_tail(rewritten) == tail
    assert "[[anchor]]" not in tail
    assert ledger_tail("[[anchor]]\nclaim = 'X'\n") == ""


def test_each_kind_says_what_it_is_for() -> None:
    assert set(KINDS) == {"command", "copy", "repeat", "illustration", "name", "link",
                          "structure", "incidental"}
    assert all(len(why) > 30 for why in KINDS.values())


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('seed = "a"\nfile = "b"\nline = 1\nkind = "name"\nreason = "r"\n',
         "give seed or file, not both"),
        ('seed = "a"\nline = 1\nlines = [1, 2]\nkind = "name"\nreason = "r"\n',
         "give line or lines, not both"),
        ('seed = "a"\nlines = [3, 2]\nkind = "name"\nreason = "r"\n', "first <= last"),
        ('seed = "a"\nline = 0\nkind = "name"\nreason = "r"\n', "line must be a positive"),
        ('line = 4\nkind = "name"\nreason = "r"\n', "needs the seed or file"),
        ('seed = "a"\nline = 4\nkind = "copy"\nreason = "r"\n', "a copy needs of ="),
        ('seed = "a"\nline = 4\nkind = "name"\nreason = "r"\nof = { seed = "a", line = 1 }\n',
         "of is for a copy or a repeat"),
        ('seed = "a"\nline = 4\ntext = "1"\nkind = "copy"\nreason = "r"\n'
         'of = { seed = "a", lines = [1, 2] }\n', "a copy covers a line or block"),
        ('seed = "a"\nline = 4\nkind = "repeat"\nreason = "r"\n'
         'of = { seed = "a", line = 1 }\n', "a repeat covers one figure"),
        ('seed = "a"\nline = 4\nkind = "name"\nreason = "  "\n', "reason must say why"),
        ('seed = "a"\nline = 4\nkind = "name"\nreason = "N/A."\n', "reason must say why"),
    ],
)
def test_a_malformed_entry_names_file_and_entry(tmp_path: Path, entry: str,
                                                message: str) -> None:
    path = tmp_path / "X.anchors.toml"
    path.write_text('[[ledger]]\nseed = "a"\nline = 1\nkind = "name"\nreason = "fine"\n\n'
                    "[[ledger]]\n" + entry, "utf-8")
    with pytest.raises(LedgerError, match=r"X\.anchors\.toml, ledger 2: ") as err:
        load_ledger(path)
    assert message in str(err.value)


def test_a_file_that_is_not_toml_is_named(tmp_path: Path) -> None:
    path = tmp_path / "X.anchors.toml"
    path.write_text("[[ledger]\n", "utf-8")
    with pytest.raises(LedgerError, match=r"^X\.anchors\.toml: "):
        load_ledger(path)
