"""Load and validate the catalog: one TOML file per source document.

Validation is strict because the catalog is the contract between the documents,
the tests and the report. A malformed catalog fails with one message naming the
file, the record and the problem, never a bare KeyError from deep inside.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, cast

from claims.catalog.records import (
    FORMS,
    FORMS_OF_KIND,
    TIMING_PROCEDURES,
    TIMING_QUANTITIES,
    Claim,
    Document,
    Erratum,
    FigureForm,
    FigureKind,
    StatedFigure,
)
from claims.catalog.wording import numbers_in
from claims.figures import parse_literal
from claims.file_cache import read_text
from claims.profiles import PROFILES
from claims.tiers import TIERS

__all__ = ["Catalog", "CatalogError", "covers", "is_catalog_file", "load_catalog", "load_document"]

# \Z, not $: "$" also matches before a final newline, so "W1-ARCH\n" passed.
ID_PATTERN = re.compile(r"[A-Z0-9]+(-[A-Z0-9_]+)+\Z")

_DOC_FIELDS = {"id", "title", "published", "seeds", "sections", "lab", "text", "hub"}
_CLAIM_FIELDS = {
    "id",
    "section",
    "statement",
    "tiers",
    "testable",
    "untestable_reason",
    "profile",
    "stated",
    "erratum",
    "note",
}
_FIGURE_FIELDS = {
    "name",
    "value",
    "unit",
    "low",
    "high",
    "values",
    "kind",
    "tolerance",
    "tolerance_reason",
    "model",
    "profile",
    "note",
    "particular",
    "form",
    "of",
    "reading",
    "source",
}
_ERRATUM_FIELDS = {"explanation", "refutes", "quotes"}
# The kinds of source an erratum's quote names (records.Erratum.quotes).
QUOTE_SOURCES = ("lab", "recorded", "ggml", "figure")
# A timing figure's quantity and procedure (claims.catalog.records.TIMING_QUANTITIES).
_TIMING_FIELDS = {"quantity", "procedure"}


class CatalogError(ValueError):
    """The catalog is malformed; the message names file, record and problem."""


@dataclass(frozen=True)
class Catalog:
    documents: tuple[Document, ...]
    # Claim id -> claim, and the documents it was built from: claim tests look claims up
    # thousands of times a run, and a scan per look-up grew with the square of the series
    # (issue 51). Rebuilt when ``documents`` is another tuple (the audit swaps it in place:
    # claims.audit.runner.swapped).
    _index: dict[str, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __iter__(self) -> Iterator[Claim]:
        for doc in self.documents:
            yield from doc.claims

    def __len__(self) -> int:
        return sum(len(d.claims) for d in self.documents)

    def _by_id(self) -> dict[str, Claim]:
        index = self._index
        before = index.get("of")
        if before is self.documents:
            found: dict[str, Claim] = index["claims"]
            return found
        if not (index.get("unique") and before is not None
                and self._update(index["claims"], before)):
            claims: dict[str, Claim] = {}
            for claim in self:
                claims.setdefault(claim.id, claim)  # the first, as a scan would find
            index["claims"] = claims
            index["unique"] = len(claims) == len(self)
        index["of"] = self.documents
        found = index["claims"]
        return found

    def _update(self, claims: dict[str, Claim], before: tuple[Document, ...]) -> bool:
        """Bring ``claims`` (the index of ``before``, every id once) up to the documents now,
        where they are ``before`` with some documents replaced in place (the audit swaps one
        document per rerun: indexing the whole series again for each grew with the square
        of the series). False, and nothing changed, when they are not."""
        if len(before) != len(self.documents):
            return False
        replaced = [(old, new) for old, new in zip(before, self.documents, strict=True)
                    if old is not new]
        if any(old.id != new.id for old, new in replaced):
            return False
        new_ids = [c.id for _, new in replaced for c in new.claims]
        old_ids = {c.id for old, _ in replaced for c in old.claims}
        # Ids stay unique only if the new documents bring no id another document holds.
        if len(set(new_ids)) != len(new_ids) or any(
                cid in claims and cid not in old_ids for cid in new_ids):
            return False
        for cid in old_ids:
            del claims[cid]
        for _, new in replaced:
            for claim in new.claims:
                claims[claim.id] = claim
        return True

    def __contains__(self, claim_id: object) -> bool:
        return isinstance(claim_id, str) and claim_id in self._by_id()

    def get(self, claim_id: str) -> Claim:
        try:
            return self._by_id()[claim_id]
        except (KeyError, TypeError):
            raise KeyError(f"unknown claim id {claim_id!r}") from None

    def document(self, doc_id: str) -> Document:
        for doc in self.documents:
            if doc.id == doc_id:
                return doc
        raise KeyError(f"unknown document {doc_id!r}")

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(c.id for c in self)


def _fail(where: str, problem: str) -> CatalogError:
    return CatalogError(f"{where}: {problem}")


def _unknown(where: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise _fail(where, f"unknown field(s) {', '.join(extra)}")


def _req_str(where: str, data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None:
        raise _fail(where, f"missing {key}")
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"{key} must be a non-empty string")
    return value


def _opt_str(where: str, data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"{key} must be a non-empty string when given")
    return value


def _quotes(where: str, data: Any, explanation: str) -> tuple[tuple[str, str], ...]:
    """An erratum's ``quotes`` table: each number the explanation prints, with its source."""
    if not isinstance(data, dict):
        raise _fail(where, "quotes must be a table of number = \"kind:document:path\"")
    out = []
    for number, source in data.items():
        if not isinstance(source, str) or source.count(":") < 2:
            raise _fail(where, f"quote {number!r}: the source must be a string "
                               "\"kind:document:path\"")
        kind = source.partition(":")[0]
        if kind not in QUOTE_SOURCES:
            raise _fail(where, f"quote {number!r}: unknown source kind {kind!r} (one of "
                               f"{', '.join(QUOTE_SOURCES)})")
        if all(m.group() != number for m in numbers_in(explanation)):
            raise _fail(where, f"quote {number!r}: the explanation does not print that number")
        out.append((number, source))
    return tuple(out)


def _str_list(where: str, data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(where, f"{key} must be a list of strings")
    return tuple(value)


def _lab_paths(where: str, data: Mapping[str, Any], key: str,
               folder: str = "fixtures/lab") -> tuple[str, ...]:
    """A list of paths under ``folder``: relative, forward slashes, no ``..``, each once."""
    paths = _str_list(where, data, key)
    for path in paths:
        parts = path.split("/")
        if (not path.strip() or path.startswith("/") or "\\" in path or path != path.strip()
                or any(part in ("", ".", "..") for part in parts)):
            raise _fail(where, f"{key}: {path!r} is not a path under {folder} "
                        "(relative, forward slashes, no '.' or '..' parts, no trailing '/')")
    dupes = sorted({p for p in paths if paths.count(p) > 1})
    if dupes:
        raise _fail(where, f"{key}: listed twice: {', '.join(dupes)}")
    return paths


def covers(folder_or_file: str, path: str) -> bool:
    """Whether a ``lab`` entry (a file or a folder under fixtures/lab) holds ``path``."""
    return path == folder_or_file or path.startswith(folder_or_file + "/")


def _figure(where: str, raw: Any) -> StatedFigure:
    if not isinstance(raw, dict):
        raise _fail(where, "each stated figure must be a table")
    _unknown(where, raw, _FIGURE_FIELDS | _TIMING_FIELDS)
    name = _req_str(where, raw, "name")
    where = f"{where}, figure {name!r}"
    unit = _opt_str(where, raw, "unit")
    kind = raw.get("kind")
    value = raw.get("value")
    low, high = raw.get("low"), raw.get("high")
    values = raw.get("values")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise _fail(where, 'write numbers as strings ("23.3") so their printed precision is kept')
    if kind is None:
        if low is not None or high is not None:
            kind = "range"
        elif values is not None:
            kind = "list"
        elif isinstance(value, bool):
            kind = "bool"
        elif isinstance(value, str):
            try:
                parse_literal(value)
                kind = "number"
            except ValueError:
                kind = "text"
        else:
            raise _fail(where, "needs value, low/high or values")
    if kind not in ("number", "range", "text", "list", "bool"):
        raise _fail(where, f"unknown kind {kind!r}")
    tolerance: Decimal | None = None
    if raw.get("tolerance") is not None:
        tol_text = raw["tolerance"]
        if not isinstance(tol_text, str):
            raise _fail(where, 'tolerance must be a string such as "0.1"')
        try:
            tolerance = Decimal(tol_text)
        except InvalidOperation:
            raise _fail(where, f"tolerance {tol_text!r} is not a number") from None
        if tolerance < 0:
            raise _fail(where, "tolerance must not be negative")
        if not raw.get("tolerance_reason"):
            raise _fail(where, "a set tolerance needs tolerance_reason")
    profile = _opt_str(where, raw, "profile")
    if profile is not None and profile not in PROFILES:
        raise _fail(where, f"unknown profile {profile!r} (known: {', '.join(PROFILES)})")
    form = _form(where, raw, kind)
    of = _opt_str(where, raw, "of")
    if form == "ratio" and of is None:
        raise _fail(where, 'a ratio names the figure it is over: of = "<figure name>"')
    if form != "ratio" and of is not None:
        raise _fail(where, f"of is for a ratio; this figure's form is {form!r}")
    if of == name:
        raise _fail(where, "a ratio cannot be over itself")
    fig = StatedFigure(
        name=name,
        kind=cast(FigureKind, kind),
        unit=unit,
        tolerance=tolerance,
        tolerance_reason=_opt_str(where, raw, "tolerance_reason"),
        model=_opt_str(where, raw, "model"),
        profile=profile,
        note=_opt_str(where, raw, "note"),
        particular=_opt_str(where, raw, "particular"),
        form=form,
        of=of,
        reading=_opt_str(where, raw, "reading"),
        source=_opt_str(where, raw, "source"),
    )
    quantity, procedure = _timing(where, raw)
    fig = _replace(fig, quantity=quantity, procedure=procedure)
    if fig.reading is not None and fig.source is not None:
        # A figure is either read from the document's words (anchored there) or
        # taken from elsewhere (not anchored): never both.
        raise _fail(where, "a figure is a reading of the document or has a source "
                    "elsewhere, not both")
    if kind == "number":
        if not isinstance(value, str):
            raise _fail(where, "a number needs value as a string")
        try:
            parse_literal(value)
        except ValueError as exc:
            raise _fail(where, str(exc)) from None
        return _replace(fig, text=value)
    if kind == "range":
        if not isinstance(low, str) or not isinstance(high, str):
            raise _fail(where, "a range needs low and high as strings")
        try:
            lo, hi = parse_literal(low), parse_literal(high)
        except ValueError as exc:
            raise _fail(where, str(exc)) from None
        if lo.value > hi.value:
            raise _fail(where, f"range low {low} is above high {high}")
        return _replace(fig, low=low, high=high)
    if kind == "list":
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise _fail(where, "a list needs values as a list of strings")
        return _replace(fig, values=tuple(values))
    if kind == "bool":
        if not isinstance(value, bool):
            raise _fail(where, "a bool figure needs value true or false")
        return _replace(fig, flag=value)
    if not isinstance(value, str):
        raise _fail(where, "a text figure needs value as a string")
    return _replace(fig, text=value)


def _form(where: str, raw: Mapping[str, Any], kind: str) -> FigureForm:
    """The figure's judged form: the catalog's ``form``, else the one its kind defaults to.

    Only a kind's first form is a default (a number is "equal", a list "list"): a
    bound or a membership is never guessed, it is written.
    """
    allowed = FORMS_OF_KIND[kind]
    form = raw.get("form")
    if form is None:
        return cast(FigureForm, allowed[0])
    if not isinstance(form, str) or form not in FORMS:
        raise _fail(where, f"unknown form {form!r} (known: {', '.join(FORMS)})")
    if form not in allowed:
        raise _fail(
            where,
            f"form {form!r} does not fit a {kind} figure (a {kind} is judged as: "
            f"{', '.join(allowed)})",
        )
    return cast(FigureForm, form)


def _timing(where: str, raw: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A timing figure's quantity and procedure: both or neither, from the known pairs."""
    quantity, procedure = _opt_str(where, raw, "quantity"), _opt_str(where, raw, "procedure")
    if quantity is None and procedure is None:
        return None, None
    if quantity is None or procedure is None:
        raise _fail(where, "a timing figure names both its quantity and its procedure")
    if quantity not in TIMING_QUANTITIES:
        raise _fail(where, f"unknown quantity {quantity!r} (known: "
                    f"{', '.join(TIMING_QUANTITIES)})")
    if TIMING_QUANTITIES[quantity] != procedure:
        raise _fail(where, f"{quantity!r} is measured {TIMING_QUANTITIES[quantity]!r}, "
                    f"not {procedure!r} (procedures: {', '.join(TIMING_PROCEDURES)})")
    return quantity, procedure


def _replace(fig: StatedFigure, **changes: Any) -> StatedFigure:
    from dataclasses import replace

    return replace(fig, **changes)


def _claim(where: str, raw: Any, doc: Document) -> Claim:
    if not isinstance(raw, dict):
        raise _fail(where, "each claim must be a table")
    cid = raw.get("id")
    if not isinstance(cid, str) or not ID_PATTERN.fullmatch(cid):
        raise _fail(where, f"claim id {cid!r} must look like W2-GGUF-MAGIC")
    where = f"{where.rsplit(',', 1)[0]}, claim {cid}"
    _unknown(where, raw, _CLAIM_FIELDS)
    if not cid.startswith(doc.id + "-"):
        raise _fail(where, f"id must start with the document id {doc.id}-")
    section = raw.get("section")
    if section is None or (isinstance(section, str) and not section.strip()):
        raise _fail(where, "missing section")
    if not isinstance(section, str):
        raise _fail(where, "section must be a string")
    if section not in doc.sections:
        raise _fail(where, f"section {section!r} is not one of the document's sections")
    statement = _req_str(where, raw, "statement")
    tiers = _str_list(where, raw, "tiers")
    if not tiers:
        raise _fail(where, "tiers must name at least one tier")
    for tier in tiers:
        if tier not in TIERS:
            raise _fail(where, f"bad tier {tier!r} (known: {', '.join(TIERS.names())})")
    testable = raw.get("testable", True)
    if not isinstance(testable, bool):
        raise _fail(where, "testable must be true or false")
    reason = _opt_str(where, raw, "untestable_reason")
    if not testable and not reason:
        raise _fail(where, "an untestable claim needs untestable_reason")
    if testable and reason:
        raise _fail(where, "untestable_reason given for a testable claim")
    profile = _opt_str(where, raw, "profile")
    if profile is not None and profile not in PROFILES:
        raise _fail(where, f"unknown profile {profile!r} (known: {', '.join(PROFILES)})")
    raw_figures = raw.get("stated", [])
    if not isinstance(raw_figures, list):
        raise _fail(where, "stated must be a list of tables")
    figures = tuple(_figure(where, f) for f in raw_figures)
    names = [f.name for f in figures]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise _fail(where, f"duplicate figure name(s) {', '.join(dupes)}")
    for fig in figures:
        if fig.of is not None:
            base = next((f for f in figures if f.name == fig.of), None)
            if base is None:
                raise _fail(
                    f"{where}, figure {fig.name!r}",
                    f"ratio over unknown figure {fig.of!r} (the claim states: "
                    f"{', '.join(repr(n) for n in names)})",
                )
            if base.kind != "number":
                raise _fail(
                    f"{where}, figure {fig.name!r}",
                    f"ratio over {fig.of!r}, a {base.kind}, not a number",
                )
    erratum = None
    if raw.get("erratum") is not None:
        e = raw["erratum"]
        if not isinstance(e, dict):
            raise _fail(where, "erratum must be a table")
        _unknown(f"{where}, erratum", e, _ERRATUM_FIELDS)
        refutes = _str_list(f"{where}, erratum", e, "refutes")
        for name in refutes:
            if name not in names:
                raise _fail(where, f"erratum refutes unknown figure {name!r}")
        explanation = _req_str(f"{where}, erratum", e, "explanation")
        erratum = Erratum(explanation=explanation, refutes=refutes,
                          quotes=_quotes(f"{where}, erratum", e.get("quotes", {}), explanation))
        if not testable:
            raise _fail(where, "an untestable claim cannot carry an erratum")
    return Claim(
        id=cid,
        document=doc.id,
        section=section,
        statement=statement,
        tiers=tiers,
        testable=testable,
        untestable_reason=reason,
        profile=profile,
        stated=figures,
        erratum=erratum,
        note=_opt_str(where, raw, "note"),
    )


def load_document(path: Path | str, text: str | None = None) -> Document:
    """Parse one catalog file. ``text`` overrides reading ``path`` (for tests).

    A file is parsed and validated once per process for each text it holds
    (:func:`_parse`), and read again only when it changed (:mod:`claims.file_cache`: a
    ``stat`` otherwise): the claim tests ask for the catalog hundreds of times a run, and
    reading and parsing it each time was most of the offline tier's time (issue 51).
    """
    path = Path(path)
    if text is None:
        try:
            text = read_text(path)
        except OSError as exc:
            raise _fail(path.name, f"cannot read: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise _fail(path.name, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return _parse(path.name, text)


# Documents are frozen records (nothing in the suite edits one in place: the audit's
# swaps build new ones), so one parsed copy can be shared by every caller. A bound: each
# distinct text of a file is one entry (room for a long series: scripts/bench-series.py
# grows it to 48 documents), and tests parse many small made-up catalogs.
@lru_cache(maxsize=1024)
def _parse(where: str, text: str) -> Document:
    """One catalog file's text parsed and validated (``where``: the file's name)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _fail(where, f"not valid TOML: {exc}") from None
    _unknown(where, data, {"document", "claim"})
    raw_doc = data.get("document")
    if not isinstance(raw_doc, dict):
        raise _fail(where, "missing [document] table")
    _unknown(f"{where}, [document]", raw_doc, _DOC_FIELDS)
    doc_id = _req_str(f"{where}, [document]", raw_doc, "id")
    doc = Document(
        id=doc_id,
        title=_req_str(f"{where}, [document]", raw_doc, "title"),
        published=_opt_str(f"{where}, [document]", raw_doc, "published"),
        seeds=_str_list(f"{where}, [document]", raw_doc, "seeds"),
        sections=_str_list(f"{where}, [document]", raw_doc, "sections"),
        lab=_lab_paths(f"{where}, [document]", raw_doc, "lab"),
        text=_lab_paths(f"{where}, [document]", raw_doc, "text"),
        hub=_lab_paths(f"{where}, [document]", raw_doc, "hub", "fixtures/hub"),
    )
    if not doc.sections:
        raise _fail(where, "[document] lists no sections")
    for path in doc.text:
        # The document's own text is a file it relies on: listing it under lab
        # too keeps "which documents does this lab file fail" one list.
        if not any(covers(entry, path) for entry in doc.lab):
            raise _fail(f"{where}, [document]", f"text: {path!r} is not inside any "
                        f"of lab ({', '.join(doc.lab) or 'none listed'})")
    raw_claims = data.get("claim", [])
    if not isinstance(raw_claims, list):
        raise _fail(where, "claims must be written as [[claim]] tables")
    claims = tuple(_claim(f"{where}, claim #{i + 1}", c, doc) for i, c in enumerate(raw_claims))
    ids = [c.id for c in claims]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise _fail(where, f"duplicate id(s) {', '.join(dupes)}")
    return Document(
        id=doc.id,
        title=doc.title,
        published=doc.published,
        seeds=doc.seeds,
        sections=doc.sections,
        claims=claims,
        lab=doc.lab,
        text=doc.text,
        hub=doc.hub,
    )


def is_catalog_file(name: str) -> bool:
    """A document's catalog file (``W2.toml``), not its figures' anchors
    (``W2.anchors.toml``, :mod:`claims.text.anchors`)."""
    return name.endswith(".toml") and not name.endswith(".anchors.toml")


def _bundled_files() -> list[Path]:
    base = resources.files("claims.catalog")
    return sorted(Path(str(p)) for p in base.iterdir() if is_catalog_file(p.name))


def load_catalog(paths: Iterable[Path | str] | None = None) -> Catalog:
    """Load every catalog file (default: the bundled ones, claims/catalog/*.toml).

    Ids must be unique across files; documents come back in series order.
    """
    # A figures' anchors file beside its catalog (claims/catalog/*.toml as a shell expands
    # it) is not a document: it is read by claims.text.anchors, not here.
    files = ([Path(p) for p in paths if is_catalog_file(Path(p).name)] if paths is not None
             else _bundled_files())
    if not files:
        raise CatalogError("no catalog files found")
    docs = tuple(load_document(p) for p in files)
    # A new Catalog each call (the audit swaps a catalog's documents in place: a shared
    # one would show a swap to every caller), its documents checked and ordered once per
    # set of parsed documents.
    return Catalog(documents=_series(docs))


# Keyed by the parsed documents' identities (each document is parsed once per text, so
# an unchanged catalog gives the same objects); the documents themselves are kept in the
# value, so an id is never reused while its entry lives.
_SERIES: dict[tuple[int, ...], tuple[tuple[Document, ...], tuple[Document, ...]]] = {}
_SERIES_KEPT = 64


def _series(docs: tuple[Document, ...]) -> tuple[Document, ...]:
    """``docs`` checked (ids unique across files) and in the series' order."""
    key = tuple(id(d) for d in docs)
    hit = _SERIES.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], docs, strict=True)):
        return hit[1]
    seen: dict[str, str] = {}
    for doc in docs:
        for claim in doc.claims:
            if claim.id in seen:
                raise CatalogError(
                    f"{doc.id}: claim {claim.id}: duplicate id (also in {seen[claim.id]})"
                )
            seen[claim.id] = doc.id
    doc_ids = [d.id for d in docs]
    if len(set(doc_ids)) != len(doc_ids):
        raise CatalogError(f"duplicate document id among {', '.join(doc_ids)}")
    # The series' order is its documents' own: by publication date, the undated
    # (the masterclass) last, each date's documents by id.
    ordered = tuple(sorted(docs, key=lambda d: (d.published is None, d.published or "", d.id)))
    if len(_SERIES) >= _SERIES_KEPT:
        _SERIES.clear()
    _SERIES[key] = (docs, ordered)
    return ordered
