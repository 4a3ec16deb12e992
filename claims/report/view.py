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
Evidence arrives as the writer built it or as :func:`claims.evidence.load_evidence`
validated it: a key the schema requires is read as such, an optional one with
``.get``, so an interrupted, older or hand-made run that passes the schema renders.
"""

from __future__ import annotations

import math
import re
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from claims.records import (
    PYTEST_COUNTS,
    Chart,
    CheckRecord,
    ClaimRecord,
    DocumentRecord,
    ErratumRecord,
    Evidence,
    Inputs,
    Measurement,
    Run,
)
from claims.report import machine
from claims.report.accounting_view import accounting_view
from claims.report.audit_view import audit_view
from claims.report.hints import not_applicable_hint, run_hint
from claims.report.in_words import in_words
from claims.report.plots import (
    CHART_KINDS,
    SOURCE_LABELS,
    ChartError,
    caption,
    render_chart,
    svg_with_prefix,
)
from claims.tiers import OLLAMA, TIERS
from claims.verdicts import DESCRIPTIONS, PRIORITY, VERDICTS, Verdict, check_verdict

__all__ = ["NOTATION", "ORDER", "SOURCES", "build_view", "value_text"]

# Summary order: the verdicts a reader must act on first, untestable last.
ORDER: tuple[Verdict, ...] = (*PRIORITY, Verdict.UNTESTABLE)
SOURCES: dict[str, str] = {
    "recorded": "figures the document itself printed, checked for consistency",
    "fixture": "bundled or generated artifacts, measured on this machine",
    "live": "measured live on this machine (server, GPU, engine or Hub)",
}
# The column a check's values go in: the document's own figures are never "measured".
VALUE_COLUMN: dict[str, str] = {
    "recorded": "From the document's figures",
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
OPEN_VERDICTS = frozenset({Verdict.REFUTED, Verdict.ERROR, Verdict.KNOWN_ERRATUM})
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
DECIDED = frozenset(
    {Verdict.REPRODUCED, Verdict.CONSISTENT, Verdict.REFUTED, Verdict.KNOWN_ERRATUM}
)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


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
    # What the chart shows, and why an odd-looking value is what it is (plots.caption).
    caption: str = ""

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
    m: Measurement, check: CheckRecord, erratum: ErratumRecord | None
) -> dict[str, Any]:
    holds = m["holds"]
    compared = m.get("compared", True)
    refutes = set(erratum["refutes"]) if erratum else set()
    if m.get("applicable") is False:
        status, label = "na", "not applicable"
    elif not compared:
        status, label = "context", "context"
    elif holds:
        status, label = "holds", "holds"
    elif erratum and (not refutes or m["name"] in refutes):
        status, label = "erratum", "does not hold (known erratum)"
    else:
        status, label = "fails", "does not hold"
    if m.get("non_finite"):
        status, label = "fails", "probe error (non-finite value)"
    unit = m.get("unit")
    measured = value_text(m["measured"], m.get("measured_display"), unit)
    derived = check["source"] == "recorded" and _derived_range(m["measured"], unit)
    if derived:
        # A range computed from printed (rounded) figures: at the precision that tells its
        # ends apart, not the twelve digits of the arithmetic; the note says it was derived.
        measured = derived
    if m.get("non_finite"):
        measured = f"not a finite number ({_str(m['measured'])})"
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
        "name": m["name"],
        "stated": stated,
        "measured": measured,
        "unit": m.get("unit"),
        "tolerance": m.get("tolerance"),
        "accepts": _interval(m.get("expected_interval")),
        "status": status,
        "status_text": label,
        "status_help": (
            STATUS_HELP[status].replace("the measured value", "the document's recorded value")
            if check["source"] == "recorded"
            else STATUS_HELP[status]
        ),
        "note": (
            "; ".join(x for x in (m.get("note"), "derived from the document's printed figures, "
                                  "at their printed precision") if x)
            if derived else m.get("note")
        ),
        "source": check["source"],
        "nodeid": check["nodeid"],
    }


def _derived_range(value: Any, unit: Any) -> str | None:
    """``129.4 to 131.0 GB`` for a derived range: one decimal more than its width needs."""
    m = _mapping(value)
    lo, hi = m.get("lo"), m.get("hi")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
               for x in (lo, hi)):
        return None
    assert isinstance(lo, (int, float)) and isinstance(hi, (int, float))
    width = abs(hi - lo)
    if width == 0:
        return None
    decimals = max(0, min(12, 1 - math.floor(math.log10(width))))
    suffix = f" {unit}" if isinstance(unit, str) and unit else ""
    return f"{lo:,.{decimals}f} to {hi:,.{decimals}f}{suffix}"


class _Figures:
    """Numbers each chart once (a check serving two claims appears in both)."""

    def __init__(self) -> None:
        self.all: list[Figure] = []
        self._by_key: dict[tuple[str, int], Figure] = {}

    def add(self, claim_id: str, check: CheckRecord, index: int, chart: Chart) -> Figure:
        key = (check["nodeid"], index)
        found = self._by_key.get(key)
        if found is not None:
            if claim_id not in found.claims:
                found.claims.append(claim_id)
            return found
        kind = chart["kind"]
        source = check["source"]
        title = chart["title"] or CHART_KINDS.get(kind, kind)
        svg = problem = None
        try:
            svg = render_chart(chart, source)
        except ChartError as exc:
            problem = str(exc)
        except Exception as exc:  # a plot must never cost the whole report
            problem = f"{type(exc).__name__}: {exc}"
        fig = Figure(len(self.all) + 1, kind, title, source, key[0], [claim_id], svg, problem,
                     caption(chart))
        self.all.append(fig)
        self._by_key[key] = fig
        return fig


def _seconds(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value < 0.001:
        return "< 1 ms"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def _check_view(check: CheckRecord) -> dict[str, Any]:
    verdict = check_verdict(check)
    outcome = check["outcome"]
    message = check.get("message")
    hint = None
    if verdict == Verdict.NOT_RUN:
        tiers = check.get("tiers", [])
        # An offline check ran here and could not decide: "run pytest -m offline" would
        # repeat this run; only an option or package its reason names is advice.
        ran_offline = not any(TIERS.is_live(t) for t in tiers)
        if not ran_offline or _flag_or_package(_str(message)):
            hint = run_hint(tiers, message)
    elif verdict == Verdict.NOT_APPLICABLE:
        hint = not_applicable_hint(check.get("applies_to", {}))
    return {
        "nodeid": check["nodeid"],
        "outcome": outcome,
        "outcome_text": (
            "expected to fail, with no catalogued erratum"
            if outcome == "xfailed" and verdict == Verdict.ERROR
            else OUTCOME_TEXT[outcome]
        ),
        "verdict": verdict,
        "simulated": check.get("simulated", False),
        "source": check["source"],
        "duration": _seconds(check.get("duration_s")),
        "message": message,
        "hint": hint,
        "tiers": check.get("tiers", []),
        "attachments": [
            {
                "label": a["label"],
                "kind": a["kind"],
                "content": a["content"],
                "truncated": a.get("truncated", False),
            }
            for a in check.get("attachments", [])
        ],
        "facts": [(k, machine.text(v)) for k, v in check.get("facts", {}).items()],
        "notes": check.get("notes", []),
        "ran": outcome != "skipped"
        and not (outcome == "failed" and check.get("failure") == "not-run"),
    }


def _tables(checks: Sequence[CheckRecord], erratum: ErratumRecord | None) -> list[dict[str, Any]]:
    """One table per check: a recorded check's values and a live check's never share a column."""
    tables = []
    for check in checks:
        rows = [_measurement_row(m, check, erratum) for m in check["measurements"]]
        if not rows:
            continue
        source = check["source"]
        tables.append(
            {
                "source": source,
                "nodeid": check["nodeid"],
                "column": VALUE_COLUMN.get(source, "Measured here"),
                "caption": SOURCES.get(source, source),
                "rows": rows,
            }
        )
    return tables


def _claim_view(claim: ClaimRecord, figures: _Figures, doc_title: str) -> dict[str, Any]:
    cid = claim["id"]
    verdict = claim["verdict"]
    erratum = claim.get("erratum")
    checks = claim["checks"]
    tables = _tables(checks, erratum)
    rows = [r for t in tables for r in t["rows"]]
    figs: list[Figure] = []
    for check in checks:
        for index, chart in enumerate(check.get("charts", [])):
            figs.append(figures.add(cid, check, index, chart))
    reason = claim.get("reason")
    tiers = claim["tiers"]
    hint = hint_general = None
    if verdict == Verdict.NOT_RUN:
        check_tiers = [t for c in checks for t in c.get("tiers", [])] or tiers
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
    elif verdict == Verdict.NOT_APPLICABLE:
        owner = next((c for c in checks if check_verdict(c) == Verdict.NOT_APPLICABLE), None)
        hint = not_applicable_hint(owner.get("applies_to", {}) if owner else {})
    compared_names = {r["name"] for r in rows}
    stated = [
        {
            "name": f["name"],
            "display": (
                f["display"].replace("–", " to ", 1) if f["kind"] == "range" else f["display"]
            ),
            "scope": ", ".join(x for x in (f.get("model"), f.get("profile")) if x),
        }
        for f in claim.get("stated", [])
        if f["name"] not in compared_names
    ]
    check_views = [_check_view(c) for c in checks]
    if not reason and verdict in (Verdict.ERROR, Verdict.REFUTED):
        # e.g. an unexpected pass (xpassed) carries no message: say what happened instead.
        deciding = next((k for k in check_views if k["verdict"] == verdict), None)
        if deciding is not None:
            reason = deciding["message"] or f"{deciding['nodeid']}: {deciding['outcome_text']}"
    erratum_holds = any(c.get("failure") == "erratum-holds" for c in checks)
    return {
        "id": cid,
        "verdict": verdict,
        "statement": claim["statement"],
        "section": claim["section"],
        "document_title": doc_title,
        "tiers": tiers,
        "profile": claim.get("profile"),
        "reason": reason,
        "hint": hint,
        "hint_general": hint_general,
        "erratum": erratum["explanation"] if erratum else None,
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


def _documents(evidence: Evidence, figures: _Figures) -> list[dict[str, Any]]:
    claims = evidence["claims"]
    metas = [d for d in evidence.get("documents", []) if d["id"]]
    known = {d["id"] for d in metas}
    # Claims of a document the evidence does not describe still get shown, last.
    for claim in claims:
        doc_id = claim["document"]
        if doc_id not in known:
            known.add(doc_id)
            metas.append(DocumentRecord(id=doc_id, title=claim.get("document_title") or doc_id,
                                        published=None, seeds=[], sections=[]))
    out = []
    for meta in metas:
        doc_id = meta["id"]
        inside = [c for c in claims if c["document"] == doc_id]
        sections = {name: Section(i + 1, name) for i, name in enumerate(meta["sections"])}
        for claim in inside:
            name = claim["section"]
            if name not in sections:
                sections[name] = Section(None, name)
            view = _claim_view(claim, figures, meta["title"])
            (
                sections[name].claims
                if view["verdict"] != Verdict.UNTESTABLE
                else sections[name].untestable
            ).append(view)
        counts = Counter(c["verdict"] for s in sections.values() for c in s.claims + s.untestable)
        total = sum(counts.values())
        out.append(
            {
                "id": doc_id,
                "title": meta["title"],
                "published": meta["published"],
                "seeds": meta["seeds"],
                "sections": [s for s in sections.values() if s.claims or s.untestable],
                "counts": counts,
                "total": total,
                "testable": total - counts[Verdict.UNTESTABLE],
                "checked": total - counts[Verdict.UNTESTABLE] - counts[Verdict.NOT_RUN],
                "bar": [(v, counts[v], 100.0 * counts[v] / total) for v in ORDER if counts[v]]
                if total
                else [],
            }
        )
    return out


def _duration(run: Run) -> str | None:
    try:
        start = datetime.fromisoformat(run["started"])
        end = datetime.fromisoformat(run["finished"])
    except ValueError:
        return None
    seconds = (end - start).total_seconds()
    if seconds < 0:
        return None
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _facts(evidence: Evidence) -> list[dict[str, Any]]:
    """Facts checks recorded (digests, versions), with the claims that recorded them."""
    by_key: dict[str, dict[str, Any]] = {}
    for claim in evidence["claims"]:
        for check in claim["checks"]:
            for key, value in check.get("facts", {}).items():
                entry = by_key.setdefault(
                    key, {"key": key, "value": machine.text(value), "claims": []}
                )
                if claim["id"] not in entry["claims"]:
                    entry["claims"].append(claim["id"])
    for key, value in evidence["run"].get("facts", {}).items():
        by_key.setdefault(key, {"key": key, "value": machine.text(value), "claims": []})
    return sorted(
        by_key.values(), key=lambda e: (not _is_model_fact(e["key"], e["value"]), e["key"].lower())
    )


_MODEL_FACT = re.compile(r"(?i)digest|sha256|model|ollama|engine|llama|gguf|blob|manifest")
_SHA256 = re.compile(r"(?i)(sha256[:-])?[0-9a-f]{64}")


def _is_model_fact(key: str, value: str) -> bool:
    """Facts that identify what was measured: model names, digests, engine versions."""
    return bool(_MODEL_FACT.search(key) or _SHA256.fullmatch(value))


def _tier_rows(run: Run) -> list[dict[str, Any]]:
    rows = []
    for tier, status in run.get("tier_status", {}).items():
        details = {k: v for k, v in status.items() if k not in ("available", "reason")}
        rows.append(
            {
                "tier": tier,
                "available": status["available"],
                "reason": status["reason"],
                "details": machine.text(details) if details else "",
            }
        )
    return rows


def _flag_or_package(reason: str) -> bool:
    """Whether the reason names an option or a package to install (its own precise hint)."""
    return run_hint([], reason) != run_hint([], "")


def _asked_live(run: Run) -> list[str]:
    """The live tiers the run asked for: named in its -m expression (not after "not"), or
    all of them under --claims-require-live with no expression."""
    words = run["markexpr"].replace("(", " ").replace(")", " ").split()
    named = [w for i, w in enumerate(words)
             if TIERS.is_live(w) and (i == 0 or words[i - 1] != "not")] if words else []
    if not named and not words and run["options"].get("require_live"):
        return list(TIERS.live())
    return list(dict.fromkeys(named))


def _decided_live(claims: Sequence[Mapping[str, Any]]) -> int:
    """How many of these claim views a live check decided."""
    return sum(
        1 for c in claims
        if any(ch["source"] == "live" and ch["verdict"] in DECIDED for ch in c["checks"])
    )


def _outcome(run: Run, documents: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The answer to "did this run pass, and what failed", from pytest and the verdicts."""
    pytest_info = run.get("pytest")
    code = pytest_info["exit_status"] if pytest_info else None
    raw_counts = pytest_info["counts"] if pytest_info else None
    counts = (
        [(k, n) for k in PYTEST_COUNTS if (n := raw_counts.get(k)) is not None]
        if raw_counts is not None
        else None
    )
    claims: list[dict[str, Any]] = [c for d in documents for s in d["sections"] for c in s.claims]
    # With --claim, the claims left out were not selected, not "not run".
    chosen = set(run["options"].get("claim_ids", []))
    if chosen:
        claims = [c for c in claims if c["id"] in chosen]
    failing = [
        c for c in claims
        if c["verdict"] in (Verdict.REFUTED, Verdict.ERROR) or c["erratum_holds"]
    ]
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for c in claims:
        if c["verdict"] == Verdict.NOT_RUN:
            groups.setdefault(_str(c["hint_general"], "see the reason"), []).append(c)
    not_run = [
        {"hint": hint, "claims": members}
        for hint, members in sorted(groups.items(), key=lambda kv: -len(kv[1]))
    ]
    reason = ""
    # The run's state (not a verdict): passed, failed, undecided, or unknown.
    if code is None:
        state = "unknown"
        headline = "pytest's outcome was not recorded (an interrupted run, or older evidence)"
    elif code == 0:
        state = "passed"
        headline = "The run passed"
        decided = sum(1 for c in claims if c["verdict"] in DECIDED)
        live = _asked_live(run)
        down = [f"{t}: {_str(st['reason'])}"
                for t, st in run.get("tier_status", {}).items()
                if not st["available"]]
        why = f" ({'; '.join(down)})" if down else ""
        if not decided:
            state, headline = "undecided", "Nothing was checked"
            reason = (
                f"pytest passed, but none of the {len(claims)} claims was decided: each was "
                f"not run, not applicable or untestable{why}; the reasons are below"
            )
        elif live and not _decided_live(claims):
            state, headline = "undecided", "Nothing was decided live"
            reason = (
                f"the run asked for the {', '.join(live)} tier, and no claim was decided "
                f"on a live system{why}"
            )
    else:
        state = "failed"
        headline = "The run failed"
    if run.get("simulated"):
        headline += " (simulated: through the suite's fakes, not on a real machine)"
    return {
        "state": state,
        "headline": headline,
        "exit_status": code,
        "meaning": reason if state == "undecided" else
        (pytest_info["meaning"] if pytest_info else "") or None,
        "counts": counts,
        "count_text": PYTEST_COUNT_TEXT,
        "selected_claims": sorted(chosen),
        "failing": failing,
        "not_run": not_run,
        "not_run_total": sum(len(g["claims"]) for g in not_run),
    }


def _banners(run: Run) -> list[dict[str, Any]]:
    banners: list[dict[str, Any]] = []
    interrupted = run.get("interrupted")
    if interrupted:
        test = interrupted.get("test")
        during = (f" while {test} was running (for {_str(interrupted.get('test_seconds'))} s"
                  "; it reads as an error: nothing was decided)") if test else " between two tests"
        banners.append({"id": "interrupted", "bad": True, "title": "Stopped by a signal.",
                        "text": f"The run was stopped by {interrupted['by']}{during}. "
                                "The evidence and this page were still written; the duration "
                                "is the run's true one."})
    server = run["machine"].get("ollama")
    tier = run.get("tier_status", {}).get(OLLAMA.name)
    if (server and server.get("remote")) or (tier and tier.get("remote")):
        host = _str((server["host"] if server else None) or (tier.get("host") if tier else None))
        banners.append({"id": "remote-ollama", "bad": False, "title": "Remote Ollama server.",
                        "text": f"The ollama tier measured the server at {host}, another "
                                "machine: its figures are that machine's, not this one's."})
    fakes = run.get("simulated", [])
    if not fakes:
        return banners
    return [*banners, {
        "id": "simulated", "bad": True, "title": "Simulated run.",
        "text": f"This run went through the suite's own stand-ins ({', '.join(fakes)}), not "
                "real hardware or servers. What it shows is the fakes' scripted or recorded "
                "output: no claim here was reproduced on any machine, and checks that "
                "passed through a fake read “not run”."}]


def _provenance(run: Run) -> dict[str, str]:
    suite = run.get("suite")
    out: dict[str, str] = {}
    if suite:
        out["Suite version"] = _str(suite["version"], "not recorded")
        commit = suite["git_commit"]
        dirty = " (with uncommitted changes)" if suite["git_dirty"] else ""
        out["Git commit"] = f"{commit}{dirty}" if commit else "not recorded (not a git checkout)"
        out["Catalog SHA-256"] = suite["catalog_sha256"]
    else:
        out |= {"Suite version": "not recorded", "Git commit": "not recorded",
                "Catalog SHA-256": "not recorded"}
    out.update(_inputs(run.get("inputs")))
    return out


def _inputs(inputs: Inputs | None) -> dict[str, str]:
    """What the transcribed figures were checked against (claims.plugin.inputs)."""
    if not inputs:
        return {}
    out: dict[str, str] = {}
    manifest = inputs["manifest"]
    if manifest:
        # a bundled file several documents rely on is one problem per document: name it once
        problems = list(dict.fromkeys(_str(p.get("file")) for p in manifest["problems"]))
        out["Transcribed fixtures"] = (
            f"{manifest['checked']} files against {manifest['manifest']}: "
            + (f"changed: {', '.join(problems)}" if problems else "unchanged")
        )
    tr = inputs["transcription"]
    if tr["ran"]:
        files = ", ".join(
            f"{_str(d.get('file'))} (SHA-256 {_str(d.get('sha256'))})"
            for d in tr.get("documents", [])
        )
        misplaced = len(tr.get("misplaced", []))
        out["Transcription check"] = (
            f"ran: {tr.get('values')} values against {files}; "
            + (f"{misplaced} not where their anchors say" if misplaced else "all at their anchors")
        )
    else:
        out["Transcription check"] = f"not run: {_str(tr.get('reason'))}"
    return out


def build_view(evidence: Evidence) -> dict[str, Any]:
    """Everything the template needs, computed once."""
    run = evidence["run"]
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
    args = run.get("args", [])
    audit = audit_view(evidence)
    return {
        "run": run,
        "outcome": _outcome(run, documents),
        "provenance": _provenance(run),
        "notation": NOTATION,
        # Page-wide notices (an interrupted run; other tiers add theirs, e.g. simulated data).
        "banners": _banners(run),
        "started": run["started"],
        "finished": run["finished"],
        "duration": _duration(run),
        "complete": run["complete"],
        "command": ("pytest " + shlex.join(args)) if args else None,
        "markexpr": run["markexpr"],
        "profile": run["profile"],
        "profile_reason": choice["reason"] if (choice := run.get("profile_choice")) else "",
        "simulated": run.get("simulated", []),
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
        "audit": audit,
        "in_words": in_words(totals, audit, run.get("inputs")),
        "accounting": accounting_view(run.get("inputs")),
        "unknown_checks": [
            {"claim": _str(u.get("claim")), "nodeid": u["nodeid"]}
            for u in evidence.get("unknown_claim_checks", [])
        ],
    }
