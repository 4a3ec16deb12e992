"""claims.text.transcribed: the anchored check refuses a value cut short where it is printed.

Each case is a mistake of claims.text.typos that the check once let through (the
shorter value is a prefix of the printed one)."""

from __future__ import annotations

import pytest

from claims.text.transcribed import Seed, anchored


def seed(text: str) -> Seed:
    return Seed("s.txt", text, (0,), (1,))


@pytest.mark.parametrize(
    ("printed", "right", "cut"),
    [
        ("FP32: 17.9 TFLOPS", "17.9", "17."),  # a digit after the point dropped
        ("type Q8_0 here", "Q8_0", "Q8_"),
        ("eps 1e-06 ok", 1e-06, 1.0),  # "1e-06" without its exponent reads as 1
        ("id a80c4f17acd5 2.0 GB", "a80c4f17acd5", "a80c4f17acd"),
    ],
)
def test_a_value_cut_short_is_not_printed_there(printed, right, cut):
    s = seed(printed)
    before = printed[: printed.index(str(right) if isinstance(right, str) else "1e-06")]
    anchor = {"seed": "s.txt", "line": 1, "before": before}
    assert anchored(s, anchor, right)
    assert not anchored(s, anchor, cut)


def test_a_value_followed_by_its_unit_letters_still_reads():
    s = seed("speedup 22.5x over CPU")
    assert anchored(s, {"seed": "s.txt", "line": 1, "before": "speedup "}, "22.5")


@pytest.mark.parametrize("printed", ["on port 11434,³ the same", "is 11434³ here", "11434¹³ then"])
def test_a_footnote_mark_after_a_value_does_not_continue_it(printed):
    # Superscripts are footnote marks in the posts; str.isdigit() counts them as digits.
    s = seed(printed)
    assert anchored(s, {"seed": "s.txt", "line": 1, "before": printed[: printed.index("1")]}, 11434)


def test_a_whole_line_value_must_reach_the_lines_end() -> None:
    """A line of a printed program is anchored as a whole line: the same line missing its
    last digit ("GIB = 1024 **" for "GIB = 1024 ** 3", which the plain boundary rule lets
    through after an operator) is not printed at that anchor."""
    seed = Seed.from_lines("program.txt", ["GIB = 1024 ** 3", "print(GIB)"])
    anchor = {"line": 1, "before": "", "whole_line": True}
    assert anchored(seed, anchor, "GIB = 1024 ** 3")
    assert not anchored(seed, anchor, "GIB = 1024 **")
    assert anchored(seed, {"line": 1, "before": ""}, "GIB = 1024 **")  # the plain rule
    assert anchored(seed, {"line": 2, "before": "** 3 ", "whole_line": True}, "print(GIB)")
