"""Every stated figure of the catalog tied to the text that prints it.

The catalog (``claims/catalog/<DOC>.toml``) says what a document states; the
sidecar ``claims/catalog/<DOC>.anchors.toml`` says where: for each figure of each
claim, the seed file (``seed``) or, for a document whose text is bundled lab files
(its ``text`` list: Week 5), that file (``file``, a path under fixtures/lab), the
1-based line where the printed text starts, the text just before it (whitespace
collapsed, as :mod:`claims.text.transcribed` anchors the recorded values) and
``text``, the figure as printed ("6171877376", "56.0 GB", "four"). A bool figure,
which no number prints, is anchored to the words that state it and records what they
say (``says``).

A figure the suite reads into vague words ("much faster", "a small JSON file") is
said twice on purpose, in two places with two jobs. The catalog's ``reading`` is
the argument: why those words are read as that value, shown with the figure in the
evidence. The anchor's ``reads`` is a pin: the figure's display ("≥ 1.5 x") next
to the words it reads, compared on every run, so the value cannot be edited without
someone re-reading the words (a prose reading cannot be compared; a pin derived from
the figure would agree with any edit). Hence a figure with a ``reading`` needs an
anchor with ``reads`` and no ``note`` of its own: the reading is its note. The one
figure without an anchor is one the catalog gives a ``source`` instead: a value no
document states (a published specification the claim is judged against), which the
documents therefore cannot print; anchoring it is an error.

Two checks, both failing the claim tests of the figure's document and naming it:

* :func:`figure_problems`, on every run (no documents needed): each figure has
  exactly one anchor and agrees with its printed text (the same number at the
  same precision, the same text, each listed value in order, the same truth),
  so an edited catalog figure, an erratum's included, no longer passes;
* :func:`misplaced_figures`, when the documents are named (``--claims-documents``):
  the document prints ``text`` at the anchor, so the sidecar cannot drift either.
  An anchor naming a bundled ``file`` is checked so by :func:`figure_problems` on every
  run instead: that text is always there (and byte-checked, claims.inputs.bundled).

:func:`propose` suggests an anchor for a figure that has none (the printed form
nearest the claim's section); ``scripts/anchor-figures.py`` writes the proposals
for review.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from claims.catalog.loader import Catalog
from claims.catalog.records import Claim, Document, StatedFigure
from claims.catalog.wording import form_disagreement, numbers_in
from claims.figures import parse_literal, unit_spellings, units_printed_as
from claims.file_cache import read_text
from claims.text.sources import text_files
from claims.text.transcribed import Seed, anchored, seeds_of, squash

__all__ = [
    "LAB_DIR",
    "AnchorError",
    "FigureAnchor",
    "anchors_path",
    "array_of_tables",
    "dump_anchors",
    "figure_problems",
    "load_anchors",
    "misplaced_figures",
    "pinned_unit",
    "printed_after",
    "printed_disagreement",
    "printed_unit",
    "propose",
    "unit_pin",
]

# The bundled catalog folder (claims/catalog/), where each document's anchors file sits.
CATALOG_DIR = Path(__file__).resolve().parents[1] / "catalog"
BEFORE_CHARS = 24
# How far above a table's cell its column header may be printed (a few rows of a table).
TABLE_HEADER_CHARS = 400
_FIELDS = {"claim", "figure", "seed", "file", "line", "before", "text", "unit", "says", "reads",
           "note"}
# Where a document's bundled text lies (an anchor's ``file`` is a path under it).
LAB_DIR = Path("fixtures") / "lab"
# Small counts the documents print as words ("two shards", "four times").
NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "half": 0.5,
    "thirty-two": 32, "sixteen": 16, "eighteen": 18,
}
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


class AnchorError(ValueError):
    """An anchors file is malformed; the message names the file, entry and problem."""


@dataclass(frozen=True)
class FigureAnchor:
    """Where one stated figure is printed (see the module docstring)."""

    claim: str
    figure: str
    seed: str  # "" for an anchor in a bundled file (``file``)
    line: int
    before: str
    text: str
    says: bool | None = None
    # For a figure the document states in words rather than digits ("much faster",
    # "nearly as long as", a paraphrase): the figure as the catalog reads those words
    # (its display), so the figure cannot change without its reading changing too.
    reads: str | None = None
    note: str | None = None
    # The document's bundled text file (under fixtures/lab) that prints it, instead of a seed.
    file: str | None = None
    # The unit as the document prints it right after ``text`` ("GB", "tokens/sec", "Gi"),
    # read through claims.figures.units_printed_as: a number's text pins its value, this
    # pins its unit, so a catalog figure whose unit slipped (GB written GiB, ms written s)
    # no longer says what the document prints. None: the document prints no unit there.
    unit: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return self.claim, self.figure

    @property
    def where(self) -> str:
        """The file that prints the figure: the seed's name or the bundled path."""
        return self.file or self.seed


def anchors_path(doc_id: str, catalog_dir: Path = CATALOG_DIR) -> Path:
    return catalog_dir / f"{doc_id}.anchors.toml"


def array_of_tables(path: Path, key: str, error: type[Exception]) -> list[Any]:
    """The ``[[key]]`` entries of an anchors file, as TOML reads them (none if the file is
    absent): its anchors, or its ledger (claims.text.ledger). An unreadable file or
    a ``key`` that is not an array of tables raises ``error`` naming the file."""
    if not path.is_file():
        return []
    try:
        data = _parsed(read_text(path))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise error(f"{path.name}: {exc}") from None
    raw = data.get(key, [])
    if not isinstance(raw, list):
        raise error(f"{path.name}: [[{key}]] must be an array of tables")
    # A copy of each entry: the parse is shared (below), its readers' edits must not be.
    return [dict(entry) if isinstance(entry, dict) else entry for entry in raw]


# One parse per text: the anchors and the ledger are two arrays of the same file, and
# both are read in one process (a run's accounting, `claims coverage`). Keyed by the
# text, so an edited file is parsed again whatever its modification time says. Room for
# a long series: a bound below the documents' count made `claims coverage` parse every
# file again for its ledger (3 parses a document at 48 documents, scripts/bench-series.py).
@lru_cache(maxsize=1024)
def _parsed(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def load_anchors(doc_id: str, catalog_dir: Path = CATALOG_DIR) -> list[FigureAnchor]:
    """One document's anchors, validated (AnchorError names the file and entry)."""
    path = anchors_path(doc_id, catalog_dir)
    raw = array_of_tables(path, "anchor", AnchorError)
    out: list[FigureAnchor] = []
    for i, entry in enumerate(raw):
        where = f"{path.name}, anchor {i + 1}"
        if not isinstance(entry, dict):
            raise AnchorError(f"{where}: not a table")
        extra = sorted(set(entry) - _FIELDS)
        if extra:
            raise AnchorError(f"{where}: unknown field(s) {', '.join(extra)}")
        for key in ("claim", "figure", "text"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise AnchorError(f"{where}: {key} must be a non-empty string")
        if ("seed" in entry) == ("file" in entry):
            raise AnchorError(f"{where}: name either seed (a source document) or file (a "
                              "bundled text under fixtures/lab), not both or neither")
        for key in ("seed", "file"):
            if key in entry and (not isinstance(entry[key], str) or not entry[key]):
                raise AnchorError(f"{where}: {key} must be a non-empty string")
        if not isinstance(entry.get("before"), str):
            raise AnchorError(f"{where}: before must be a string")
        line = entry.get("line")
        if isinstance(line, bool) or not isinstance(line, int) or line < 1:
            raise AnchorError(f"{where}: line must be a positive integer")
        says = entry.get("says")
        if says is not None and not isinstance(says, bool):
            raise AnchorError(f"{where}: says must be true or false")
        for key in ("reads", "note", "unit"):
            if key in entry and (not isinstance(entry[key], str) or not entry[key]):
                raise AnchorError(f"{where}: {key} must be a non-empty string")
        out.append(FigureAnchor(entry["claim"], entry["figure"], entry.get("seed", ""), line,
                                entry["before"], entry["text"], says, entry.get("reads"),
                                entry.get("note"), entry.get("file"), entry.get("unit")))
    return out


def _toml_str(text: str) -> str:
    # A JSON string is a valid TOML basic string (same escapes).
    return json.dumps(text, ensure_ascii=False)


def dump_anchors(doc_id: str, anchors: Iterable[FigureAnchor]) -> str:
    """The sidecar text of one document, one [[anchor]] table per figure."""
    lines = [
        f"# Where {doc_id} prints each figure its claims state (claims/text/anchors.py): seed,",
        "# line, the text before (whitespace collapsed) and the figure as printed. Proposed",
        "# by scripts/anchor-figures.py and reviewed by hand against the document.",
    ]
    for a in anchors:
        place = f"file = {_toml_str(a.file)}" if a.file else f"seed = {_toml_str(a.seed)}"
        lines += ["", "[[anchor]]", f"claim = {_toml_str(a.claim)}",
                  f"figure = {_toml_str(a.figure)}", place,
                  f"line = {a.line}", f"before = {_toml_str(a.before)}",
                  f"text = {_toml_str(a.text)}"]
        if a.unit is not None:
            lines.append(f"unit = {_toml_str(a.unit)}")
        if a.says is not None:
            lines.append(f"says = {'true' if a.says else 'false'}")
        if a.reads is not None:
            lines.append(f"reads = {_toml_str(a.reads)}")
        if a.note:
            lines.append(f"note = {_toml_str(a.note)}")
    return "\n".join(lines) + "\n"


# --- does the catalog figure say what the printed text says? --------------------
def _numbers(text: str) -> list[Decimal]:
    """The numbers a printed text holds, in order: digits and the words for small counts."""
    found: list[tuple[int, Decimal]] = []
    for m in _NUMBER.finditer(text):
        found.append((m.start(), Decimal(m.group().replace(",", ""))))
    for word, value in NUMBER_WORDS.items():
        for m in re.finditer(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE):
            found.append((m.start(), Decimal(str(value))))
    return [v for _, v in sorted(found, key=lambda f: f[0])]


def _same_number(stated: str, printed: list[Decimal]) -> bool:
    value = parse_literal(stated).value
    # The same value at the same printed precision: 56.0 is not 560.0, nor 56.
    return any(p == value and p.as_tuple().exponent == value.as_tuple().exponent
               for p in printed) or any(
        p == value and "." not in stated for p in printed)


def printed_disagreement(fig: StatedFigure, anchor: FigureAnchor) -> str | None:
    """Why the catalog figure does not say what its printed text says (None: it does)."""
    text = squash(anchor.text)
    if fig.reading is not None:
        if anchor.reads is None:
            return (f"the catalog reads {text!r} as {fig.display!r} (its reading): the anchor "
                    f"says so with reads = {fig.display!r}")
        if anchor.note is not None:
            return "the catalog's reading says why the words read so: the anchor's note repeats it"
    if anchor.reads is not None:
        if anchor.reads != fig.display:
            return f"stated {fig.display!r}, read from {text!r} as {anchor.reads!r}"
        return None
    if anchor.unit is not None and (
        fig.kind not in ("number", "range") or fig.unit not in units_printed_as(anchor.unit)
    ):
        return f"stated in {fig.unit or 'no unit'}, printed in {anchor.unit!r}"
    if fig.kind == "number":
        assert fig.text is not None
        if not _same_number(fig.text, _numbers(text)):
            return f"stated {fig.text}, printed {text!r}"
        return _form_problem(fig, anchor, fig.text)
    elif fig.kind == "range":
        assert fig.low is not None and fig.high is not None
        nums = _numbers(text)
        lo, hi = parse_literal(fig.low).value, parse_literal(fig.high).value
        # A range is printed from one end to the other ("23.4 to 23.5", or a table's
        # column from one row to another, in either order): its first and last numbers.
        if not nums or {nums[0], nums[-1]} != {lo, hi}:
            return f"stated {fig.low} to {fig.high}, printed {text!r}"
        return _form_problem(fig, anchor, fig.low)
    elif fig.kind == "text":
        assert fig.text is not None
        forms = {squash(fig.text), squash(json.dumps(fig.text, ensure_ascii=False)[1:-1])}
        if text not in forms and not any(f and f in text for f in forms):
            return f"stated {fig.text!r}, printed {text!r}"
    elif fig.kind == "list":
        # Each listed value printed, in the catalog's order (a catalog that lists
        # them otherwise than the document reads the passage: ``reads``).
        at = 0
        for value in fig.values:
            found = text.find(squash(value), at)
            if found == -1:
                return f"stated {list(fig.values)!r}, printed {text!r} (no {value!r} in order)"
            at = found + len(squash(value))
    elif anchor.says is None or anchor.says is not fig.flag:
        return f"stated {fig.flag}, the anchored words say {anchor.says}"
    return None


def _form_problem(fig: StatedFigure, anchor: FigureAnchor, literal: str) -> str | None:
    """Whether the figure's form fits the words the document prints around its number
    (claims.catalog.wording.form_disagreement): "over 4 GB" is at least, "up to a 50%"
    at most, "~16.0" or a plain "16.0" a value, not a bound. The words are the anchor's
    ``before`` and its ``text`` up to the number ("over 4 GB"), and what the text prints
    after it ("8.0+"). A number spelled as a word ("four") is read from its start."""
    text = squash(anchor.text)
    value = parse_literal(literal).value
    at = next((m for m in numbers_in(text)
               if Decimal(m.group().replace(",", "")) == value), None)
    before = anchor.before + (text[: at.start()] if at else "")
    after = text[at.end():] if at else ""
    why = form_disagreement(fig, before, after)
    return None if why is None else f"{why} (printed {anchor.before[-12:] + text!r})"


def _figures(catalog: Catalog) -> Iterator[tuple[Document, Claim, StatedFigure]]:
    for doc in catalog.documents:
        for claim in doc.claims:
            for fig in claim.stated:
                yield doc, claim, fig


def _bundled_text(root: Path, doc: Document, anchor: FigureAnchor,
                  cache: dict[str, Seed | str]) -> str | None:
    """Why a ``file`` anchor is not printed where it says (None: it is). The file must be
    one of the document's text files (claims.text.sources.text_files: its ``lab``
    folder's files); it is read from ``root``/fixtures/lab."""
    assert anchor.file is not None
    files = text_files(doc, root)
    if anchor.file not in files:
        return (f"{anchor.file} is not one of {doc.id}'s text files "
                f"({', '.join(files) or 'none listed'})")
    if anchor.file not in cache:
        path = root / LAB_DIR / anchor.file
        try:
            cache[anchor.file] = Seed.read(path)
        except (OSError, UnicodeDecodeError) as exc:
            cache[anchor.file] = f"cannot read {LAB_DIR / anchor.file}: {exc}"
    text = cache[anchor.file]
    if isinstance(text, str):
        return text
    if not anchored(text, {"line": anchor.line, "before": anchor.before}, anchor.text):
        return f"{anchor.file} does not print {anchor.text!r} at line {anchor.line} after " \
               f"{anchor.before!r}"
    return None


def figure_problems(catalog: Catalog, catalog_dir: Path = CATALOG_DIR,
                    root: Path | None = None) -> list[dict[str, str]]:
    """Figures without exactly one anchor, anchors of no figure, figures that do not
    say what their printed text says, and anchors in a bundled text file (``root``'s
    fixtures/lab; default: the working directory, the checkout a run is made from, never
    the folder beside this package) that it does not print there; one
    ``{"doc", "file", "problem"}`` each."""
    root = Path.cwd() if root is None else root
    problems: list[dict[str, str]] = []
    texts: dict[str, Seed | str] = {}
    by_doc: dict[str, dict[tuple[str, str], list[FigureAnchor]]] = {}
    for doc in catalog.documents:
        rel = f"claims/catalog/{anchors_path(doc.id).name}"
        try:
            anchors = load_anchors(doc.id, catalog_dir)
        except AnchorError as exc:
            problems.append({"doc": doc.id, "file": rel, "problem": str(exc)})
            anchors = []
        table: dict[tuple[str, str], list[FigureAnchor]] = {}
        for a in anchors:
            table.setdefault(a.key, []).append(a)
        by_doc[doc.id] = table
    seen: set[tuple[str, str]] = set()
    for doc, claim, fig in _figures(catalog):
        rel = f"claims/catalog/{anchors_path(doc.id).name}"
        found = by_doc[doc.id].get((claim.id, fig.name), [])
        seen.add((claim.id, fig.name))
        where = f"{claim.id} figure {fig.name!r}"
        if fig.source is not None:
            # Not the document's: nothing there to anchor (the module docstring).
            if found:
                problems.append({"doc": doc.id, "file": rel, "problem": (
                    f"{where} comes from {fig.source!r}, not the document, yet is "
                    f"anchored in {rel}")})
            continue
        if not found:
            problems.append({"doc": doc.id, "file": rel, "problem": (
                f"{where} has no anchor in {rel}: run scripts/anchor-figures.py "
                "--claims-documents DIR and review the proposal")})
        elif len(found) > 1:
            problems.append({"doc": doc.id, "file": rel,
                             "problem": f"{where} is anchored {len(found)} times in {rel}"})
        else:
            why = printed_disagreement(fig, found[0])
            if why is not None:
                problems.append({"doc": doc.id, "file": rel, "problem": (
                    f"{where} no longer says what the document prints at "
                    f"{found[0].where}:{found[0].line}: {why}")})
            elif found[0].file is not None:
                moved = _bundled_text(root, doc, found[0], texts)
                if moved is not None:
                    problems.append({"doc": doc.id, "file": rel,
                                     "problem": f"{where}: {moved}"})
    for doc_id, table in by_doc.items():
        for key in sorted(set(table) - seen):
            problems.append({"doc": doc_id, "file": f"claims/catalog/{doc_id}.anchors.toml",
                             "problem": f"anchor for {key[0]} figure {key[1]!r}, which the "
                             "catalog does not state"})
    return problems


# What may stand between a number and its unit in the documents: the other end of a
# range it opens ("60–70%", "120–140 tokens/sec": the unit is printed once, for both),
# spaces, LaTeX's "$...\\text{ GB}$", an opening parenthesis.
_UNIT_LEAD = re.compile(r"^(?:\s*[–-]\s*\d[\d,]*(?:\.\d+)?)?[\s$({]*(?:\\text\{\s*)?")


def printed_unit(after: str) -> str | None:
    """The unit a printed number is followed by ("GB", "tokens/sec", "Gi"), as the unit
    table spells it (claims.figures.unit_spellings); None when no unit follows."""
    rest = _UNIT_LEAD.sub("", after, count=1)
    for spelling in unit_spellings():
        if rest.startswith(spelling) and not rest[len(spelling):len(spelling) + 1].isalpha():
            return spelling
    return None


def printed_after(seed: Seed, anchor: FigureAnchor) -> str | None:
    """What the document prints right after the anchor's text (None: the text is not
    printed at the anchor)."""
    text = squash(anchor.text)
    start = seed.text.find(anchor.before + text)
    while start != -1:
        at = start + len(anchor.before)
        if seed.line_at(at) == anchor.line:
            return seed.text[at + len(text): at + len(text) + 48]
        start = seed.text.find(anchor.before + text, start + 1)
    return None


def unit_pin(fig: StatedFigure, after: str | None) -> str | None:
    """The ``unit`` an anchor of ``fig`` records: the printed unit after its text, when
    that names the figure's unit (a printed unit naming another one is for review, not a
    pin: the proposal leaves it out and the catalog or the anchor is corrected by hand)."""
    if fig.kind not in ("number", "range") or not fig.unit or after is None:
        return None
    spelling = printed_unit(after)
    return spelling if spelling is not None and fig.unit in units_printed_as(spelling) else None


def _unit_in_text(text: str) -> str:
    """What follows the first number inside an anchor's text ("over 4 GB" -> " GB"), for a
    text that prints the unit itself."""
    m = _NUMBER.search(text)
    return text[m.end():] if m else ""


def pinned_unit(fig: StatedFigure, text: str, after: str | None) -> str | None:
    """:func:`unit_pin` of the unit printed inside the anchor's text, else after it."""
    return unit_pin(fig, _unit_in_text(squash(text))) or unit_pin(fig, after)


def _unit_printed(seed: Seed, anchor: FigureAnchor) -> bool:
    """Whether the document prints the anchor's unit for its text: inside it ("over 4 GB"),
    right after it ("9.1 GB"), or, for a table's cell, as its column's header ("ttft_ms")
    in the lines above (TABLE_HEADER_CHARS)."""
    assert anchor.unit is not None
    after = printed_after(seed, anchor)
    if after is None:
        return False
    if anchor.unit in (printed_unit(_unit_in_text(squash(anchor.text))), printed_unit(after)):
        return True
    at = seed.text.find(anchor.before + squash(anchor.text) + after)
    above = seed.text[max(0, at - TABLE_HEADER_CHARS): at]
    return re.search(rf"[_\s(]{re.escape(anchor.unit)}(?![\w/])", above) is not None


def misplaced_figures(catalog: Catalog, documents: Path,
                      catalog_dir: Path = CATALOG_DIR) -> tuple[int, list[dict[str, str]]]:
    """Check every anchor in the documents: (anchors checked, one problem per anchor whose
    text the document does not print there)."""
    checked = 0
    problems: list[dict[str, str]] = []
    for doc in catalog.documents:
        seeds = seeds_of(documents, doc.id)
        try:
            # An anchor in a bundled file is checked by figure_problems, on every run.
            anchors = [a for a in load_anchors(doc.id, catalog_dir) if a.file is None]
        except AnchorError:
            continue  # figure_problems names it
        if not anchors:
            continue
        if seeds is None:
            problems.append({"doc": doc.id, "problem": (
                f"{doc.id}: its seeds ({', '.join(doc.seeds)}) are not all in {documents}")})
            continue
        by_name = {s.name: s for s in seeds}
        for a in anchors:
            checked += 1
            seed = by_name.get(a.seed)
            ok = seed is not None and anchored(seed, {"line": a.line, "before": a.before},
                                               a.text)
            if not ok:
                problems.append({"doc": doc.id, "problem": (
                    f"{a.claim} figure {a.figure!r}: {a.seed} does not print {a.text!r} at "
                    f"line {a.line} after {a.before!r}")})
            elif a.unit is not None and seed is not None and not _unit_printed(seed, a):
                problems.append({"doc": doc.id, "problem": (
                    f"{a.claim} figure {a.figure!r}: {a.seed} does not print the unit "
                    f"{a.unit!r} after {a.text!r} at line {a.line}")})
    return checked, problems


# --- proposing -----------------------------------------------------------------
def _forms(fig: StatedFigure) -> list[str]:
    if fig.kind == "number":
        assert fig.text is not None
        plain = fig.text.replace(",", "")
        forms = [fig.text, plain]
        value = parse_literal(fig.text).value
        if value == value.to_integral_value() and "." not in plain:
            forms.append(f"{int(value):,}")
            forms += [w for w, v in NUMBER_WORDS.items() if Decimal(str(v)) == value]
        return list(dict.fromkeys(forms))
    if fig.kind == "range":
        assert fig.low is not None and fig.high is not None
        return list(dict.fromkeys([fig.low, fig.low.replace(",", ""), fig.high,
                                   fig.high.replace(",", "")]))
    if fig.kind == "text":
        assert fig.text is not None
        return [squash(fig.text), squash(json.dumps(fig.text, ensure_ascii=False)[1:-1])]
    if fig.kind == "list":
        return [squash(fig.values[0])] if fig.values else []
    words = sorted(re.findall(r"[\w.:/-]{3,}", fig.name), key=len, reverse=True)
    return words[:3]


def document_span(seed: Seed, doc: Document) -> tuple[int, int]:
    """Where a document's text lies in a seed that may hold several posts."""
    start = seed.text.find(squash(doc.title))
    if start == -1:
        return 0, len(seed.text)
    nxt = seed.text.find("From API to GPU, Week", start + len(doc.title))
    return start, (nxt if nxt != -1 else len(seed.text))


def section_at(seed: Seed, doc: Document, section: str) -> int | None:
    """Where a section heading is printed in the document's span (backticks the heading
    prints around code are ignored: "(`PARAMETER`)" is the section "(PARAMETER)")."""
    lo, hi = document_span(seed, doc)
    pattern = "`*".join(re.escape(ch) for ch in squash(section).replace("`", ""))
    m = re.compile(pattern).search(seed.text, lo, hi)
    return None if m is None else m.start()


def claim_span(seed: Seed, doc: Document, claim: Claim) -> tuple[int, int] | None:
    """The claim's section in a seed: its heading to the next heading of the document;
    for a Q&A claim (its section or statement names questions: "Q46–Q50", "(Q48)"),
    from its first question to the question after its last."""
    lo, hi = document_span(seed, doc)
    q = re.search(r"\(Q(\d+)\)", claim.statement) or re.search(
        r"Q(\d+)(?:\s*[–-]\s*Q(\d+))?", claim.section)
    if q is not None:
        first = int(q.group(1))
        last = int(q.group(2)) if q.lastindex and q.lastindex > 1 and q.group(2) else first
        at = seed.text.find(f"Q{first}:", lo, hi)
        if at != -1:
            nxt = seed.text.find(f"Q{last + 1}:", at, hi)
            return at, (nxt if nxt != -1 else hi)
    start = section_at(seed, doc, claim.section)
    if start is None:
        return None
    later = [x for x in (section_at(seed, doc, t) for t in doc.sections)
             if x is not None and x > start]
    return start, min(later, default=hi)


def _inside_name(text: str, offset: int, form: str) -> bool:
    """Whether a number is part of a name ("Q18", "phi4", "BF16", "GB10", "Q5_K")."""
    if not form[:1].isdigit():
        return False
    before = text[offset - 1: offset] if offset else ""
    after = text[offset + len(form): offset + len(form) + 1]
    return before.isalpha() or before == "_" or after == "_"


def _context_hits(seed: Seed, offset: int, end: int, fig: StatedFigure) -> int:
    """How many of the figure's name words, and its unit right after it, are printed
    around an occurrence: a tie-breaker between equal numbers in one section."""
    around = seed.text[max(0, offset - 120): end + 120].lower()
    words = {w for w in re.findall(r"[a-z][a-z0-9_-]{2,}", fig.name.lower())}
    hits = sum(w in around for w in words)
    unit = (fig.unit or "").lower()
    if unit and seed.text[end: end + len(unit) + 2].lower().strip().startswith(unit[:2]):
        hits += 2
    return hits


def propose(doc: Document, claim: Claim, fig: StatedFigure,
            seeds: list[Seed]) -> FigureAnchor | None:
    """Where the document most likely prints ``fig``: an occurrence of its printed form in
    the claim's section, else the nearest after it, else the nearest before, in the
    document's own span of its seeds; within each, the occurrence with the figure's
    name words and unit around it. None: printed nowhere in the document."""
    best: tuple[tuple[int, int, int, int], Seed, int, str] | None = None
    for rank, seed in enumerate(seeds):
        lo, hi = document_span(seed, doc)
        span = claim_span(seed, doc, claim)
        for form in _forms(fig):
            if not form:
                continue
            for offset in seed.occurrences(form):
                if not lo <= offset < hi or _inside_name(seed.text, offset, form):
                    continue
                if span is None:
                    tier, gap = 3, offset
                elif span[0] <= offset < span[1]:
                    tier, gap = 0, offset - span[0]
                elif offset >= span[1]:
                    tier, gap = 1, offset - span[1]
                else:
                    tier, gap = 2, span[0] - offset
                hits = _context_hits(seed, offset, offset + len(form), fig)
                score = (rank, tier, -hits, gap)
                if best is None or score < best[0]:
                    best = (score, seed, offset, form)
    if best is None:
        return None
    _, seed, offset, form = best
    text = form
    if fig.kind == "range":
        assert fig.low is not None and fig.high is not None
        other = fig.high if form.replace(",", "") == fig.low.replace(",", "") else fig.low
        window = seed.text[offset: offset + len(form) + 600]
        for end in (other, other.replace(",", "")):
            at = window.find(end, len(form))
            if at != -1:
                text = window[: at + len(end)]
                break
            back = seed.text.rfind(end, max(0, offset - 600), offset)
            if back != -1:  # the other end is printed first (a table's earlier row)
                text = seed.text[back: offset + len(form)]
                offset = back
                break
    elif fig.kind == "list":
        window = seed.text[offset: offset + 1500]
        at = 0
        for value in fig.values:
            found = window.find(squash(value), at)
            if found == -1:
                return None
            at = found + len(squash(value))
        text = window[:at]
    before = seed.text[max(0, offset - BEFORE_CHARS): offset]
    after = seed.text[offset + len(text): offset + len(text) + 48]
    return FigureAnchor(claim.id, fig.name, seed.name, seed.line_at(offset), before, text,
                        says=fig.flag if fig.kind == "bool" else None,
                        unit=pinned_unit(fig, text, after))
