"""Text from files and servers, made safe before it reaches a terminal or a JSON reader.

A GGUF key, a model folder's name or a server's reply can carry terminal
control sequences: ESC starts cursor moves and screen clears (``ESC[2J``), OSC
sets the window title or plants a hyperlink (``ESC]8;;``), CR overwrites the
line, NUL truncates it in some tools, C1 controls (U+0080-U+009F, U+009B is a
one-character CSI) act like ESC sequences on some terminals, and bidirectional
overrides (U+202E) make a line read differently from what it holds. None of
them is printed raw: each becomes a visible escape (``\\x1b``, ``\\u202e``), so a
reader sees that it was there and what it was.

:func:`safe` is for plain text, :func:`safe_json` for JSON text: JSON already
escapes U+0000-U+001F, but leaves DEL, C1 and the bidi controls as they are
when ``ensure_ascii=False``; ``safe_json`` writes those as ``\\uXXXX`` escapes,
which keeps the document's data identical.
"""

from __future__ import annotations

import re

__all__ = ["UNSAFE", "safe", "safe_json", "safe_lines"]

# C0 (except the caller's own newlines and tabs, which `safe` escapes too), DEL,
# C1, the bidi embeddings/overrides/isolates and marks, the line and paragraph
# separators (they break lines in some terminals), and unpaired surrogates.
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ufeff\ud800-\udfff]"
)
_UNSAFE_IN_JSON = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: object) -> str:
    """``str(text)`` with every control, bidi and surrogate code point as a visible escape."""
    return UNSAFE.sub(_escape, str(text))


def safe_lines(text: object) -> str:
    """Like :func:`safe`, but keeps newlines and tabs: for multi-line text on a page.

    The HTML report shows raw evidence (replies, command output) in ``<pre>``
    blocks; there a bidi override would still reorder what the reader sees, and
    an ESC would hide what a terminal would have done with it.
    """
    return UNSAFE.sub(lambda m: m.group() if m.group() in "\n\t" else _escape(m), str(text))


def safe_json(text: str) -> str:
    """JSON text whose remaining raw controls are written as ``\\uXXXX`` (same data)."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
