"""claims.terminal: text from files and servers made safe for a terminal and for JSON."""

from __future__ import annotations

import json

import pytest

from claims.terminal import safe, safe_json


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),  # clear screen
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),  # OSC: window title
        ("\x1b]8;;http://x\x07", "\\x1b]8;;http://x\\x07"),  # OSC 8 hyperlink
        ("a\rb", "a\\x0db"),  # carriage return overwrites the line
        ("a\x00b", "a\\x00b"),
        ("a\nb\tc", "a\\x0ab\\x09c"),  # a field's own newline cannot fake a line
        ("\x9b31m", "\\x9b31m"),  # C1 CSI
        ("\x7f", "\\x7f"),
        ("abc\u202edef", "abc\\u202edef"),  # right-to-left override
        ("\u2066x\u2069", "\\u2066x\\u2069"),  # bidi isolates
        ("hi \ud83d", "hi \\ud83d"),  # a lone surrogate (cannot even be encoded)
        ("plain text, ümlauts, 日本語, emoji 🙂", "plain text, ümlauts, 日本語, emoji 🙂"),
    ],
)
def test_safe_escapes_controls_visibly_and_keeps_ordinary_text(raw, shown):
    assert safe(raw) == shown
    assert safe(raw).encode("utf-8")  # always printable as UTF-8


def test_safe_json_keeps_the_data_and_leaves_no_raw_control():
    data = {"k\u202e": ["\x9b31m", "\x1b[2J", "\x7f", "hi \ud83d", "🙂"]}
    text = safe_json(json.dumps(data, ensure_ascii=False))
    assert all(ch not in text for ch in "\x1b\x9b\x7f\u202e")
    assert json.loads(text) == data
    text.encode("utf-8")
