"""A document's text as printed: its sources, which lines are its own, and its figures.

A document's text comes from the seed files its ``[document]`` table names (``seeds``,
read from the documents folder the user gives: ``--claims-documents`` or
``$CLAIMS_DOCUMENTS``; never copied into the repository) and, for a document the
repository bundles, from every file of the folders its ``lab`` field names (paths under
``fixtures/lab``; those its ``text`` field lists first, in that order), so a script or
page the list leaves out is still counted. Anchors and ledger entries name a source by
``seed = "<file name>"`` or ``file = "<path under fixtures/lab>"``.

One seed may hold several documents (a feed of posts). A line belongs to the
document whose title (whitespace collapsed) was the last title line at or above it;
the lines above a seed's first title belong to that title's document (a feed's
header). A seed only one document names is wholly that document's.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from claims.catalog.records import Document
from claims.text.printed import figures_in_line
from claims.text.transcribed import Seed, squash

__all__ = [
    "Source",
    "SourceError",
    "TextFigure",
    "document_sources",
    "read_sources",
    "text_files",
]

# Where a bundled document's text files live (its [document] ``text`` paths are under it).
LAB_DIR = Path("fixtures") / "lab"
# Python's bytecode caches beside a bundled script are the interpreter's, not the text.
_CACHE_DIR = "__pycache__"


class SourceError(ValueError):
    """A document's text is missing or is not text; the message names the file."""


@dataclass(frozen=True)
class TextFigure:
    """One printed figure: where (source key, 1-based line and column) and as what."""

    document: str
    source: str
    line: int
    column: int
    text: str
    start: int  # offset in the source's whitespace-collapsed text (Seed.text)

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass
class Source:
    """One text file: its lines as printed, its collapsed view, and whose each line is."""

    key: str  # as anchors and ledger entries name it
    kind: str  # "seed" or "file"
    path: Path
    lines: list[str]
    seed: Seed
    owner: list[str | None] = field(default_factory=list)  # document id of each line
    figures: list[TextFigure] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.kind} {self.key}"

    @cached_property
    def _starts(self) -> tuple[list[int], int]:
        return [f.start for f in self.figures], max((len(f.text) for f in self.figures),
                                                    default=0)

    def overlapping(self, lo: int, hi: int) -> list[TextFigure]:
        """The figures overlapping offsets lo..hi of the collapsed text. The figures are
        in printed order (their starts ascend) and none is longer than the longest."""
        starts, longest = self._starts
        first = bisect.bisect_left(starts, lo - longest)
        last = bisect.bisect_left(starts, hi)
        return [f for f in self.figures[first:last] if lo < f.end]

    def figures_on(self, line: int) -> list[TextFigure]:
        return [f for f in self.figures if f.line == line]

    def collapsed(self, first: int, last: int) -> str:
        """Lines first..last (1-based, inclusive) with whitespace collapsed."""
        return squash(" ".join(self.lines[first - 1 : last]))


def document_sources(doc: Document, root: Path) -> list[tuple[str, str]]:
    """(kind, key) of each source of ``doc``, in the catalog's order: seeds, then files
    (every file of the lab folder a bundled document names, :func:`text_files`:
    ``root``/fixtures/lab)."""
    return [("seed", s) for s in doc.seeds] + [("file", f) for f in text_files(doc, root)]


def text_files(doc: Document, root: Path) -> tuple[str, ...]:
    """A bundled document's text: every file of the folders and files its ``lab`` names
    (paths under fixtures/lab, as ``text`` spells them), the ones its ``text`` lists first
    in that order, then the others in path order; none for a document whose text is seeds
    (no ``text``), whose ``lab`` names what it relies on, not what it prints.

    Derived from the folder, not from the list, so a file the list leaves out (a script,
    the roadmap page) is still counted: Week 5's text is its folder. Interpreter caches
    (``__pycache__``) are not the copy's content."""
    if not doc.text:
        return ()
    base = root / LAB_DIR
    found: list[str] = []
    for entry in doc.lab:
        path = base / entry
        if path.is_file():
            found.append(entry)
            continue
        for inner in sorted(path.rglob("*")):
            if inner.is_file() and _CACHE_DIR not in inner.relative_to(base).parts:
                found.append(inner.relative_to(base).as_posix())
    return tuple(dict.fromkeys([*doc.text, *found]))


def _read(kind: str, key: str, path: Path, doc_id: str) -> list[str]:
    what = f"{doc_id}: {kind} {key}"
    if not path.is_file():
        raise SourceError(f"{what}: not found ({path})")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"{what}: cannot be read ({exc.strerror})") from None
    if b"\0" in raw:
        raise SourceError(f"{what}: not text (it holds NUL bytes): {path}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{what}: not text (not UTF-8 at byte {exc.start}): {path}") from None
    return text.splitlines()


def _squash_columns(line: str) -> dict[int, int]:
    """Index in ``line`` -> index in ``squash(line)``, for each non-space character."""
    out: dict[int, int] = {}
    pos = 0
    gap = False
    for i, ch in enumerate(line):
        if ch.isspace():
            gap = pos > 0
            continue
        if gap:
            pos += 1
            gap = False
        out[i] = pos
        pos += 1
    return out


def read_sources(
    documents: Iterable[Document], seeds_dir: Path | None, root: Path,
    catalog_documents: Iterable[Document] | None = None,
) -> dict[tuple[str, str], Source]:
    """Every source of ``documents``, read once, each line given to its document and
    each figure found. Lines are shared out among all ``catalog_documents`` (default:
    ``documents``) naming the source, so accounting for one document of a feed counts
    only its own lines. A seed needs ``seeds_dir``; a text file is read under
    ``root/fixtures/lab``. SourceError names a missing or non-text file."""
    docs = list(documents)
    everyone = list(catalog_documents) if catalog_documents is not None else docs
    sources: dict[tuple[str, str], Source] = {}
    named_by: dict[tuple[str, str], list[Document]] = {}
    for doc in everyone:
        for kind, key in document_sources(doc, root):
            named_by.setdefault((kind, key), []).append(doc)
    wanted = {src for doc in docs for src in document_sources(doc, root)}
    selected = {doc.id for doc in docs}
    for (kind, key), owners in named_by.items():
        if (kind, key) not in wanted:
            continue
        if kind == "seed":
            if seeds_dir is None:
                raise SourceError(
                    f"{owners[0].id}: seed {key}: no documents folder given "
                    "(--claims-documents DIR or $CLAIMS_DOCUMENTS)")
            path = seeds_dir / key
        else:
            path = root / LAB_DIR / key
        reader = next(d for d in docs if (kind, key) in document_sources(d, root))
        lines = _read(kind, key, path, reader.id)
        source = Source(key, kind, path, lines, Seed.from_lines(key, lines))
        source.owner = _owners(lines, owners)
        starts = dict(zip(source.seed.numbers, source.seed.starts, strict=True))
        for number, line in enumerate(lines, 1):
            owner = source.owner[number - 1]
            tokens = figures_in_line(line)
            if not tokens or owner is None or owner not in selected:
                continue
            columns = _squash_columns(line)
            for token in tokens:
                at = starts[number] + columns[token.column - 1]
                source.figures.append(
                    TextFigure(owner, key, number, token.column, token.text, at))
        sources[(kind, key)] = source
    return sources


def _owners(lines: list[str], docs: list[Document]) -> list[str | None]:
    if len(docs) == 1:
        return [docs[0].id] * len(lines)
    titles = {squash(d.title): d.id for d in docs}
    marks = [titles.get(squash(line)) for line in lines]
    current = next((m for m in marks if m is not None), docs[0].id)
    out: list[str | None] = []
    for mark in marks:
        current = mark or current
        out.append(current)
    return out
