"""What counts as a printed figure (claims.text.printed)."""

from __future__ import annotations

import pytest

from claims.text.printed import figures_in_line


def texts(line: str) -> list[str]:
    return [t.text for t in figures_in_line(line)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("the ceiling is 13.0.", ["13.0"]),
        ("6,171,877,376 bytes", ["6,171,877,376"]),
        ("a 22.5x speedup, -0.5 and +0000", ["22.5x", "-0.5", "+0000"]),
        ("100% of 4096x4096", ["100%", "4096x4096"]),
        ("ollama v0.31.2 pulls Q4_K_M", ["v0.31.2", "Q4_K_M"]),
        ("digest sha256:a80c4f17acd5", ["sha256:a80c4f17acd5"]),
        ("Sat, 11 Jul 2026 20:57:28 +0000", ["11", "2026", "20:57:28", "+0000"]),
        ("on 2026-07-11 at http://localhost:11434/api/generate",
         ["2026-07-11", "localhost:11434/api/generate"]),
        ("7.67 ms and 4.7GB", ["7.67", "4.7GB"]),
        ("10–50 tokens", ["10", "50"]),  # an en dash separates a range's ends
        ("[128000, 128001] and 1,23", ["128000", "128001", "1", "23"]),
        ("--num-ctx 4096 x=-1", ["4096", "-1"]),
        ("four shards, e.g. none", []),  # words and abbreviations hold no digit
        ("setup.¹ ²", []),  # footnote markers
        ("\tcol\t42", ["42"]),
    ],
)
def test_the_rule(line: str, expected: list[str]) -> None:
    assert texts(line) == expected


def test_columns_are_one_based_characters_of_the_line() -> None:
    line = "\tWeek 2 of 32."
    tokens = figures_in_line(line)
    assert [(t.column, t.text) for t in tokens] == [(7, "2"), (12, "32")]
    for t in tokens:
        assert line[t.column - 1 : t.column - 1 + len(t.text)] == t.text
