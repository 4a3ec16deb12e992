"""Every printed figure of every document, accounted for: judged, recorded, excluded or not.

* **judged**: a claim's stated figure is anchored there (``claims/catalog/<DOC>.anchors.toml``,
  ``[[anchor]]``): the anchor's printed text holds the figure and the figure is a value the
  claim states (:mod:`claims.text.credit`; the span's other figures are not credited);
* **recorded**: a transcribed value is anchored there (``fixtures/recorded/<DOC>.anchors.json``)
  and some claim test reads it (``fixtures/recorded/READ.json``, derived from a run of the
  claim tests: :mod:`claims.text.reads`); a value no test reads accounts for nothing;
* **untestable**: only an untestable claim's figure is anchored there: the catalog holds the
  claim and says why no test can judge it, so the figure is accounted for but not judged;
* **excluded**: a ledger entry covers it, with its kind and reason
  (:mod:`claims.text.ledger`);
* **unaccounted**: none of these.

The figures are those :mod:`claims.text.printed` finds in the document's text
(:mod:`claims.text.sources`). An anchor the text does not print where it says is
not counted and is listed in ``problems`` (the anchor checks fail on it too).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claims.catalog.loader import Catalog
from claims.catalog.records import Document
from claims.text.anchors import CATALOG_DIR, anchors_path, load_anchors
from claims.text.credit import credited, overreach
from claims.text.ledger import LedgerEntry, LedgerError, load_ledger
from claims.text.reads import load_reads
from claims.text.sources import Source, TextFigure, document_sources, read_sources
from claims.text.transcribed import anchored_at, figure_references, transcribed_values
from claims.text.transcribed import load_anchors as load_recorded_anchors

__all__ = ["ANCHORED", "STATUSES", "Accounting", "DocumentAccount", "Figure", "account"]

# In the order they outrank one another when more than one applies to a figure.
STATUSES = ("judged", "recorded", "untestable", "excluded", "unaccounted")
# Those an anchor gives (a claim's figure or a transcribed value): a ledger entry may
# not cover them, and a repeat must point at one.
ANCHORED = STATUSES[:3]
_ANCHORED_WORDS = f"{', '.join(ANCHORED[:-1])} or {ANCHORED[-1]}"


@dataclass
class Figure:
    """One printed figure and how it is accounted for."""

    at: TextFigure
    status: str = "unaccounted"
    claims: list[tuple[str, str]] = field(default_factory=list)  # (claim id, figure name)
    recorded: list[str] = field(default_factory=list)  # recorded value paths
    entry: LedgerEntry | None = None
    reason: str | None = None  # why the claim anchored there is untestable

    def promote(self, status: str) -> bool:
        """Give the figure ``status`` where it outranks the one it has (the order of
        STATUSES); whether it did."""
        if STATUSES.index(status) >= STATUSES.index(self.status):
            return False
        self.status = status
        return True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "document": self.at.document, "file": self.at.source, "line": self.at.line,
            "column": self.at.column, "text": self.at.text, "status": self.status,
        }
        if self.status in ("judged", "untestable"):
            out["claim"] = self.claims[0][0]
            out["figure"] = self.claims[0][1]
        if self.status == "untestable":
            out["reason"] = self.reason
        elif self.status == "recorded":
            out["recorded"] = self.recorded[0]
        elif self.status == "excluded" and self.entry is not None:
            out["kind"] = self.entry.kind
            out["reason"] = self.entry.reason
            out["ledger"] = self.entry.where
        return out


@dataclass
class DocumentAccount:
    """One document's figures, in the order printed (source by source)."""

    document: Document
    figures: list[Figure]
    # (kind, key) of each of its texts, in order (claims.text.sources.document_sources).
    sources: list[tuple[str, str]] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for f in self.figures if f.status == status)

    @property
    def printed(self) -> int:
        return len(self.figures)

    @property
    def accounted(self) -> int:
        return self.printed - self.count("unaccounted")

    @property
    def percent(self) -> float:
        return percent(self.accounted, self.printed)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.document.id, "printed": self.printed,
                **{s: self.count(s) for s in STATUSES}, "percent": self.percent}


def percent(accounted: int, printed: int) -> float:
    """Accounted share in percent, rounded down to 0.01 so 100 means every figure."""
    if printed == 0:
        return 100.0
    return (accounted * 10000 // printed) / 100


@dataclass
class Accounting:
    """The documents' accounts, the sources read, and the anchors' problems: not found
    where they say, or running over figures their claim does not state."""

    documents: list[DocumentAccount]
    sources: dict[tuple[str, str], Source]
    problems: list[str]

    @property
    def figures(self) -> list[Figure]:
        return [f for d in self.documents for f in d.figures]

    def totals(self) -> dict[str, Any]:
        figs = self.figures
        counts = {s: sum(1 for f in figs if f.status == s) for s in STATUSES}
        return {"printed": len(figs), **counts,
                "percent": percent(len(figs) - counts["unaccounted"], len(figs))}

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": self.totals(),
            "documents": [d.to_json() for d in self.documents],
            "figures": [f.to_json() for f in self.figures],
            "problems": self.problems,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"


def _overlapping(source: Source, span: tuple[int, int]) -> Iterable[TextFigure]:
    """The source's figures overlapping ``span`` (offsets in its collapsed text)."""
    return source.overlapping(*span)


def account(catalog: Catalog, seeds_dir: Path | None, root: Path,
            documents: Iterable[str] | None = None,
            catalog_dir: Path = CATALOG_DIR) -> Accounting:
    """Account for every printed figure of the catalog's documents (or those named).

    ``seeds_dir``: the folder of seed files; ``root``: the checkout (fixtures/recorded,
    fixtures/lab). Raises SourceError (a text missing or not text), LedgerError and
    AnchorError (a malformed or wrong entry), ReadsError (the record of what the claim
    tests read missing or malformed, when a document has transcribed values), each naming
    the file and entry."""
    wanted = set(documents) if documents is not None else None
    docs = [d for d in catalog.documents if wanted is None or d.id in wanted]
    sources = read_sources(docs, seeds_dir, root, catalog.documents)
    by_figure: dict[tuple[str, int, int], Figure] = {}
    for source in sources.values():
        for tf in source.figures:
            by_figure[(source.key, tf.line, tf.column)] = Figure(tf)
    key_of = {key: source for (_, key), source in sources.items()}
    problems: list[str] = []
    reads: dict[str, frozenset[str]] | None = None  # read when a document has transcriptions

    def mark(source: Source, span: tuple[int, int] | None, what: str, apply: Any,
             doc: str, only: Any = None) -> None:
        if span is None:
            problems.append(f"{what}: not printed there")
            return
        owner = source.owner[source.seed.line_at(span[0]) - 1]
        if owner != doc:
            # The anchor found its text, but in another document's part of a shared seed:
            # the same digits printed there by chance (a "0" starting a hex id).
            problems.append(f"{what}: that line is {owner}'s text, not {doc}'s")
        # ``only``: which of the span's figures the anchor credits (claims.text.credit).
        for tf in (_overlapping(source, span) if only is None else only(span)):
            apply(by_figure[(source.key, tf.line, tf.column)])

    for doc in docs:
        anchors = load_anchors(doc.id, catalog_dir)
        for a in anchors:
            src_key = a.file or a.seed
            found = key_of.get(src_key)
            where = f"{doc.id}: {a.claim} figure {a.figure!r} ({src_key} line {a.line})"
            if found is None:
                problems.append(f"{where}: not one of the document's texts")
                continue
            source = found
            span = anchored_at(source.seed, {"line": a.line, "before": a.before}, a.text)

            claim = catalog.get(a.claim) if a.claim in catalog else None
            # An anchor naming no claim of the catalog is the anchor checks' to fail.
            testable = claim is None or claim.testable
            why = claim.untestable_reason if claim is not None else None

            def judge(f: Figure, a: Any = a, testable: bool = testable,
                      reason: str | None = why) -> None:
                if not testable:
                    f.claims.append((a.claim, a.figure))
                    if f.promote("untestable"):
                        f.reason = reason
                    return
                # A claim that judges the figure comes before untestable ones anchored there.
                f.claims.insert(len(f.claims) if f.status == "judged" else 0,
                                (a.claim, a.figure))
                f.promote("judged")
                f.reason = None

            stated = next((f for f in claim.stated if f.name == a.figure), None) \
                if claim is not None else None

            def only(span: tuple[int, int], a: Any = a, stated: Any = stated,
                     source: Source = source, where: str = where,
                     claim: Any = claim) -> list[TextFigure]:
                # An anchor of no stated figure is the anchor checks' to fail: its span.
                if stated is None:
                    return list(_overlapping(source, span))
                extra = overreach(stated, a, source, span, claim.stated)
                if extra:
                    problems.append(
                        f"{where}: its text {a.text!r} runs over "
                        f"{', '.join(repr(f.text) for f in extra)}, which the claim does "
                        "not state: narrow the text to the figures it judges "
                        "(claims/text/credit.py)")
                return credited(stated, a, source, span, claim.stated)

            mark(source, span, where, judge, doc.id, only)
        rec_path = root / "fixtures" / "recorded" / f"{doc.id}.anchors.json"
        if rec_path.is_file():
            if reads is None:
                reads = load_reads(root)
            read = reads.get(doc.id, frozenset())
            rec_anchors = load_recorded_anchors(root, doc.id)
            # A value naming another document's catalog figure is printed in that document.
            printed_in = {ref.path: catalog.get(ref.claim).document
                          for ref in figure_references(root, doc.id) if ref.claim in catalog}
            for path, value in transcribed_values(root, doc.id, catalog):
                anchor = rec_anchors.get(path)
                if anchor is None:
                    continue  # the transcription test names it
                if path not in read:
                    # Transcribed, anchored, but no claim test reads it: it judges nothing,
                    # so it accounts for nothing (a claim's anchor or a ledger entry must).
                    continue
                src_key = str(anchor.get("file") or anchor.get("seed"))
                found = key_of.get(src_key)
                where = f"{doc.id}: recorded {path} ({src_key} line {anchor.get('line')})"
                if found is None:
                    problems.append(f"{where}: not one of the document's texts")
                    continue
                source = found

                def record(f: Figure, path: str = path) -> None:
                    f.promote("recorded")
                    f.recorded.append(path)

                mark(source, anchored_at(source.seed, anchor, value), where, record,
                     printed_in.get(path, doc.id))

    claim_ids = {c.id for d in catalog.documents for c in d.claims}
    for doc in docs:
        entries = load_ledger(anchors_path(doc.id, catalog_dir))
        _no_claim_rests(entries, claim_ids)
        _apply_ledger(doc, document_sources(doc, root), entries, sources, by_figure)

    accounts = []
    for doc in docs:
        keys = document_sources(doc, root)
        figs = [by_figure[(key, tf.line, tf.column)]
                for kind, key in keys
                for tf in sources[(kind, key)].figures if tf.document == doc.id]
        accounts.append(DocumentAccount(doc, figs, keys))
    return Accounting(accounts, sources, problems)


def _covered(entry: LedgerEntry, doc: Document, keys: list[tuple[str, str]],
             sources: dict[tuple[str, str], Source]) -> list[TextFigure]:
    """The figures of ``doc`` (whose texts are ``keys``) in the entry's scope (anchored or
    not)."""
    place = entry.place
    if place.key is not None:
        if (place.kind, place.key) not in keys:
            named = ", ".join(f"{k} {n}" for k, n in keys)
            raise LedgerError(f"{entry.where}: {place.kind} {place.key} is not one of "
                              f"{doc.id}'s texts ({named})")
        chosen = [sources[(place.kind or "seed", place.key)]]
    else:
        chosen = [sources[k] for k in keys]
    out: list[TextFigure] = []
    for source in chosen:
        if place.first is not None and place.last is not None:
            if place.last > len(source.lines):
                raise LedgerError(f"{entry.where}: {source.label} has {len(source.lines)} "
                                  f"lines, not {place.last}")
            owners = set(source.owner[place.first - 1 : place.last])
            if doc.id not in owners:
                raise LedgerError(f"{entry.where}: {entry.describe()} is not {doc.id}'s "
                                  f"text (it is {', '.join(sorted(str(o) for o in owners))}'s)")
        for tf in source.figures:
            if tf.document != doc.id:
                continue
            if place.first is not None and place.last is not None and not (
                    place.first <= tf.line <= place.last):
                continue
            if entry.text is not None and tf.text != entry.text:
                continue
            if entry.column is not None and tf.column != entry.column:
                continue
            out.append(tf)
    return out


# A claim id as the catalog writes them ("W5-FILES-AGREE", "MC-Q4_0").
_CLAIM_ID = re.compile(r"\b[A-Z][A-Z0-9]*-[A-Z0-9_.-]*[A-Z0-9]\b")


def _no_claim_rests(entries: list[LedgerEntry], claim_ids: set[str]) -> None:
    """An ``incidental`` figure is one no statement rests on: a reason that names a claim
    (which then checks it) contradicts its own kind. LedgerError names the entry."""
    for entry in entries:
        if entry.kind != "incidental":
            continue
        named = [c for c in _CLAIM_ID.findall(entry.reason) if c in claim_ids]
        if named:
            raise LedgerError(
                f"{entry.where}: kind 'incidental' says no statement rests on "
                f"{entry.describe()}, yet its reason names {named[0]}: a figure a claim "
                "checks is that claim's (a stated figure and its anchor, or a repeat of "
                "one), not incidental")


def _apply_ledger(doc: Document, keys: list[tuple[str, str]], entries: list[LedgerEntry],
                  sources: dict[tuple[str, str], Source],
                  by_figure: dict[tuple[str, int, int], Figure]) -> None:
    for entry in sorted(entries, key=lambda e: (e.rank, e.number)):
        covered = _covered(entry, doc, keys, sources)
        if not covered:
            raise LedgerError(f"{entry.where}: covers nothing: no figure of {doc.id} is "
                              f"printed as {entry.describe()}")
        figs = [by_figure[(tf.source, tf.line, tf.column)] for tf in covered]
        anchored = [f for f in figs if f.status in ANCHORED]
        if entry.scope == "figure" and anchored:
            by = anchored[0].claims[0][0] if anchored[0].claims else anchored[0].recorded[0]
            raise LedgerError(f"{entry.where}: overlaps an anchor: {entry.describe()} is "
                              f"{anchored[0].status} ({by})")
        if len(anchored) == len(figs):
            raise LedgerError(f"{entry.where}: overlaps anchors only: every figure of "
                              f"{entry.describe()} is {_ANCHORED_WORDS}")
        if entry.of is not None:
            _check_of(entry, sources, by_figure)
        for f in figs:
            if f.promote("excluded"):
                f.entry = entry


def _check_of(entry: LedgerEntry, sources: dict[tuple[str, str], Source],
              by_figure: dict[tuple[str, int, int], Figure]) -> None:
    of = entry.of
    assert of is not None and of.first is not None and of.last is not None
    source = sources.get((of.kind or "seed", of.key or ""))
    if source is None:
        raise LedgerError(f"{entry.where}: of: {of.kind} {of.key} is not a text of the "
                          "catalog's documents")
    if of.last > len(source.lines):
        raise LedgerError(f"{entry.where}: of: {source.label} has {len(source.lines)} lines, "
                          f"not {of.last}")
    if entry.kind == "copy":
        here = sources[(entry.place.kind or "seed", entry.place.key or "")]
        assert entry.place.first is not None and entry.place.last is not None
        mine = here.collapsed(entry.place.first, entry.place.last)
        theirs = source.collapsed(of.first, of.last)
        if mine != theirs:
            at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False))
                       if a != b), min(len(mine), len(theirs)))
            raise LedgerError(
                f"{entry.where}: the copy differs from {source.label} lines "
                f"{of.first}-{of.last} at character {at + 1}: "
                f"{mine[max(0, at - 20):at + 20]!r} vs {theirs[max(0, at - 20):at + 20]!r}")
        return
    # A repeat: the figure printed at ``of`` the same way, and anchored there (judged,
    # recorded, or an untestable claim's).
    there = [by_figure[(source.key, tf.line, tf.column)] for tf in source.figures_on(of.first)
             if tf.text == entry.text]
    if not there:
        raise LedgerError(f"{entry.where}: of: {source.label} line {of.first} does not "
                          f"print {entry.text!r}")
    if not any(f.status in ANCHORED for f in there):
        raise LedgerError(f"{entry.where}: of: {entry.text!r} at {source.label} line "
                          f"{of.first} is not {_ANCHORED_WORDS} there")
