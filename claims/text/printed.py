"""What counts as a printed figure: the tokenizer the accounting counts with.

The rule, applied to each line of a document's text as printed:

* A *token* is a run of word characters (ASCII letters, ASCII digits, ``_``) joined by
  single connectors, each of which must be followed by another word character: ``.``
  ``-`` ``:`` ``/`` ``+``, and ``,`` only as a thousands separator (followed by exactly
  three digits and no fourth). A ``%`` right after the run belongs to it, as does one
  leading ``-``, ``+`` or ``.`` right before a digit where no word character precedes.
* A *printed figure* is a token holding at least one ASCII digit.

So one figure each: ``13.0``, ``6,171,877,376``, ``22.5x``, ``-0.5``, ``100%``,
``4096x4096``, ``v0.31.2``, ``Q4_K_M``, ``sha256:a80c4f17acd5``, ``2026-07-11``,
``20:57:28``, ``+0000``, ``localhost:11434/api/generate``, ``cuda-13.0``. A sentence's
closing point is not part of a figure ("13.0." prints 13.0), nor is a unit after a space
("7.67 ms" prints the figure 7.67; the unit is its context), nor a range's en dash
("10–50" prints two). Numbers written as words ("four") are not figures: no digit, and
a catalog anchor may still point at them. Superscript digits (¹ ² ³) are the posts'
footnote markers, not figures. A ``,`` followed by a space separates list items
("128000, 128001" prints two figures); so does one followed by other than three digits.

Columns are 1-based character positions in the line as printed (a tab is one
character). The rule is deterministic: the same text always gives the same figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FIGURE", "Token", "figures_in_line"]

_WORD = r"[A-Za-z0-9_]+"
# A connector joins two runs only when a word character follows it; a comma only as
# a thousands separator.
_JOIN = r"(?:[.\-:/+](?=[A-Za-z0-9_])|,(?=[0-9]{3}(?![0-9])))"
FIGURE = re.compile(
    rf"(?<![A-Za-z0-9_])(?:(?<![.\-+])[-+.](?=[0-9]))?{_WORD}(?:{_JOIN}{_WORD})*%?"
)
_DIGIT = re.compile(r"[0-9]")


@dataclass(frozen=True)
class Token:
    """One printed figure in a line: 1-based column where it starts and its text."""

    column: int
    text: str


def figures_in_line(line: str) -> list[Token]:
    """The printed figures of one line, left to right (see the module docstring)."""
    return [
        Token(m.start() + 1, m.group())
        for m in FIGURE.finditer(line)
        if _DIGIT.search(m.group())
    ]
