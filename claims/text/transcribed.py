"""Transcribed values (fixtures/recorded/*.json) anchored to where the document prints them.

Each transcribed value has an anchor in ``fixtures/recorded/<DOC>.anchors.json``:
the seed file, the line where the value starts, and the text just before it.
The transcription test checks every value *there* (not anywhere in the seed),
so a changed digit is caught even when the changed number occurs elsewhere in
the document. :func:`audit_transcriptions` proves it: it makes each mistake of
:mod:`claims.text.typos` (a digit changed, swapped, dropped or added, 10x, the
sign, GB for GiB) in every value in turn and counts those the anchored check
misses.

Seed text is compared with whitespace collapsed: the posts wrap lines and
align tables with runs of spaces.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claims.catalog.loader import Catalog, load_catalog
from claims.text.digests import manifest_documents
from claims.text.references import Reference, references, resolve
from claims.text.typos import KINDS, mistakes

if TYPE_CHECKING:
    from claims.records import Transcription

__all__ = [
    "FILE_REFERENCES",
    "FILTERS",
    "PROGRAMS_PRINTED",
    "SEED_FILES",
    "Seed",
    "all_figure_references",
    "anchored",
    "anchored_at",
    "audit_transcriptions",
    "figure_references",
    "leaves",
    "misplaced_values",
    "printed_forms",
    "raw_data",
    "recorded_data",
    "recorded_path",
    "reference_keys",
    "transcribed_documents",
    "transcribed_values",
]



class _CatalogSeeds(Mapping[str, tuple[str, ...]]):
    """Document id -> the seed files it transcribes, read from the bundled catalog's
    ``[document]`` tables (the one list of documents and seeds) when first asked."""

    @staticmethod
    @lru_cache(maxsize=1)
    def _read() -> dict[str, tuple[str, ...]]:
        return {doc.id: tuple(doc.seeds) for doc in load_catalog().documents}

    def __getitem__(self, doc: str) -> tuple[str, ...]:
        return self._read()[doc]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


# Which seeds each recorded file transcribes (claims/catalog/<DOC>.toml says).
SEED_FILES: Mapping[str, tuple[str, ...]] = _CatalogSeeds()


def recorded_path(root: Path, doc: str) -> Path:
    return root / "fixtures" / "recorded" / f"{doc}.json"


def transcribed_documents(root: Path, also: Iterable[str] = ()) -> tuple[str, ...]:
    """The catalog's documents, in series order, that have figures transcribed from their
    seeds: those with a ``fixtures/recorded/<DOC>.json`` (and those named in ``also``, the
    manifest's, so a deleted fixture is missed rather than forgotten). A document with no
    transcribed figures, such as one whose text is bundled lab files, has no such file."""
    named = set(also)
    return tuple(doc for doc in SEED_FILES
                 if doc in named or recorded_path(root, doc).is_file())
# The tables of a recorded file whose values name other transcription files (a command's
# output, a file the post prints) rather than transcribing text. Known by their key, not
# by document id: a list of ids here was a second list of the documents, which a new or
# copied document (scripts/grow-series.py's W1X2) was missing from.
FILE_REFERENCES = ("command_outputs", "files_printed")
# Any document's programs as printed (a bundled lab file's path -> the transcription of
# the program the document prints as that file, fixtures/recorded/programs/<DOC>/):
# text files too, each line anchored where the document prints it.
PROGRAMS_PRINTED = "programs_printed"


def reference_keys(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys of a recorded file's data (``<DOC>.json``) whose values name transcription
    files, not text."""
    return tuple(key for key in (*FILE_REFERENCES, PROGRAMS_PRINTED) if key in data)
# How much of the text before a value an anchor keeps.
BEFORE_CHARS = 24


def squash(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Seed:
    """One seed's text with whitespace collapsed, and where each line starts in it."""

    name: str
    text: str
    starts: tuple[int, ...]  # offset in ``text`` of each non-empty line
    numbers: tuple[int, ...]  # ... and that line's 1-based number in the file

    @classmethod
    def read(cls, path: Path) -> Seed:
        return cls.from_lines(path.name, path.read_text("utf-8").splitlines())

    @classmethod
    def from_lines(cls, name: str, lines: list[str]) -> Seed:
        """A seed from its lines as printed (1-based numbers follow the list's order)."""
        parts: list[str] = []
        starts: list[int] = []
        numbers: list[int] = []
        offset = 0
        for number, line in enumerate(lines, 1):
            squashed = squash(line)
            if not squashed:
                continue
            starts.append(offset)
            numbers.append(number)
            parts.append(squashed)
            offset += len(squashed) + 1
        return cls(name, " ".join(parts), tuple(starts), tuple(numbers))

    def line_at(self, offset: int) -> int:
        return self.numbers[bisect.bisect_right(self.starts, offset) - 1]

    def occurrences(self, form: str) -> Iterator[int]:
        """Offsets where ``form`` occurs as a whole token (not inside a longer number/word)."""
        start = self.text.find(form)
        while start != -1:
            end = start + len(form)
            if _boundary(self.text, start - 1, form[:1], -1) and _boundary(
                self.text, end, form[-1:]
            ):
                yield start
            start = self.text.find(form, start + 1)


def _boundary(text: str, index: int, edge: str, step: int = 1) -> bool:
    """Nothing continues the value past its edge: no digit after a digit (nor ".5" after
    "89", which would make it 89.5, nor "e-06" after "1") or after a point, no letter or
    digit after a letter, "_" or "-". "22.5x" prints 22.5. A digit is a decimal digit: a
    footnote mark ("port 11434,³") is a superscript, which str.isdigit() also counts."""
    if index < 0 or index >= len(text):
        return True
    nxt = text[index]
    if edge.isdecimal():
        if nxt.isdecimal():
            return False
        beyond = index + step
        after = text[beyond : beyond + 2] if step > 0 else ""
        if nxt in "eE" and (after[:1].isdecimal() or (after[:1] in "+-" and after[1:].isdecimal())):
            return False  # "1" is not printed where "1e-06" is
        return not (nxt in ".," and 0 <= beyond < len(text) and text[beyond].isdecimal())
    if edge.isalpha():
        # "a80c4f17acd" is not printed where "a80c4f17acd5" is: an id runs on through digits.
        return not nxt.isalnum()
    if edge in ".,":
        return not nxt.isdecimal()  # "17." is not printed where "17.9" is
    if edge in "_-":
        return not nxt.isalnum()  # nor "Q8_" where "Q8_0" is
    return True


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(json path, leaf) for every transcribed string or number, notes skipped."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not key.startswith("_"):
                yield from leaves(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        # A list of plain ids or numbers is checked as printed: comma-separated.
        if value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            yield path, ", ".join(str(v) for v in value)
        else:
            for i, item in enumerate(value):
                yield from leaves(item, f"{path}[{i}]")
    elif isinstance(value, bool) or value is None:
        return  # true/false are structure here, not printed words
    else:
        yield path, value


def printed_forms(value: Any) -> list[str]:
    """How a transcribed leaf may appear in the post."""
    if isinstance(value, float):
        return list(dict.fromkeys([repr(value), f"{value:g}"]))
    if isinstance(value, int):
        return list(dict.fromkeys([str(value), f"{value:,}"]))
    if value == "":
        return ['""']  # an empty string is printed only as JSON's empty string
    # Strings the post prints inside JSON appear with their quotes escaped.
    return list(dict.fromkeys([squash(value), squash(json.dumps(value, ensure_ascii=False)[1:-1])]))


# {"seed": file name, "line": 1-based line, "before": text}, and "whole_line": true for a
# value that is a whole printed line (a line of a printed program): printed there up to
# the line's end, so a value missing its last characters ("GIB = 1024 **" for
# "GIB = 1024 ** 3") is not found at the anchor.
Anchor = dict[str, Any]


def anchored(seed: Seed, anchor: Anchor, value: Any) -> bool:
    """Whether the seed prints ``value`` at the anchor: starting on its line, right after
    its ``before`` text, and not continued by another letter or digit."""
    return anchored_at(seed, anchor, value) is not None


def anchored_at(seed: Seed, anchor: Anchor, value: Any) -> tuple[int, int] | None:
    """Where (start, end offsets in ``seed.text``) the seed prints ``value`` at the
    anchor, as :func:`anchored` finds it; None where it does not."""
    before = str(anchor.get("before", ""))
    line = anchor.get("line")
    for form in printed_forms(value):
        if not form:
            continue
        start = seed.text.find(before + form)
        while start != -1:
            at = start + len(before)
            end = at + len(form)
            if (
                seed.line_at(at) == line
                and _boundary(seed.text, end, form[-1:])
                and (before or _boundary(seed.text, at - 1, form[:1], -1))
                and (not anchor.get("whole_line") or _line_end(seed, at) == end)
            ):
                return at, end
            start = seed.text.find(before + form, start + 1)
    return None


def _line_end(seed: Seed, offset: int) -> int:
    """Where the printed line holding ``offset`` ends in ``seed.text``."""
    nxt = bisect.bisect_right(seed.starts, offset)
    return seed.starts[nxt] - 1 if nxt < len(seed.starts) else len(seed.text)


def propose(seeds: list[Seed], value: Any, near: tuple[str, int] | None) -> Anchor | None:
    """Where ``value`` is printed, nearest after the previous value's place (``near``):
    the values of one transcribed object come from one passage of the post."""
    found: list[tuple[float, Seed, int]] = []
    for seed in seeds:
        for form in printed_forms(value):
            for offset in seed.occurrences(form):
                if near is None:
                    score = 0.0 if seed is seeds[0] else 1e9
                    score += offset
                elif near[0] != seed.name:
                    score = 1e12 + offset
                else:
                    gap = offset - near[1]
                    # Forward first: a transcribed object follows the post's order.
                    score = gap if gap >= 0 else 50 * -gap
                found.append((score, seed, offset))
    if not found:
        return None
    _, seed, offset = min(found, key=lambda f: f[0])
    # The text just before the value (from the line above when the value starts a line).
    before = seed.text[max(0, offset - BEFORE_CHARS) : offset]
    return {"seed": seed.name, "line": seed.line_at(offset), "before": before, "_at": offset}


# What recorded data passes through on its way to a test: (document, data) -> data. Empty
# except while ``claims audit`` notes what each test reads or changes one value
# (claims.audit.data).
FILTERS: list[Callable[[str, dict[str, Any]], dict[str, Any]]] = []


@lru_cache(maxsize=1)
def _packaged_catalog() -> Catalog:
    return load_catalog()


def raw_data(root: Path, doc: str) -> dict[str, Any]:
    path = recorded_path(root, doc)
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def recorded_data(root: Path, doc: str, catalog: Catalog | None = None) -> dict[str, Any]:
    """``fixtures/recorded/<DOC>.json`` with each catalog figure it names filled in from
    ``catalog`` (default: the installed catalog); see :mod:`claims.text.references`."""
    data: dict[str, Any] = resolve(raw_data(root, doc), catalog or _packaged_catalog())
    for through in FILTERS:
        data = through(doc, data)
    return data


def figure_references(root: Path, doc: str) -> list[Reference]:
    """The catalog figures ``fixtures/recorded/<DOC>.json`` names instead of copying."""
    return list(references(raw_data(root, doc)))


def all_figure_references(root: Path) -> list[tuple[str, Reference]]:
    """(document, reference) for every catalog figure every transcribed fixture names."""
    return [
        (doc, ref)
        for doc in transcribed_documents(root)
        for ref in figure_references(root, doc)
    ]


def transcribed_values(
    root: Path, doc: str, catalog: Catalog | None = None
) -> Iterator[tuple[str, Any]]:
    """Every transcribed value of one document: the recorded JSON's leaves (a catalog
    figure it names as the catalog states it) and, for files it references, each text
    line (``rel:line N``) or JSON leaf (``rel:path``)."""
    data = recorded_data(root, doc, catalog)
    refs = reference_keys(data)
    yield from leaves({k: v for k, v in data.items() if k not in refs})
    for rel in (rel for key in refs for rel in (data.get(key) or {}).values()):
        path = root / rel
        text = path.read_text("utf-8")
        if path.suffix == ".json":
            for p, v in leaves(json.loads(text)):
                yield f"{rel}:{p}", v
        else:
            # A leading "$ command" line names the command; the post runs it inside ssh spark.
            for number, line in enumerate(text.splitlines(), 1):
                if squash(line):
                    yield f"{rel}:line {number}", squash(line.removeprefix("$ "))


def section_start(seeds: list[Seed], note: Any) -> tuple[str, int] | None:
    """Where the passage an object's ``_seed`` note names begins (its longest part found)."""
    if not isinstance(note, str):
        return None
    parts = sorted({squash(p) for p in note.replace(";", ",").split(",")}, key=len, reverse=True)
    for part in parts:
        if len(part) < 6:
            continue
        for seed in seeds:
            at = seed.text.find(part)
            if at != -1:
                return seed.name, at
    return None


def anchors_path(root: Path, doc: str) -> Path:
    return root / "fixtures" / "recorded" / f"{doc}.anchors.json"


def load_anchors(root: Path, doc: str) -> dict[str, Anchor]:
    path = anchors_path(root, doc)
    data = json.loads(path.read_text("utf-8"))
    anchors: dict[str, Anchor] = data["anchors"]
    return anchors


# One entry per seed file: a bound below the series' seed count read them all again.
@lru_cache(maxsize=256)
def _seed(path: Path) -> Seed:
    return Seed.read(path)


def seeds_of(documents: Path, doc: str) -> list[Seed] | None:
    """The seed texts of ``doc`` in the folder ``documents`` (None: one is missing).

    The folder is always given explicitly (``--claims-documents DIR`` or
    ``$CLAIMS_DOCUMENTS``): nothing outside the checkout is looked for by default,
    so a folder that comes and goes beside a clone changes no result."""
    paths = [documents / name for name in SEED_FILES[doc]]
    if not all(p.is_file() for p in paths):
        return None
    return [_seed(p) for p in paths]


def misplaced_values(root: Path, documents: Path) -> Transcription:
    """Check every transcribed value at its anchor in the documents (the plain check, no
    mutations): what the transcription check of a pytest run with documents reports."""
    names = sorted({n for doc in SEED_FILES for n in SEED_FILES[doc]})
    missing = [n for n in names if not (documents / n).is_file()]
    if missing:
        return {"ran": False, "reason": f"{documents} lacks {', '.join(missing)}",
                "documents_dir": str(documents)}
    values = 0
    misplaced: list[dict[str, str]] = []
    for doc in transcribed_documents(root):
        seeds = {s.name: s for s in seeds_of(documents, doc) or []}
        anchors = load_anchors(root, doc)
        for path, value in transcribed_values(root, doc):
            values += 1
            anchor = anchors.get(path)
            seed = seeds.get(str(anchor.get("seed"))) if anchor else None
            if anchor is None or seed is None or not anchored(seed, anchor, value):
                where = (f"{anchor['seed']} line {anchor['line']}" if anchor else "no anchor")
                misplaced.append({"doc": doc, "value": path, "problem": (
                    f"fixtures/recorded/{doc}.json {path} = {value!r} is not printed where "
                    f"its anchor says ({where})")})
    return {
        "ran": True,
        "documents_dir": str(documents),
        "documents": manifest_documents(documents, names),
        "values": values,
        "misplaced": misplaced,
    }


def audit_transcriptions(root: Path, documents: Path | None) -> dict[str, Any]:
    """Make every mistake of :mod:`claims.text.typos` in every transcribed value; count,
    in all and by kind, what the anchored check catches."""
    root = root.resolve()
    if documents is None:
        return {"skipped": "no documents given (--claims-documents DIR or $CLAIMS_DOCUMENTS)"}
    values = caught = total = 0
    by_kind: dict[str, dict[str, int]] = {kind: {"mutations": 0, "caught": 0} for kind in KINDS}
    survivors: list[str] = []
    unanchored: list[str] = []
    for doc in transcribed_documents(root):
        seeds = seeds_of(documents, doc)
        if seeds is None:
            return {"skipped": f"the source documents are not all in {documents}"}
        by_name = {s.name: s for s in seeds}
        anchors = load_anchors(root, doc)
        for path, value in transcribed_values(root, doc):
            anchor = anchors.get(path)
            if anchor is None or anchor.get("seed") not in by_name:
                unanchored.append(f"{doc} {path}")
                continue
            seed = by_name[str(anchor["seed"])]
            values += 1
            for kind, changed in mistakes(value):
                total += 1
                by_kind[kind]["mutations"] += 1
                if anchored(seed, anchor, changed):
                    survivors.append(f"{doc} {path}: {value!r} -> {changed!r} ({kind})")
                else:
                    caught += 1
                    by_kind[kind]["caught"] += 1
    return {
        "values": values,
        "mutations": total,
        "caught": caught,
        "by_kind": by_kind,
        "survivors": survivors,
        "unanchored": unanchored,
    }
