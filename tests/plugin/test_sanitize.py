"""claims.plugin.sanitize: a report's printed texts escaped once, its structure kept."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import pytest

from claims.plugin.sanitize import sanitize_report, sanitize_warning, sanitized
from claims.testing.hostile import TERMINAL_ATTACK, raw_terminal_bytes


@dataclass
class Location:
    path: str
    lineno: int
    message: str


@dataclass
class Chain:
    crash: Location
    links: list[tuple[Location, str]] = field(default_factory=list)


def test_a_shared_crash_location_is_escaped_once_not_twice():
    # pytest shares one crash location between a chain and its last link.
    crash = Location("t.py", 3, "E   \x1b[2J")
    chain = Chain(crash, [(crash, "desc \u202e")])
    out = sanitized(chain)
    assert out is chain and out.crash.message == "E   \\x1b[2J"
    assert out.links == [(crash, "desc \\u202e")] and out.crash.lineno == 3


class Report:
    def __init__(self, longrepr: object) -> None:
        self.longrepr = longrepr
        self.sections = [("Captured stdout call", "a\x1b]0;t\x07\nb")]
        self.wasxfail = "reason \u200b"


@pytest.mark.parametrize(
    ("longrepr", "shown"),
    [
        ("boom \x9b2J\nnext line", "boom \\x9b2J\nnext line"),  # newlines kept
        (("t.py", 3, "not run: \x1b[2J"), ("t.py", 3, "not run: \\x1b[2J")),  # a skip
        (None, None),
    ],
)
def test_every_printed_text_of_a_report_is_escaped(longrepr, shown):
    report = Report(longrepr)
    sanitize_report(report)
    assert report.longrepr == shown
    assert report.sections == [("Captured stdout call", "a\\x1b]0;t\\x07\nb")]
    assert report.wasxfail == "reason \\u200b"


def _recorded(message: Warning) -> warnings.WarningMessage:
    return warnings.WarningMessage(message, type(message), "reader.py", 7)


class _OwnText(UserWarning):
    """A warning that prints its own text, whatever its args."""

    def __str__(self) -> str:
        return "kept " + TERMINAL_ATTACK


def test_a_warning_keeps_its_class_and_prints_escaped():
    record = _recorded(UserWarning(f"tokenizer {TERMINAL_ATTACK} unknown"))
    sanitize_warning(record)
    assert isinstance(record.message, UserWarning) and record.category is UserWarning
    assert str(record.message) == "tokenizer gpt2\\x1b]0;PWNED\\x07\\x1b[2J\\u202e unknown"
    assert raw_terminal_bytes(warnings.formatwarning(
        str(record.message), record.category, record.filename, record.lineno, "")) == []


def test_a_clean_warning_is_left_as_it_was():
    message = UserWarning("line 1\n\tline 2")
    record = _recorded(message)
    sanitize_warning(record)
    assert record.message is message and message.args == ("line 1\n\tline 2",)


def test_a_warning_that_ignores_its_args_is_replaced_by_its_escaped_text():
    record = _recorded(_OwnText("anything"))
    sanitize_warning(record)
    assert record.message == "kept gpt2\\x1b]0;PWNED\\x07\\x1b[2J\\u202e"
