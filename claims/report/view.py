"""From an evidence document to what the report page shows.

The template only lays out what this module prepares: first the answer
(pytest's counts and exit status, the refuted and error claims, then the
not-run ones with what would run them), then documents in series order, their
sections in document order, each claim with its citation by title and section,
verdict, reason and the hint that would run it, one table per check of stated
against measured values, and the plots drawn from the checks' charts.

Recorded is not measured: a check whose source is ``recorded`` compared the
claim with figures the document itself printed, so its values appear under
"the document printed", never under "measured here", and its charts say so.
Evidence is read defensively (``.get`` with defaults): the schema guarantees
few keys, and a report must render for an interrupted or older run.
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
from claims.report.audit_view import audit_view
from claims.report.hints import not_applicable_hint, run_hint
from claims.report.plots import (
    CHART_KINDS,
    SOURCE_LABELS,
    ChartError,
    render_chart,
    svg_with_prefix,
)
from claims.tiers import TIERS
from claims.verdicts import DESCRIPTIONS, PRIORITY, VERDICTS, check_verdict

__all__ = ["NOTATION", "ORDER", "SOURCES", "build_view", "value_text"]

# Summary order: the verdicts a reader must act on first, untestable last.
ORDER: tuple[str, ...] = (*PRIORITY, "untestable")
SOURCES: dict[str, str] = {
    "recorded": "figures the document itself printed, checked for consistency",
    "fixture": "bundled or generated artifacts, measured on this machine",
    "live": "measured live on this machine (server, GPU, engine or Hub)",
}
# The column a check's values go in: the document's own figures are never "measured".
VALUE_COLUMN: dict[str, str] = {
    "recorded": "The document printed",
    "fixture": "Measured here (bundled files)",
    "live": "Measured here (live)",
}
NOTATION: tuple[tuple[str, str], ...] = (
    ("12 to 14 GB", "a range: the accepted range of a stated figure (its printed precision or "
     "the catalog's tolerance), or a measured value computed from printed figures, which "
     "carries their rounding"),
    ("holds", "a measured number holds when it lies inside the accepted range; a measured "
     "range holds when it overlaps the accepted range (some value it stands for agrees)"),
    ("a, b, c", "a list, compared item by item (or as a set where the claim says so)"),
    ("true / false", "a yes-or-no figure, compared exactly; text is compared exactly too"),
)
# Claims shown open: refutations, errors and errata (the ones to read); the rest fold.
OPEN_VERDICTS = frozenset({"refuted", "error", "known-erratum"})
STATUS_HELP: dict[str, str] = {
    "holds": "the measured value agrees with the stated figure within the tolerance",
    "fails": "the measured value contradicts the stated figure",
    "erratum": "does not hold, as the catalog's erratum for this claim expects",
    "context": "measured for context; no statement is compared with it",
    "na": "stated for another model or machine profile; recorded, not compared",
}
# pytest's outcomes in the report's words. "error" is a verdict here (nothing was
# decided), so pytest's own "error" (an exception outside the test function: a fixture,
# setup or teardown) is called what it is, a setup or teardown failure.
OUTCOME_TEXT: dict[str, str] = {
    "passed": "passed",
    "failed": "failed",
    "skipped": "skipped",
    "xfailed": "failed as the erratum expects",
    "xpassed": "passed unexpectedly",
    "error": "failed in setup or teardown",
}
PYTEST_COUNT_TEXT: dict[str, str] = {
    "error": "setup/teardown failures",
    "xfailed": "xfailed (known errata)",
}
# Verdicts that decide a claim either way (the others say why it was not decided).
DECIDED = frozenset({"reproduced", "consistent", "refuted", "known-erratum"})


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

    @property
    def source_label(self) -> str:
        return SOURCE_LABELS.get(self.source, self.source)

    def placed(self, where: str) -> str:
        """The SVG with ids unique to one placement on the page."""
        return svg_with_prefix(self.svg or "", f"f{self.number}-{where}-")


@dataclass
class Section:
    number: int | None
    name: str
    claims: list[dict[str, Any]] = field(default_factory=list)
    untestable: list[dict[str, Any]] = field(default_factory=list)


def _bound(x: float) -> str:
    # Bounds come from printed figures (few significant digits); 12 keep a
    # 1,000,000,000 +/- 0.5 interval readable where 6 would print 1e+09 to 1e+09.
    return f"{x:,.12g}"


def _interval(value: Any) -> str | None:
    m = _mapping(value)
    lo, hi = m.get("lo", m.get("low")), m.get("hi", m.get("high"))
    if isinstance(lo, bool) or isinstance(hi, bool):
        return None
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
        return _bound(lo) if lo == hi else f"{_bound(lo)} to {_bound(hi)}"
    return None


def value_text(value: Any, display: Any = None, unit: Any = None) -> str:
    """A measured or stated value in the report's notation (see :data:`NOTATION`).

    Numbers and text keep the display the check wrote (its unit and precision);
    ranges, lists, booleans and objects are written from the JSON value, so no
    Python notation ("[1, 2]" for a range, "True", "{'key': ...}") reaches a cell.
    """
    suffix = f" {unit}" if isinstance(unit, str) and unit else ""
    if isinstance(value, bool):
        return "true" if value else "false"
    interval = _interval(value)
    if interval is not None:
        return interval + suffix
    if isinstance(value, list):
        return ", ".join(value_text(v) for v in value) if value else "(empty list)"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {value_text(v)}" for k, v in value.items()) or "(empty)"
    if display is not None:
        return str(display)
    if value is None:
        return "—"
    return machine.text(value) + suffix


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
    if m.get("non_finite"):
        status, label = "fails", "probe error (non-finite value)"
    unit = m.get("unit")
    measured = value_text(m.get("measured"), m.get("measured_display"), unit)
    if m.get("non_finite"):
        measured = f"not a finite number ({_str(m.get('measured'))})"
    raw_stated = m.get("stated")
    stated = None
    if raw_stated is not None or m.get("stated_display") is not None:
        if isinstance(raw_stated, Mapping) and m.get("stated_display") is not None:
            # A stated range: the catalog prints "50–75 %"; the page writes ranges one way.
            stated = _str(m.get("stated_display")).replace("–", " to ", 1)
        elif isinstance(raw_stated, (bool, list, Mapping)):
            stated = value_text(raw_stated, None, unit if isinstance(raw_stated, Mapping) else None)
        else:
            stated = value_text(raw_stated, m.get("stated_display"), unit)
    return {
        "name": _str(m.get("name"), "?"),
        "stated": stated,
        "measured": measured,
        "unit": m.get("unit"),
        "tolerance": m.get("tolerance"),
        "accepts": _interval(m.get("expected_interval")),
        "status": status,
        "status_text": label,
        "status_help": (
            STATUS_HELP[status].replace("the measured value", "the document's recorded value")
            if check.get("source") == "recorded"
            else STATUS_HELP[status]
        ),
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
            svg = render_chart(chart, source)
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
        tiers = [str(t) for t in _list(check.get("tiers"))]
        # An offline check ran here and could not decide: "run pytest -m offline" would
        # repeat this run; only an option or package its reason names is advice.
        ran_offline = not any(TIERS.is_live(t) for t in tiers)
        if not ran_offline or _flag_or_package(_str(message)):
            hint = run_hint(tiers, message)
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
        "simulated": bool(check.get("simulated")),
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


def _tables(
    checks: Sequence[Mapping[str, Any]], erratum: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """One table per check: a recorded check's values and a live check's never share a column."""
    tables = []
    for check in checks:
        rows = [
            _measurement_row(m, check, erratum)
            for m in _list(check.get("measurements"))
            if isinstance(m, Mapping)
        ]
        if not rows:
            continue
        source = _str(check.get("source"), "fixture")
        tables.append(
            {
                "source": source,
                "nodeid": _str(check.get("nodeid"), "?"),
                "column": VALUE_COLUMN.get(source, "Measured here"),
                "caption": SOURCES.get(source, source),
                "rows": rows,
            }
        )
    return tables


def _claim_view(claim: Mapping[str, Any], figures: _Figures, doc_title: str) -> dict[str, Any]:
    cid = _str(claim.get("id"), "?")
    verdict = _str(claim.get("verdict"), "error")
    erratum = _mapping(claim.get("erratum"))
    checks = [c for c in _list(claim.get("checks")) if isinstance(c, Mapping)]
    tables = _tables(checks, erratum)
    rows = [r for t in tables for r in t["rows"]]
    figs: list[Figure] = []
    for check in checks:
        for index, chart in enumerate(_list(check.get("charts"))):
            if isinstance(chart, Mapping):
                figs.append(figures.add(cid, check, index, chart))
    reason = claim.get("reason")
    tiers = [str(t) for t in _list(claim.get("tiers"))]
    hint = hint_general = None
    if verdict == "not-run":
        check_tiers = [t for c in checks for t in _list(c.get("tiers"))] or tiers
        hint = run_hint(check_tiers, _str(reason), cid, selected=bool(checks))
        # The same advice without this claim's --claim: the outcome list groups by it.
        hint_general = run_hint(check_tiers, _str(reason), selected=bool(checks))
        if checks and not any(TIERS.is_live(t) for t in check_tiers):
            # Its offline checks ran in this very run and could not decide it: "run pytest
            # -m offline" would repeat that run. A live tier of the claim would decide it.
            live = [t for t in tiers if TIERS.is_live(t)]
            if live and not _flag_or_package(_str(reason)):
                hint = run_hint(live, "", cid, selected=True)
                hint_general = run_hint(live, "", selected=True)
            elif not _flag_or_package(_str(reason)):
                hint = hint_general = (
                    "its offline checks ran and could not decide it here: see the reason"
                )
    elif verdict == "not-applicable":
        owner = next((c for c in checks if check_verdict(c) == "not-applicable"), {})
        hint = not_applicable_hint(_mapping(owner.get("applies_to")))
    compared_names = {r["name"] for r in rows}
    stated = [
        {
            "name": _str(f.get("name")),
            "display": _str(f.get("display")).replace("–", " to ", 1)
            if f.get("kind") == "range"
            else _str(f.get("display")),
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
    erratum_holds = any(c.get("failure") == "erratum-holds" for c in checks)
    return {
        "id": cid,
        "verdict": verdict,
        "statement": _str(claim.get("statement")),
        "section": _str(claim.get("section")),
        "document_title": doc_title,
        "tiers": tiers,
        "profile": claim.get("profile"),
        "reason": reason,
        "hint": hint,
        "hint_general": hint_general,
        "erratum": erratum.get("explanation"),
        "untestable_reason": claim.get("untestable_reason"),
        "note": claim.get("note"),
        "rows": rows,
        "tables": tables,
        "sources": sorted({c["source"] for c in check_views if c["ran"]}),
        "stated": stated,
        "checks": check_views,
        "erratum_holds": erratum_holds,
        "figures": figs,
        # Open what a reader must act on; fold what holds, is untestable or did not run.
        "open": verdict in OPEN_VERDICTS or erratum_holds,
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
            view = _claim_view(claim, figures, _str(meta.get("title"), doc_id))
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


PYTEST_ORDER = ("passed", "failed", "error", "skipped", "xfailed", "xpassed", "deselected")


def _flag_or_package(reason: str) -> bool:
    """Whether the reason names an option or a package to install (its own precise hint)."""
    return run_hint([], reason) != run_hint([], "")


def _asked_live(run: Mapping[str, Any]) -> list[str]:
    """The live tiers the run asked for: named in its -m expression (not after "not"), or
    all of them under --claims-require-live with no expression."""
    words = _str(run.get("markexpr")).replace("(", " ").replace(")", " ").split()
    named = [w for i, w in enumerate(words)
             if TIERS.is_live(w) and (i == 0 or words[i - 1] != "not")] if words else []
    if not named and not words and _mapping(run.get("options")).get("require_live"):
        return list(TIERS.live())
    return list(dict.fromkeys(named))


def _decided_live(claims: Sequence[Mapping[str, Any]]) -> int:
    return sum(
        1 for c in claims
        if any(ch.get("source") == "live" and ch.get("verdict") in DECIDED
               for ch in _list(c.get("checks")))
    )


def _outcome(run: Mapping[str, Any], documents: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The answer to "did this run pass, and what failed", from pytest and the verdicts."""
    pytest_info = _mapping(run.get("pytest"))
    status = pytest_info.get("exit_status")
    code = status if isinstance(status, int) and not isinstance(status, bool) else None
    raw_counts = pytest_info.get("counts")
    counts = (
        [(k, n) for k in PYTEST_ORDER if isinstance(n := _mapping(raw_counts).get(k), int)]
        if isinstance(raw_counts, Mapping)
        else None
    )
    claims = [
        c for d in documents for s in d["sections"] for c in s.claims if isinstance(c, Mapping)
    ]
    # With --claim, the claims left out were not selected, not "not run".
    chosen = {str(x) for x in _list(_mapping(run.get("options")).get("claim_ids"))}
    if chosen:
        claims = [c for c in claims if c["id"] in chosen]
    failing = [c for c in claims if c["verdict"] in ("refuted", "error") or c["erratum_holds"]]
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for c in claims:
        if c["verdict"] == "not-run":
            groups.setdefault(_str(c["hint_general"], "see the reason"), []).append(c)
    not_run = [
        {"hint": hint, "claims": members}
        for hint, members in sorted(groups.items(), key=lambda kv: -len(kv[1]))
    ]
    reason = ""
    if code is None:
        verdict = "unknown"
        headline = "pytest's outcome was not recorded (an interrupted run, or older evidence)"
    elif code == 0:
        verdict = "passed"
        headline = "The run passed"
        decided = sum(1 for c in claims if c["verdict"] in DECIDED)
        live = _asked_live(run)
        down = [f"{t}: {_str(_mapping(st).get('reason'))}"
                for t, st in _mapping(run.get("tier_status")).items()
                if not _mapping(st).get("available")]
        why = f" ({'; '.join(down)})" if down else ""
        if not decided:
            verdict, headline = "undecided", "Nothing was checked"
            reason = (
                f"pytest passed, but none of the {len(claims)} claims was decided: each was "
                f"not run, not applicable or untestable{why}; the reasons are below"
            )
        elif live and not _decided_live(claims):
            verdict, headline = "undecided", "Nothing was decided live"
            reason = (
                f"the run asked for the {', '.join(live)} tier, and no claim was decided "
                f"on a live system{why}"
            )
    else:
        verdict = "failed"
        headline = "The run failed"
    if run.get("simulated"):
        headline += " (simulated: through the suite's fakes, not on a real machine)"
    return {
        "state": verdict,
        "headline": headline,
        "exit_status": code,
        "meaning": reason if verdict == "undecided" else _str(pytest_info.get("meaning")) or None,
        "counts": counts,
        "count_text": PYTEST_COUNT_TEXT,
        "selected_claims": sorted(chosen),
        "failing": failing,
        "not_run": not_run,
        "not_run_total": sum(len(g["claims"]) for g in not_run),
    }


def _banners(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    banners: list[dict[str, Any]] = []
    interrupted = _mapping(run.get("interrupted"))
    if interrupted:
        test = interrupted.get("test")
        during = (f" while {_str(test)} was running (for {_str(interrupted.get('test_seconds'))} s"
                  "; it reads as an error: nothing was decided)") if test else " between two tests"
        banners.append({"id": "interrupted", "bad": True, "title": "Stopped by a signal.",
                        "text": f"The run was stopped by {_str(interrupted.get('by'))}{during}. "
                                "The evidence and this page were still written; the duration "
                                "is the run's true one."})
    ollama = _mapping(_mapping(run.get("machine")).get("ollama"))
    tier = _mapping(_mapping(run.get("tier_status")).get("ollama"))
    if ollama.get("remote") or tier.get("remote"):
        host = _str(ollama.get("host") or tier.get("host"))
        banners.append({"id": "remote-ollama", "bad": False, "title": "Remote Ollama server.",
                        "text": f"The ollama tier measured the server at {host}, another "
                                "machine: its figures are that machine's, not this one's."})
    fakes = [_str(x) for x in _list(run.get("simulated"))]
    if not fakes:
        return banners
    return [*banners, {
        "id": "simulated", "bad": True, "title": "Simulated run.",
        "text": f"This run went through the suite's own stand-ins ({', '.join(fakes)}), not "
                "real hardware or servers. What it shows is the fakes' scripted or recorded "
                "output: no claim here was reproduced on any machine, and checks that "
                "passed through a fake read “not run”."}]


def _provenance(run: Mapping[str, Any]) -> dict[str, str]:
    suite = _mapping(run.get("suite"))
    out: dict[str, str] = {}
    out["Suite version"] = _str(suite.get("version"), "not recorded")
    commit = suite.get("git_commit")
    if commit:
        dirty = " (with uncommitted changes)" if suite.get("git_dirty") else ""
        out["Git commit"] = f"{commit}{dirty}"
    else:
        out["Git commit"] = "not recorded (not a git checkout)" if suite else "not recorded"
    out["Catalog SHA-256"] = _str(suite.get("catalog_sha256"), "not recorded")
    out.update(_inputs(_mapping(run.get("inputs"))))
    return out


def _inputs(inputs: Mapping[str, Any]) -> dict[str, str]:
    """What the transcribed figures were checked against (claims.plugin.inputs)."""
    if not inputs:
        return {}
    out: dict[str, str] = {}
    manifest = _mapping(inputs.get("manifest"))
    if manifest:
        problems = [_str(_mapping(p).get("file")) for p in _list(manifest.get("problems"))]
        out["Transcribed fixtures"] = (
            f"{manifest.get('checked')} files against {_str(manifest.get('manifest'))}: "
            + (f"changed: {', '.join(problems)}" if problems else "unchanged")
        )
    tr = _mapping(inputs.get("transcription"))
    if tr.get("ran"):
        files = ", ".join(
            f"{_str(_mapping(d).get('file'))} (SHA-256 {_str(_mapping(d).get('sha256'))})"
            for d in _list(tr.get("documents"))
        )
        misplaced = len(_list(tr.get("misplaced")))
        out["Transcription check"] = (
            f"ran: {tr.get('values')} values against {files}; "
            + (f"{misplaced} not where their anchors say" if misplaced else "all at their anchors")
        )
    elif tr:
        out["Transcription check"] = f"not run: {_str(tr.get('reason'))}"
    return out


def build_view(evidence: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the template needs, computed once."""
    run = _mapping(evidence.get("run"))
    figures = _Figures()
    documents = _documents(evidence, figures)
    # The Figures section shows what this run measured first, then the documents'
    # own figures: number them in that reading order.
    figures.all.sort(key=lambda f: f.source == "recorded")
    for number, fig in enumerate(figures.all, start=1):
        fig.number = number
    totals = Counter(v for d in documents for v, n in d["counts"].items() for _ in range(n))
    all_tiers = sorted(
        {
            t
            for d in documents
            for s in d["sections"]
            for c in s.claims + s.untestable
            for t in c["tiers"]
        },
        key=TIERS.order,
    )
    args = [str(a) for a in _list(run.get("args"))]
    return {
        "run": run,
        "outcome": _outcome(run, documents),
        "provenance": _provenance(run),
        "notation": NOTATION,
        # Page-wide notices (an interrupted run; other tiers add theirs, e.g. simulated data).
        "banners": _banners(run),
        "started": _str(run.get("started"), "unknown"),
        "finished": _str(run.get("finished"), "unknown"),
        "duration": _duration(run),
        "complete": bool(run.get("complete")),
        "command": ("pytest " + shlex.join(args)) if args else None,
        "markexpr": _str(run.get("markexpr")),
        "profile": _str(run.get("profile"), "generic"),
        "profile_reason": _str(_mapping(run.get("profile_choice")).get("reason")),
        "simulated": [_str(x) for x in _list(run.get("simulated"))],
        "fingerprint": machine.fingerprint(run),
        "server": machine.server_line(run),
        "options": machine.options(run),
        "tiers_status": _tier_rows(run),
        "facts": (facts := _facts(evidence)),
        "model_facts": [f for f in facts if _is_model_fact(f["key"], f["value"])],
        "documents": documents,
        "figures": figures.all,
        "figures_measured": [f for f in figures.all if f.source != "recorded"],
        "figures_recorded": [f for f in figures.all if f.source == "recorded"],
        "totals": totals,
        "total": sum(totals.values()),
        "order": ORDER,
        "verdicts": VERDICTS,
        "descriptions": DESCRIPTIONS,
        "sources": SOURCES,
        "all_tiers": all_tiers,
        "audit": audit_view(evidence),
        "unknown_checks": [
            {"claim": _str(_mapping(u).get("claim")), "nodeid": _str(_mapping(u).get("nodeid"))}
            for u in _list(evidence.get("unknown_claim_checks"))
        ],
    }


def verdict_sentence(totals: Mapping[str, int], order: Sequence[str]) -> str:
    parts = [f"{totals[v]} {v.replace('-', ' ')}" for v in order if totals.get(v)]
    return ", ".join(parts)
