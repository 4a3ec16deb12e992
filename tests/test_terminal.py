"""claims.terminal: text from files and servers made safe for a terminal and for JSON."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claims.terminal import encodable, is_unsafe, safe, safe_json, safe_lines


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
        # Invisible and format characters (issue 22, item 7): each one seen.
        ("a\u200bb", "a\\u200bb"),  # zero-width space
        ("a\u2060b", "a\\u2060b"),  # word joiner
        ("a\u00adb", "a\\xadb"),  # soft hyphen
        ("phi4\U000e0041", "phi4\\U000e0041"),  # tag character
        ("a\u180eb", "a\\u180eb"),  # Mongolian vowel separator
        ("a\u3164b", "a\\u3164b"),  # Hangul filler (a blank letter)
        ("a\ufff9b", "a\\ufff9b"),  # interlinear annotation anchor
        ("a\u034fb", "a\\u034fb"),  # combining grapheme joiner
        ("a\ue000b", "a\\ue000b"),  # private use
        # A backslash is escaped too, so the text "\x1b" never looks like an ESC.
        ("\\x1b", "\\\\x1b"),
        ("C:\\models", "C:\\\\models"),
        ("plain text, ümlauts, 日本語, emoji 🙂", "plain text, ümlauts, 日本語, emoji 🙂"),
    ],
)
def test_safe_escapes_controls_visibly_and_keeps_ordinary_text(raw, shown):
    assert safe(raw) == shown
    assert safe(raw).encode("utf-8")  # always printable as UTF-8


def test_an_escaped_esc_and_the_literal_text_of_one_look_different():
    assert safe("\x1b") != safe("\\x1b")
    assert safe_lines("\x1b") != safe_lines("\\x1b")


def test_safe_lines_keeps_newlines_and_tabs_only():
    assert safe_lines("a\nb\tc\rd\u202e") == "a\nb\tc\\x0dd\\u202e"


@pytest.mark.parametrize("code", [0x1B, 0x9B, 0x202E, 0x200B, 0x2060, 0xAD, 0xE0041, 0x180E,
                                  0x3164, 0xFFF9, 0x34F, 0x2028, 0xFEFF, 0x061C])
def test_every_listed_code_point_is_unsafe(code):
    assert is_unsafe(chr(code))
    assert chr(code) not in safe(f"x{chr(code)}y")


def test_safe_json_keeps_the_data_and_leaves_no_raw_control():
    data = {"k\u202e": ["\x9b31m", "\x1b[2J", "\x7f", "hi \ud83d", "🙂", "\u200b\U000e0041",
                       "back\\slash"]}
    text = safe_json(json.dumps(data, ensure_ascii=False))
    assert all(ch not in text for ch in "\x1b\x9b\x7f\u202e\u200b\U000e0041")
    assert json.loads(text) == data
    text.encode("utf-8", "surrogatepass")


def test_encodable_replaces_lone_surrogates_and_keeps_the_rest():
    name = os.fsdecode(b"g\xffemma/l\xfeatest \xf0\x9f\x98\x80")  # surrogateescape
    assert encodable(name) == "g\ufffdemma/l\ufffdatest \U0001f600"
    assert encodable(name).encode("utf-8")
    assert encodable("plain") == "plain"


@given(st.text())
def test_safe_json_looks_only_past_ascii_and_writes_what_it_wrote_before(text):
    """safe_json skips every code point below U+007F (issue 51: a large evidence file's
    newlines and backslashes each cost a call); what it writes is unchanged."""
    import json
    import re

    from claims.terminal import _json_escape, is_unsafe

    def before(json_text: str) -> str:
        def shown(match: re.Match[str]) -> str:
            char = match.group()
            if char == "\\" or ord(char) < 0x20 or not is_unsafe(char):
                return char
            return _json_escape(char)

        return re.sub(r"[^\x20-\x5b\x5d-\x7e]", shown, json_text)

    encoded = json.dumps({"t": text, "l": [text, 1]}, indent=1, ensure_ascii=False)
    assert safe_json(encoded) == before(encoded)
    assert json.loads(safe_json(encoded)) == {"t": text, "l": [text, 1]}
