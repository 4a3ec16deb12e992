"""A program as a document prints it, against the file the lab bundles: line by line.

A write-up prints a script for the reader to copy; the lab repository keeps the script
itself. They are the same program when, line by line, they read the same once what
the blog's publishing did to the text is undone and whitespace that does not change
the program is set aside. Precisely, each line of both texts is read so
(:func:`program_lines`):

* on the printed side only, the blog's rendering undone (:func:`unrender`; a file in the
  repository was never rendered, so its text is read as it is): the static-site generator's inline
  maths tags put in place of a ``$ ... $`` pair (``{% katex inline %}`` and
  ``{% endkatex %}``, each one ``$``), HTML character references (``&amp;``,
  ``&#39;``) read as the characters they stand for, and typographic quotes
  (U+2018, U+2019, U+201C, U+201D) read as ASCII ``'`` and ``"``;
* trailing whitespace dropped, each run of spaces or tabs inside the line read as one
  space;
* the indentation read as its depth, as Python's tokenizer reads it (how many blocks
  in, not how many spaces: a post that indents by two where the file indents by four
  prints the same program; a line at another depth is a different one);
* blank lines left out.

No other difference is passed over: a line wrapped in two, a line dropped or added, a
changed character each make the texts differ. The first difference is returned with its
line numbers on both sides (each side's own numbering, blank lines counted), for the
evidence; the texts come from files, so whoever shows them sanitises them
(claims.terminal).

Unit: lines (1-based line numbers of the texts as given).
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "KATEX_TAGS",
    "ProgramComparison",
    "ProgramLine",
    "compare_programs",
    "program_lines",
    "rendering_undone",
    "unrender",
]

# The tags the blog's generator writes for an inline maths span: it read the text
# between two "$" of a shell script as TeX and replaced each "$" by one of these.
KATEX_TAGS = ("{% katex inline %}", "{% endkatex %}")
# Typographic quotes a publishing tool may put in place of ASCII quotes.
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_INNER_SPACE = re.compile(r"[ \t]+")
# An HTML character reference: named (&amp;), decimal (&#39;) or hexadecimal (&#x27;).
_HTML_REFERENCE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")


@dataclass(frozen=True)
class ProgramLine:
    """One non-blank line: its 1-based number in its text, its indentation depth and
    its text with the indentation removed (normalised)."""

    number: int
    depth: int
    text: str
    # Dedented to a width no open block has (Python's "unindent does not match any outer
    # indentation level"): between two depths, which no well-formed line can be.
    stray: bool = False

    @property
    def shown(self) -> str:
        """The normalised line as the evidence shows it: four spaces per level, two more
        for a stray dedent (so it equals no line at a whole depth)."""
        return "    " * self.depth + ("  " if self.stray else "") + self.text


@dataclass(frozen=True)
class ProgramComparison:
    """Two programs, line by line (:func:`compare_programs`)."""

    printed_lines: int  # non-blank lines of the printed text
    file_lines: int  # ... and of the file
    # The first difference: (printed line number or None where the printed text has
    # ended, its text; the same for the file); None when the programs are the same.
    first_difference: tuple[tuple[int | None, str], tuple[int | None, str]] | None
    # The differing lines, unified-diff style ("-" printed, "+" file), at most DIFF_LINES.
    diff: tuple[str, ...]

    @property
    def same(self) -> bool:
        return self.first_difference is None


# How many lines of the difference the evidence keeps: enough to read the first few
# changes, few enough that a whole missing file is not pasted into the report.
DIFF_LINES = 24


def unrender(line: str) -> str:
    """``line`` with the blog's rendering undone (the module docstring lists what)."""
    for tag in KATEX_TAGS:
        line = line.replace(tag, "$")
    return html.unescape(line).translate(_QUOTES)


def _has_katex(line: str) -> bool:
    return any(tag in line for tag in KATEX_TAGS)


def _has_reference(line: str) -> bool:
    return _HTML_REFERENCE.search(line) is not None and html.unescape(line) != line


def _has_typographic_quote(line: str) -> bool:
    return line.translate(_QUOTES) != line


# What :func:`unrender` undoes, by kind, as the evidence names it.
_RENDERINGS: dict[str, Callable[[str], bool]] = {
    "inline-maths tags": _has_katex,
    "HTML character references": _has_reference,
    "typographic quotes": _has_typographic_quote,
}


def rendering_undone(text: str) -> dict[str, int]:
    """How many lines of a printed ``text`` each kind of rendering :func:`unrender` undoes
    touches (kinds with none left out): what the comparison passed over, for the evidence."""
    lines = text.splitlines()
    counts = {kind: sum(1 for line in lines if found(line)) for kind, found in _RENDERINGS.items()}
    return {kind: n for kind, n in counts.items() if n}


def program_lines(text: str, *, rendered: bool = False) -> list[ProgramLine]:
    """The non-blank lines of ``text``, each read as the module docstring says (the blog's
    rendering undone first where ``rendered``: a document's text)."""
    out: list[ProgramLine] = []
    # The widths of the open blocks, outermost first (Python's tokenizer keeps the same
    # stack): a wider line opens a block, a narrower one closes those wider than it.
    widths = [0]
    for number, raw in enumerate(text.splitlines(), 1):
        line = (unrender(raw) if rendered else raw).expandtabs(8).rstrip()
        body = line.lstrip(" ")
        if not body:
            continue
        width = len(line) - len(body)
        stray = False
        if width > widths[-1]:
            widths.append(width)
        else:
            while width < widths[-1]:
                widths.pop()
            # A dedent to a width no open block has: between the depth it closed to and
            # the next (an error in Python; in a shell script a reader sees it too).
            stray = width != widths[-1]
        out.append(ProgramLine(number, len(widths) - 1, _INNER_SPACE.sub(" ", body), stray))
    return out


def compare_programs(printed: str, file: str) -> ProgramComparison:
    """Whether the program ``printed`` (a document's text) is the program ``file`` (the
    bundled file's text), line by line, and where they first differ."""
    mine, theirs = program_lines(printed, rendered=True), program_lines(file)
    a, b = [p.shown for p in mine], [f.shown for f in theirs]
    if a == b:
        return ProgramComparison(len(a), len(b), None, ())
    first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                 min(len(a), len(b)))

    def at(lines: list[ProgramLine], i: int) -> tuple[int | None, str]:
        return (lines[i].number, lines[i].shown) if i < len(lines) else (None, "")

    diff = [d for d in difflib.unified_diff(a, b, "printed", "file", n=0, lineterm="")
            if not d.startswith(("---", "+++"))]
    return ProgramComparison(len(a), len(b), (at(mine, first), at(theirs, first)),
                             tuple(diff[:DIFF_LINES]))
