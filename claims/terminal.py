"""Text from files and servers, made safe before it reaches a terminal, a page or a JSON reader.

This is the suite's one sanitiser: the CLI, the pytest plugin's failure and
summary output (:mod:`claims.plugin.sanitize`), the HTML report and the SVG
charts all show untrusted text through it.

A GGUF key, a model folder's name or a server's reply can carry terminal
control sequences: ESC starts cursor moves and screen clears (``ESC[2J``), OSC
sets the window title or plants a hyperlink (``ESC]8;;``), CR overwrites the
line, NUL truncates it in some tools, C1 controls (U+0080-U+009F, U+009B is a
one-character CSI) act like ESC sequences on some terminals, and bidirectional
overrides (U+202E) make a line read differently from what it holds. Format
characters (Unicode category Cf: the zero-width space U+200B, the word joiner
U+2060, the soft hyphen U+00AD, the tag characters U+E0000-U+E007F, U+180E,
U+FFF9...) and the other invisible code points (the Hangul fillers U+3164,
U+115F, U+1160, U+FFA0, the combining grapheme joiner U+034F, variation
selectors, the braille blank) hide text or make two different strings look
alike. None of them is printed raw: each becomes a visible escape (``\\x1b``,
``\\u202e``, ``\\U000e0041``), so a reader sees that it was there and what it was.

The escapes are unambiguous: a backslash in the text is shown as ``\\\\``, so
the literal four characters ``\\x1b`` (shown ``\\\\x1b``) never look like an
escaped ESC (shown ``\\x1b``). Ordinary text in any script, emoji included,
passes unchanged.

:func:`safe` is for one-line text, :func:`safe_lines` keeps newlines and tabs
(multi-line text on a page or in a failure message), :func:`safe_json` is for
JSON text: JSON already escapes U+0000-U+001F and backslashes, but leaves DEL,
C1, bidi and format characters as they are when ``ensure_ascii=False``;
``safe_json`` writes those as ``\\uXXXX`` escapes, which keeps the document's
data identical.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["SURROGATE", "encodable", "is_unsafe", "safe", "safe_json", "safe_lines"]

# Categories never shown raw: controls, format characters (bidi marks and
# overrides, zero-width characters, tags), surrogates, private use (a font can
# draw anything there), unassigned code points (the terminal's Unicode may be
# newer than Python's and know them as format characters), line and paragraph
# separators (they break lines in some terminals).
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

# Invisible or blank code points of ordinary categories: they draw nothing (or a
# blank the width of a letter), so a name holding one looks like a name without it.
_INVISIBLE = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0}
    | set(range(0xFE00, 0xFE10))  # variation selectors
    | set(range(0xE0100, 0xE01F0))  # variation selectors supplement
)

# A lone surrogate: what Python makes of a file name's bytes that are not UTF-8
# (os.fsdecode's surrogateescape), or what a JSON "\\ud83d" spells. No UTF-8 encoder
# takes one: not json's file, not pytest-xdist's channel (execnet).
SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, so that it encodes as UTF-8.

    What the evidence keeps of such text, whether a record was written in this process
    or shipped from an xdist worker: the same characters either way."""
    return SURROGATE.sub("\ufffd", text) if SURROGATE.search(text) else text


# Printable ASCII except the backslash is always safe: only other code points
# are looked at one by one, so plain text costs one regex scan.
_CANDIDATE = re.compile(r"[^\x20-\x5b\x5d-\x7e]")
# In JSON text every code point below U+007F is left as it is (JSON escaped the controls
# already, and its backslashes are its own escapes), so only the others are looked at:
# a large evidence file's newlines and backslashes cost no call each (issue 51).
_JSON_CANDIDATE = re.compile(r"[^\x00-\x7e]")


@lru_cache(maxsize=4096)
def is_unsafe(char: str) -> bool:
    """Whether one code point is shown as an escape (controls, format, bidi, invisible)."""
    code = ord(char)
    return code in _INVISIBLE or unicodedata.category(char) in _UNSAFE_CATEGORIES


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _shown(char: str, keep: str) -> str:
    if char == "\\":
        return "\\\\"
    if char in keep or not is_unsafe(char):
        return char
    return _escape(char)


def safe(text: object) -> str:
    """``str(text)`` on one line: every control, format, bidi or invisible code point and
    every backslash as a visible escape (newlines and tabs too)."""
    return _CANDIDATE.sub(lambda m: _shown(m.group(), ""), str(text))


def safe_lines(text: object) -> str:
    """Like :func:`safe`, but keeps newlines and tabs: for multi-line text.

    The HTML report shows raw evidence (replies, command output) in ``<pre>``
    blocks and a failure message spans lines; there a bidi override would still
    reorder what the reader sees, and an ESC would hide what a terminal would
    have done with it.
    """
    return _CANDIDATE.sub(lambda m: _shown(m.group(), "\n\t"), str(text))


def _json_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    # JSON spells a code point past the BMP as its UTF-16 surrogate pair.
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe_json(text: str) -> str:
    """JSON text whose remaining raw controls, format and invisible characters are
    written as ``\\uXXXX`` (the same data; JSON's own escapes are left as they are)."""

    def shown(match: re.Match[str]) -> str:
        char = match.group()
        # Below U+0020 JSON has escaped already (what is left is the document's own
        # layout: newlines and indentation); its backslashes are its own escapes.
        if char == "\\" or ord(char) < 0x20 or not is_unsafe(char):
            return char
        return _json_escape(char)

    return _JSON_CANDIDATE.sub(shown, text)
