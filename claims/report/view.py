"""From an evidence document to what the report page shows.

The template only lays out what this module prepares: documents in series
order, their sections in document order, each claim with its citation,
verdict, reason and the hint that would run it, one table of stated against
measured values across all of its checks, and the plots drawn from the checks'
charts. Evidence is read defensively (``.get`` with defaults): the schema
guarantees few keys, and a report must render for an interrupted or older run.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from claims.report import machine
from claims.report.hints import not_applicable_hint, run_hint
from claims.report.plots import CHART_KINDS, ChartError, render_chart, svg_with_prefix
from claims.verdicts import DESCRIPTIONS, PRIORITY, VERDICTS, check_verdict

__all__ = ["ORDER", "SOURCES", "build_view"]

# Summary order: the verdicts a reader must act on first, untestable last.
ORDER: tuple[str, ...] = (*PRIORITY, "untestable")
SOURCES: dict[str, str] = {
    "recorded": "figures the document itself printed, checked for consistency",
    "fixture": "bundled or generated artifacts, measured on this machine",
    "live": "measured live on this machine (server, GPU, engine or Hub)",
}
STATUS_HELP: dict[str, str] = {
    "holds": "the measured value agrees with the stated figure within the tolerance",
    "fails": "the measured value contradicts the stated figure",
    "erratum": "does not hold, as the catalog's erratum for this claim expects",
    "context": "measured for context; no statement is compared with it",
    "na": "stated for another model or machine profile; recorded, not compared",
}
OUTCOME_TEXT: dict[str, str] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "xfailed": "failed as the erratum expects",
    "xpassed": "passed unexpectedly",
    "error": "error",
}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str(value: Any, default: str = "") -> str:
    return default if value is None else str(value)


@dataclass
class Figure:
    number: int
    kind: str
    title: str
    source: str
    nodeid: str
    claims: list[str]
    svg: str | None
    problem: str | None

    def placed(self, where: str) -> str:
        """The SVG with ids unique to one placement on the page."""
        return svg_with_prefix(self.svg or "", f"f{self.number}-{where}-")


@dataclass
class Section:
    number: int | None
    name: str
    claims: list[dict[str, Any]] = field(default_factory=list)
    untestable: list[dict[str, Any]] = field(default_factory=list)


def _interval(value: Any) -> str | None:
    m = _mapping(value)
    lo, hi = m.get("lo"), m.get("hi")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
        # Bounds come from printed figures (few significant digits); 12 keep a
        # 1,000,000,000 +/- 0.5 interval readable where 6 would print 1e+09 to 1e+09.
        return f"{lo:,.12g} to {hi:,.12g}"
    return None


def _measurement_row(
    m: Mapping[str, Any], check: Mapping[str, Any], erratum: Mapping[str, Any]
) -> dict[str, Any]:
    holds = m.get("holds")
    compared = m.get("compared", True)
    refutes = set(_list(erratum.get("refutes")))
    if m.get("applicable") is False:
        status, label = "na", "not applicable"
    elif not compared:
        status, label = "context", "context"
    elif holds:
        status, label = "holds", "holds"
    elif erratum and (not refutes or m.get("name") in refutes):
        status, label = "erratum", "does not hold (known erratum)"
    else:
        status, label = "fails", "does not hold"
    measured = m.get("measured_display")
    if measured is None:
        measured = machine.text(m.get("measured"))
        if m.get("unit"):
            measured += f" {m['unit']}"
    stated = m.get("stated_display")
    if stated is None and m.get("stated") is not None:
        stated = machine.text(m.get("stated"))
    return {
        "name": _str(m.get("name"), "?"),
        "stated": stated,
        "measured": _str(measured),
        "unit": m.get("unit"),
        "tolerance": m.get("tolerance"),
        "accepts": _interval(m.get("expected_interval")),
        "status": status,
        "status_text": label,
        "status_help": STATUS_HELP[status],
        "note": m.get("note"),
        "source": _str(check.get("source"), "fixture"),
        "nodeid": _str(check.get("nodeid")),
    }


class _Figures:
    """Numbers each chart once (a check serving two claims appears in both)."""

    def __init__(self) -> None:
        self.all: list[Figure] = []
        self._by_key: dict[tuple[str, int], Figure] = {}

    def add(
        self, claim_id: str, check: Mapping[str, Any], index: int, chart: Mapping[str, Any]
    ) -> Figure:
        key = (_str(check.get("nodeid")), index)
        found = self._by_key.get(key)
        if found is not None:
            if claim_id not in found.claims:
                found.claims.append(claim_id)
            return found
        kind = _str(chart.get("kind"), "?")
        source = _str(check.get("source"), "fixture")
        title = _str(chart.get("title")) or CHART_KINDS.get(kind, kind)
        svg = problem = None
        try:
            svg = render_chart(chart)
        except ChartError as exc:
            problem = str(exc)
        except Exception as exc:  # a plot must never cost the whole report
            problem = f"{type(exc).__name__}: {exc}"
        fig = Figure(len(self.all) + 1, kind, title, source, key[0], [claim_id], svg, problem)
        self.all.append(fig)
        self._by_key[key] = fig
        return fig


def _seconds(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value < 0.001:
        return "< 1 ms"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def _check_view(check: Mapping[str, Any]) -> dict[str, Any]:
    verdict = check_verdict(check) if check.get("outcome") else "error"
    outcome = _str(check.get("outcome"), "error")
    message = check.get("message")
    hint = None
    if verdict == "not-run":
        hint = run_hint(_list(check.get("tiers")), message)
    elif verdict == "not-applicable":
        hint = not_applicable_hint(_mapping(check.get("applies_to")))
    duration = check.get("duration_s")
    return {
        "nodeid": _str(check.get("nodeid"), "?"),
        "outcome": outcome,
        "outcome_text": (
            "expected to fail, with no catalogued erratum"
            if outcome == "xfailed" and verdict == "error"
            else OUTCOME_TEXT.get(outcome, outcome)
        ),
        "verdict": verdict,
        "source": _str(check.get("source"), "fixture"),
        "duration": _seconds(duration),
        "message": message,
        "hint": hint,
        "tiers": _list(check.get("tiers")),
        "attachments": [
            {
                "label": _str(a.get("label"), "evidence"),
                "kind": _str(a.get("kind"), "text"),
                "content": _str(a.get("content")),
                "truncated": bool(a.get("truncated")),
            }
            for a in _list(check.get("attachments"))
            if isinstance(a, Mapping)
        ],
        "facts": [(str(k), machine.text(v)) for k, v in _mapping(check.get("facts")).items()],
        "notes": [str(n) for n in _list(check.get("notes"))],
        "ran": outcome not in ("skipped",)
        and not (outcome == "failed" and check.get("failure") == "not-run"),
    }


def _claim_view(claim: Mapping[str, Any], figures: _Figures) -> dict[str, Any]:
    cid = _str(claim.get("id"), "?")
    verdict = _str(claim.get("verdict"), "error")
    erratum = _mapping(claim.get("erratum"))
    checks = [c for c in _list(claim.get("checks")) if isinstance(c, Mapping)]
    rows: list[dict[str, Any]] = []
    figs: list[Figure] = []
    for check in checks:
        for m in _list(check.get("measurements")):
            if isinstance(m, Mapping):
                rows.append(_measurement_row(m, check, erratum))
        for index, chart in enumerate(_list(check.get("charts"))):
            if isinstance(chart, Mapping):
                figs.append(figures.add(cid, check, index, chart))
    reason = claim.get("reason")
    tiers = [str(t) for t in _list(claim.get("tiers"))]
    hint = None
    if verdict == "not-run":
        check_tiers = [t for c in checks for t in _list(c.get("tiers"))] or tiers
        hint = run_hint(check_tiers, _str(reason), cid, selected=bool(checks))
    elif verdict == "not-applicable":
        owner = next((c for c in checks if check_verdict(c) == "not-applicable"), {})
        hint = not_applicable_hint(_mapping(owner.get("applies_to")))
    compared_names = {r["name"] for r in rows}
    stated = [
        {
            "name": _str(f.get("name")),
            "display": _str(f.get("display")),
            "scope": ", ".join(_str(x) for x in (f.get("model"), f.get("profile")) if x),
        }
        for f in _list(claim.get("stated"))
        if isinstance(f, Mapping) and _str(f.get("name")) not in compared_names
    ]
    check_views = [_check_view(c) for c in checks]
    if not reason and verdict in ("error", "refuted"):
        # e.g. an unexpected pass (xpassed) carries no message: say what happened instead.
        deciding = next((k for k in check_views if k["verdict"] == verdict), None)
        if deciding is not None:
            reason = deciding["message"] or f"{deciding['nodeid']}: {deciding['outcome_text']}"
    return {
        "id": cid,
        "verdict": verdict,
        "statement": _str(claim.get("statement")),
        "section": _str(claim.get("section")),
        "tiers": tiers,
        "profile": claim.get("profile"),
        "reason": reason,
        "hint": hint,
        "erratum": erratum.get("explanation"),
        "untestable_reason": claim.get("untestable_reason"),
        "note": claim.get("note"),
        "rows": rows,
        "sources": sorted({c["source"] for c in check_views if c["ran"]}),
        "stated": stated,
        "checks": check_views,
        "erratum_holds": any(c.get("failure") == "erratum-holds" for c in checks),
        "figures": figs,
    }


def _documents(evidence: Mapping[str, Any], figures: _Figures) -> list[dict[str, Any]]:
    claims = [c for c in _list(evidence.get("claims")) if isinstance(c, Mapping)]
    metas = [d for d in _list(evidence.get("documents")) if isinstance(d, Mapping) and d.get("id")]
    known = {str(d["id"]) for d in metas}
    # Claims of a document the evidence does not describe still get shown, last.
    for claim in claims:
        doc_id = _str(claim.get("document"), "?")
        if doc_id not in known:
            known.add(doc_id)
            metas.append(
                {"id": doc_id, "title": claim.get("document_title") or doc_id, "sections": []}
            )
    out = []
    for meta in metas:
        doc_id = str(meta["id"])
        inside = [c for c in claims if _str(c.get("document"), "?") == doc_id]
        names = [str(s) for s in _list(meta.get("sections"))]
        sections = {name: Section(i + 1, name) for i, name in enumerate(names)}
        for claim in inside:
            name = _str(claim.get("section"), "(no section)")
            if name not in sections:
                sections[name] = Section(None, name)
            view = _claim_view(claim, figures)
            (
                sections[name].claims
                if view["verdict"] != "untestable"
                else sections[name].untestable
            ).append(view)
        counts = Counter(c["verdict"] for s in sections.values() for c in s.claims + s.untestable)
        total = sum(counts.values())
        seeds = [str(s) for s in _list(meta.get("seeds"))]
        out.append(
            {
                "id": doc_id,
                "title": _str(meta.get("title"), doc_id),
                "published": meta.get("published"),
                "seeds": seeds,
                "sections": [s for s in sections.values() if s.claims or s.untestable],
                "counts": counts,
                "total": total,
                "testable": total - counts["untestable"],
                "checked": total - counts["untestable"] - counts["not-run"],
                "bar": [(v, counts[v], 100.0 * counts[v] / total) for v in ORDER if counts[v]]
                if total
                else [],
            }
        )
    return out


def _duration(run: Mapping[str, Any]) -> str | None:
    try:
        start = datetime.fromisoformat(_str(run.get("started")))
        end = datetime.fromisoformat(_str(run.get("finished")))
    except ValueError:
        return None
    seconds = (end - start).total_seconds()
    if seconds < 0:
        return None
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _facts(evidence: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Facts checks recorded (digests, versions), with the claims that recorded them."""
    by_key: dict[str, dict[str, Any]] = {}
    for claim in _list(evidence.get("claims")):
        for check in _list(_mapping(claim).get("checks")):
            for key, value in _mapping(_mapping(check).get("facts")).items():
                entry = by_key.setdefault(
                    str(key), {"key": str(key), "value": machine.text(value), "claims": []}
                )
                cid = _str(_mapping(claim).get("id"))
                if cid not in entry["claims"]:
                    entry["claims"].append(cid)
    for key, value in _mapping(_mapping(evidence.get("run")).get("facts")).items():
        by_key.setdefault(str(key), {"key": str(key), "value": machine.text(value), "claims": []})
    return sorted(
        by_key.values(), key=lambda e: (not _is_model_fact(e["key"], e["value"]), e["key"].lower())
    )


_MODEL_FACT = re.compile(r"(?i)digest|sha256|model|ollama|engine|llama|gguf|blob|manifest")
_SHA256 = re.compile(r"(?i)(sha256[:-])?[0-9a-f]{64}")


def _is_model_fact(key: str, value: str) -> bool:
    """Facts that identify what was measured: model names, digests, engine versions."""
    return bool(_MODEL_FACT.search(key) or _SHA256.fullmatch(value))


def _tier_rows(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for tier, status in _mapping(run.get("tier_status")).items():
        status = _mapping(status)
        details = {k: v for k, v in status.items() if k not in ("available", "reason")}
        rows.append(
            {
                "tier": str(tier),
                "available": bool(status.get("available")),
                "reason": status.get("reason"),
                "details": machine.text(details) if details else "",
            }
        )
    return rows


def build_view(evidence: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the template needs, computed once."""
    run = _mapping(evidence.get("run"))
    figures = _Figures()
    documents = _documents(evidence, figures)
    totals = Counter(v for d in documents for v, n in d["counts"].items() for _ in range(n))
    all_tiers = sorted(
        {
            t
            for d in documents
            for s in d["sections"]
            for c in s.claims + s.untestable
            for t in c["tiers"]
        },
        key=lambda t: (
            ("offline", "engine", "ollama", "gpu", "hub").index(t)
            if t in ("offline", "engine", "ollama", "gpu", "hub")
            else 9
        ),
    )
    args = [str(a) for a in _list(run.get("args"))]
    return {
        "run": run,
        "started": _str(run.get("started"), "unknown"),
        "finished": _str(run.get("finished"), "unknown"),
        "duration": _duration(run),
        "complete": bool(run.get("complete")),
        "command": ("pytest " + shlex.join(args)) if args else None,
        "markexpr": _str(run.get("markexpr")),
        "profile": _str(run.get("profile"), "generic"),
        "fingerprint": machine.fingerprint(run),
        "options": machine.options(run),
        "tiers_status": _tier_rows(run),
        "facts": (facts := _facts(evidence)),
        "model_facts": [f for f in facts if _is_model_fact(f["key"], f["value"])],
        "documents": documents,
        "figures": figures.all,
        "totals": totals,
        "total": sum(totals.values()),
        "order": ORDER,
        "verdicts": VERDICTS,
        "descriptions": DESCRIPTIONS,
        "sources": SOURCES,
        "all_tiers": all_tiers,
        "unknown_checks": [
            {"claim": _str(_mapping(u).get("claim")), "nodeid": _str(_mapping(u).get("nodeid"))}
            for u in _list(evidence.get("unknown_claim_checks"))
        ],
    }


def verdict_sentence(totals: Mapping[str, int], order: Sequence[str]) -> str:
    parts = [f"{totals[v]} {v.replace('-', ' ')}" for v in order if totals.get(v)]
    return ", ".join(parts)
