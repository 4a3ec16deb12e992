"""The annotated documents: one self-contained page per document, and an index.

Like coverage.py's HTML: each document's text as printed, line by line with its numbers,
every figure marked: judged ones with their claim's verdict (from an evidence file) and
linked to that claim in the report (``report.html#<claim id>``, the id the report gives
each claim), recorded ones marked, excluded ones greyed with the ledger's reason beside
them, unaccounted ones flagged. The index lists each document's counts and percent.

The document text is untrusted: the templates autoescape everything, control and bidi
characters are shown as visible escapes (:func:`claims.terminal.safe_lines`), and the
pages carry the report's strict Content-Security-Policy with no script at all, so no
text from a document can run or fetch anything.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from claims.evidence import write_atomic
from claims.report.html import content_security_policy
from claims.terminal import safe_lines
from claims.text.measure import STATUSES, Accounting, DocumentAccount, Figure
from claims.text.sources import Source

__all__ = ["INDEX", "page_name", "render_document", "render_index", "verdicts_of",
           "write_pages"]

INDEX = "index.html"
_ENV: jinja2.Environment | None = None


def _visible(value: Any) -> Any:
    if isinstance(value, str) and not isinstance(value, Markup):
        return safe_lines(value)
    return value


def _environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = jinja2.Environment(
            loader=jinja2.PackageLoader("claims.text", "templates"),
            autoescape=True, trim_blocks=True, lstrip_blocks=True,
            undefined=jinja2.StrictUndefined, finalize=_visible,
        )
    return _ENV


def page_name(doc_id: str) -> str:
    """The file name of a document's page (catalog ids are [A-Z0-9-]: safe as names)."""
    return f"{doc_id}.html"


def verdicts_of(evidence: Any) -> dict[str, str]:
    """Claim id -> verdict, from an evidence document (claims.evidence.load_evidence)."""
    return {str(c["id"]): str(c["verdict"]) for c in evidence.get("claims", [])}


@dataclass
class _Segment:
    text: str
    status: str | None = None  # None: plain text
    href: str | None = None
    title: str = ""
    verdict: str | None = None
    anchor: str | None = None  # an id on the mark (unaccounted ones: u-<n>)


@dataclass
class _Row:
    number: int
    segments: list[_Segment]
    note: str = ""
    gap: bool = False  # a "…" row standing for another document's lines


@dataclass
class _Block:
    label: str
    rows: list[_Row] = field(default_factory=list)


def _mark(fig: Figure, verdicts: dict[str, str] | None, report_href: str, n: int) -> _Segment:
    seg = _Segment(fig.at.text, fig.status)
    if fig.status == "judged":
        claim, name = fig.claims[0]
        seg.href = f"{report_href}#{claim}"
        verdict = (verdicts or {}).get(claim) if verdicts is not None else None
        seg.verdict = verdict or ("not in the evidence" if verdicts is not None else None)
        others = ", ".join(f"{c} ({f})" for c, f in fig.claims[1:])
        seg.title = (f"judged: {claim} ({name})" + (f"; also {others}" if others else "")
                     + (f" — {seg.verdict}" if seg.verdict else ""))
    elif fig.status == "untestable":
        claim, name = fig.claims[0]
        seg.href = f"{report_href}#{claim}"
        seg.title = f"untestable: {claim} ({name}): {fig.reason}"
    elif fig.status == "recorded":
        seg.title = "recorded: " + ", ".join(fig.recorded)
    elif fig.status == "excluded" and fig.entry is not None:
        seg.title = f"excluded ({fig.entry.kind}): {fig.entry.reason}"
    else:
        seg.title = "unaccounted: no claim judges it, no value records it, no ledger entry"
        seg.anchor = f"u-{n}"
    return seg


def _blocks(acc: Accounting, account: DocumentAccount, verdicts: dict[str, str] | None,
            report_href: str) -> list[_Block]:
    doc_id = account.document.id
    figs: dict[tuple[str, int], list[Figure]] = {}
    for f in account.figures:
        figs.setdefault((f.at.source, f.at.line), []).append(f)
    unaccounted = 0
    blocks = []
    for kind, key in account.sources:
        source: Source = acc.sources[(kind, key)]
        block = _Block(source.label)
        noted: set[int] = set()
        previous_own = True
        for number, line in enumerate(source.lines, 1):
            if source.owner[number - 1] != doc_id:
                if previous_own and block.rows:
                    block.rows.append(_Row(number, [_Segment("…")], gap=True))
                previous_own = False
                continue
            previous_own = True
            segments: list[_Segment] = []
            at = 0
            notes = []
            for f in sorted(figs.get((key, number), []), key=lambda f: f.at.column):
                start = f.at.column - 1
                segments.append(_Segment(line[at:start]))
                if f.status == "unaccounted":
                    unaccounted += 1
                segments.append(_mark(f, verdicts, report_href, unaccounted))
                at = start + len(f.at.text)
                if f.entry is not None and f.entry.number not in noted:
                    noted.add(f.entry.number)
                    notes.append(f"{f.entry.kind}: {f.entry.reason}")
            segments.append(_Segment(line[at:]))
            block.rows.append(_Row(number, [s for s in segments if s.text], "; ".join(notes)))
        blocks.append(block)
    return blocks


def render_document(acc: Accounting, account: DocumentAccount,
                    verdicts: dict[str, str] | None, report_href: str) -> str:
    """One document's annotated page. ``verdicts``: None when no evidence was given;
    ``report_href``: the report page, relative to this page."""
    template = _environment().get_template("document.html.j2")
    doc = account.document
    return template.render(
        doc=doc, counts=account.to_json(), blocks=_blocks(acc, account, verdicts, report_href),
        has_verdicts=verdicts is not None, report_href=report_href, index=INDEX,
        statuses=STATUSES,
        csp=content_security_policy(),
    ).lstrip()


def render_index(acc: Accounting, evidence_note: str) -> str:
    template = _environment().get_template("index.html.j2")
    rows = [(d.document, d.to_json(), page_name(d.document.id)) for d in acc.documents]
    return template.render(rows=rows, totals=acc.totals(), note=evidence_note,
                           statuses=STATUSES, csp=content_security_policy()).lstrip()


def write_pages(acc: Accounting, out: Path, verdicts: dict[str, str] | None,
                report: Path, evidence_note: str = "") -> Path:
    """Write the index and one page per document into ``out``; the index's path.
    ``report``: the report page the judged figures link into."""
    out.mkdir(parents=True, exist_ok=True)
    href = Path(os.path.relpath(report, out)).as_posix()
    for account in acc.documents:
        write_atomic(out / page_name(account.document.id),
                     render_document(acc, account, verdicts, href))
    write_atomic(out / INDEX, render_index(acc, evidence_note))
    return out / INDEX
