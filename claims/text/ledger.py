"""The ledger: printed figures no claim judges, each with the reason none can.

A document's ledger lives in its anchors file, ``claims/catalog/<DOC>.anchors.toml``,
as ``[[ledger]]`` tables after its ``[[anchor]]`` tables (so a document's catalog
place stays its catalog file and its anchors file). One entry::

    [[ledger]]
    seed = "002_7d36a8153c2e8741.txt"   # or file = "<path under fixtures/lab>"
    line = 2149                          # one line; or lines = [2149, 2160], a block
    text = "32-week"                     # optional: only this figure on the line
    kind = "structure"                   # one of KINDS below
    reason = "the series' length as the post's own table of contents counts it"

What an entry covers (its *scope*):

* ``line`` and ``text``: the figures printed as ``text`` on that line (a figure), or with
  ``column`` only the one starting there (the line prints it again, anchored);
* ``line`` alone: every figure on that line; ``lines = [first, last]``: every figure on
  those lines, both included (a block);
* ``text`` alone (no line, and no seed/file or one): every figure printed as ``text`` in
  the document (or in that source), e.g. a model tag used as a name throughout.

Judged and recorded figures stay judged and recorded: a line, block or text entry
covers the other figures in its scope. Of two entries covering one figure, the narrower
wins (figure, then line, then block, then text), then the earlier.

Errors (:class:`LedgerError`, naming the file and the entry): an unknown field or kind;
no reason; no scope; a source the document does not name; a line outside the source or
not the document's text; an entry covering nothing, or only anchored figures (judged,
recorded or an untestable claim's); a figure entry on an anchored figure; a ``copy`` whose
text differs from the text it copies; a ``repeat`` of a figure not anchored where it says.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.text.anchors import array_of_tables

__all__ = ["KINDS", "LedgerEntry", "LedgerError", "ledger_tail", "load_ledger"]

# Why no claim can be made about a figure. A figure a program could check is a claim
# (with a catalog entry and a test), not a ledger entry.
KINDS: dict[str, str] = {
    "command": "part of a command the reader types (an argument, a flag's value, an "
               "address the reader calls): it instructs, it states nothing",
    "copy": "a copy of text accounted for where it first appears (``of`` names that "
            "place; the two texts are checked to be the same)",
    "repeat": "a figure printed again where a claim already judges or records it, or an "
              "untestable claim states it (``of`` names that line; checked to print the "
              "same figure, anchored there)",
    "illustration": "an example that names no real thing (a placeholder, a made-up value)",
    "name": "part of a name (a model tag, product, file, format or precision name) that "
            "states no quantity",
    "link": "part of a web address or citation",
    "structure": "the document's own numbering: series, week, phase, section, step, list "
                 "and footnote numbers, the byline's date",
    "incidental": "output shown in passing whose value no statement of the document rests "
                  "on (a timestamp, a process id, an id generated per run)",
}
_FIELDS = {"seed", "file", "line", "lines", "text", "column", "kind", "reason", "of"}
_OF_FIELDS = {"seed", "file", "line", "lines"}
# Words that say nothing about why no claim can be made.
_NOT_REASONS = {"", "-", "n/a", "na", "none", "not interesting", "uninteresting", "todo",
                "ignore", "ignored", "skip"}


class LedgerError(ValueError):
    """A ledger entry is malformed or wrong; the message names the file and the entry."""


@dataclass(frozen=True)
class Place:
    """A source (``kind``, ``key``) and, optionally, a line or a block of lines."""

    kind: str | None  # "seed" or "file"; None: any source of the document
    key: str | None
    first: int | None
    last: int | None


@dataclass(frozen=True)
class LedgerEntry:
    """One ledger entry (see the module docstring); ``number`` is 1-based in its file."""

    path: Path
    number: int
    place: Place
    text: str | None
    kind: str
    reason: str
    of: Place | None
    # With line and text: only the figure printed at this 1-based column (the line prints
    # the same figure again, anchored, which an entry by text alone would cover too).
    column: int | None = None

    @property
    def where(self) -> str:
        return f"{self.path.name}, ledger {self.number}"

    @property
    def scope(self) -> str:
        """figure, line, block or text."""
        if self.place.first is None:
            return "text"
        if self.text is not None:
            return "figure"
        return "line" if self.place.first == self.place.last else "block"

    @property
    def rank(self) -> int:
        return ["figure", "line", "block", "text"].index(self.scope)

    def describe(self) -> str:
        """Where the entry points, as a reader would say it."""
        src = f"{self.place.kind} {self.place.key}" if self.place.key else "the document"
        if self.place.first is None:
            return f"{self.text!r} anywhere in {src}"
        lines = (f"line {self.place.first}" if self.place.first == self.place.last
                 else f"lines {self.place.first}-{self.place.last}")
        at = f" at column {self.column}" if self.column is not None else ""
        return f"{src} {lines}" + (f" {self.text!r}{at}" if self.text is not None else "")


def _place(entry: dict[str, Any], where: str, *, need_source: bool) -> Place:
    seed, file = entry.get("seed"), entry.get("file")
    if seed is not None and file is not None:
        raise LedgerError(f"{where}: give seed or file, not both")
    kind = "seed" if seed is not None else "file" if file is not None else None
    key = seed if seed is not None else file
    if key is not None and (not isinstance(key, str) or not key):
        raise LedgerError(f"{where}: {kind} must be a non-empty string")
    line, lines = entry.get("line"), entry.get("lines")
    if line is not None and lines is not None:
        raise LedgerError(f"{where}: give line or lines, not both")
    first = last = None
    if line is not None:
        if isinstance(line, bool) or not isinstance(line, int) or line < 1:
            raise LedgerError(f"{where}: line must be a positive integer")
        first = last = line
    elif lines is not None:
        if (not isinstance(lines, list) or len(lines) != 2
                or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in lines)
                or lines[0] > lines[1]):
            raise LedgerError(f"{where}: lines must be [first, last], positive integers, "
                              "first <= last")
        first, last = lines
    if first is not None and key is None:
        raise LedgerError(f"{where}: a line or lines needs the seed or file they are in")
    if need_source and key is None:
        raise LedgerError(f"{where}: needs seed or file")
    return Place(kind, key, first, last)


def _entry(path: Path, number: int, entry: Any) -> LedgerEntry:
    where = f"{path.name}, ledger {number}"
    if not isinstance(entry, dict):
        raise LedgerError(f"{where}: not a table")
    extra = sorted(set(entry) - _FIELDS)
    if extra:
        raise LedgerError(f"{where}: unknown field(s) {', '.join(extra)} "
                          f"(known: {', '.join(sorted(_FIELDS))})")
    reason = entry.get("reason")
    if not isinstance(reason, str) or reason.strip().lower().rstrip(".") in _NOT_REASONS:
        raise LedgerError(f"{where}: reason must say why no claim can be made about the "
                          "figures it covers")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise LedgerError(f"{where}: kind must be one of {', '.join(KINDS)} (got {kind!r})")
    text = entry.get("text")
    if text is not None and (not isinstance(text, str) or not text):
        raise LedgerError(f"{where}: text must be a non-empty string")
    place = _place(entry, where, need_source=False)
    if place.first is None and text is None:
        raise LedgerError(f"{where}: covers nothing: give line, lines or text")
    column = entry.get("column")
    if column is not None and (
            isinstance(column, bool) or not isinstance(column, int) or column < 1
            or text is None or place.first is None or place.first != place.last):
        raise LedgerError(f"{where}: column is a positive integer, with line and text (one "
                          "figure of a line that prints it more than once)")
    of_raw = entry.get("of")
    of = None
    if kind in ("copy", "repeat"):
        if not isinstance(of_raw, dict):
            raise LedgerError(f"{where}: a {kind} needs of = {{ seed or file, "
                              f"{'lines' if kind == 'copy' else 'line'} }}: the place it "
                              f"{'copies' if kind == 'copy' else 'repeats'}")
        extra = sorted(set(of_raw) - _OF_FIELDS)
        if extra:
            raise LedgerError(f"{where}: of: unknown field(s) {', '.join(extra)}")
        of = _place(of_raw, f"{where}, of", need_source=True)
        if of.first is None:
            raise LedgerError(f"{where}: of needs line or lines")
        if kind == "copy" and (place.first is None or text is not None):
            raise LedgerError(f"{where}: a copy covers a line or block (line or lines, "
                              "no text)")
        if kind == "repeat" and (place.first is None or text is None
                                 or of.first != of.last):
            raise LedgerError(f"{where}: a repeat covers one figure (line and text) and "
                              "of names one line")
    elif of_raw is not None:
        raise LedgerError(f"{where}: of is for a copy or a repeat, not a {kind}")
    return LedgerEntry(path, number, place, text, kind, reason.strip(), of, column)


def load_ledger(path: Path) -> list[LedgerEntry]:
    """The ``[[ledger]]`` entries of an anchors file (none if it has none or is absent)."""
    raw = array_of_tables(path, "ledger", LedgerError)
    return [_entry(path, i, entry) for i, entry in enumerate(raw, 1)]


LEDGER_HEADER = "# --- ledger: printed figures no claim judges, and why (docs/accounting.md)"


def ledger_tail(text: str) -> str:
    """The ledger part of an anchors file's text (from its header, or its first
    ``[[ledger]]``, to the end), so rewriting the anchors keeps it; "" if none."""
    for marker in (LEDGER_HEADER, "[[ledger]]"):
        at = text.find(marker)
        if at != -1:
            return text[at:]
    return ""
