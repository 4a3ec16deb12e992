"""What differs between two runs: verdicts, measured figures, machines, options.

``diff_evidence(a, b)`` compares two evidence documents (two runs on one
machine, or the same suite on two machines) and returns a JSON-ready dict:

* ``verdict_changes`` - claims whose verdict differs, each classified
  (``regression``: it became refuted or error; ``improvement``: it stopped
  being one; ``no longer checked`` / ``newly checked``; ``weaker evidence`` /
  ``stronger evidence`` between reproduced and consistent; ``changed``);
* ``regressions`` - the subset a CI job fails on (``--fail-on-regression``);
* ``documents`` - per document: claims and verdict counts in A and in B, and
  how many verdicts changed (the diff page and the text output lead with it);
* ``moved_figures`` - same claim, same test, same measurement name, a
  different measured value: both values and the relative change (only
  measurements compared with a statement: those are the claims' figures);
* ``measurements_only_in_a`` / ``measurements_only_in_b`` - compared
  measurements one run made and the other did not (a test skipped in one);
* ``context_changes`` - context values (``check.observe``: what an instrument
  measured about itself or its input, such as a hash throughput or archive
  size) that differ; shown, never counted as a difference between the runs;
* ``machine_differences`` / ``option_differences`` - fingerprint fields and
  run options that differ (field, value in A, value in B);
* ``only_in_a`` / ``only_in_b`` - claim ids one catalog has and the other lacks.

Timestamps, temporary paths (pytest's ``/tmp/pytest-of-…`` folders,
``tempfile``'s names) and context values are never differences: two runs of the
same suite on the same machine with the same results give ``identical: true``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from claims.records import (
    Chart,
    ClaimRecord,
    DiffResult,
    DocumentRow,
    Evidence,
    FieldDifference,
    MeasuredOnce,
    Measurement,
    MovedFigure,
    RunSummary,
    SourceName,
    VerdictChange,
)
from claims.report import machine
from claims.report.html import content_security_policy, environment
from claims.report.plots import ChartError, render_chart, svg_with_prefix
from claims.report.view import ORDER, SOURCES, value_text
from claims.terminal import safe
from claims.verdicts import DESCRIPTIONS, VERDICTS, Verdict

__all__ = ["diff_evidence", "format_diff_text", "render_diff_html"]

BAD = frozenset({Verdict.REFUTED, Verdict.ERROR})
CONFIRMED = frozenset({Verdict.REPRODUCED, Verdict.CONSISTENT})
UNCHECKED = frozenset({Verdict.NOT_RUN, Verdict.NOT_APPLICABLE})


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


# A temporary path differs on every run (pytest's numbered base folders, mkdtemp's
# random names): the part after the temporary root is replaced before comparing.
_TEMP_PATH = re.compile(
    r"(?:/private)?(?:/tmp|/var/tmp|/var/folders/[^\s/]+/[^\s/]+/T)(?:/[^\s,;:'\"()\]]*)?"
    r"|pytest-of-[^\s/]+/pytest-\d+(?:/[^\s,;:'\"()\]]*)?"
)


def stable(value: Any) -> Any:
    """``value`` with the parts that change between identical runs (temporary paths) masked."""
    if isinstance(value, str):
        return _TEMP_PATH.sub("<temporary path>", value)
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, Mapping):
        return {k: stable(v) for k, v in value.items()}
    return value


def _compared(m: Measurement) -> bool:
    """Whether a measurement was judged against a statement (a claim's figure)."""
    return m.get("compared", True) and m.get("applicable") is not False


def _claims(doc: Evidence) -> dict[str, ClaimRecord]:
    return {c["id"]: c for c in doc["claims"]}


def change_kind(a: str, b: str) -> str:
    """How a verdict change reads: regression, improvement, coverage or evidence strength."""
    if b in BAD and a not in BAD:
        return "regression"
    if a in BAD and b not in BAD:
        return "improvement"
    if a in CONFIRMED and b in UNCHECKED:
        return "no longer checked"
    if a in UNCHECKED and b in CONFIRMED:
        return "newly checked"
    if (a, b) == (Verdict.REPRODUCED, Verdict.CONSISTENT):
        return "weaker evidence"
    if (a, b) == (Verdict.CONSISTENT, Verdict.REPRODUCED):
        return "stronger evidence"
    return "changed"


def _number(value: Any) -> float | None:
    """A measured value as one number: plain numbers, or an interval's midpoint."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    m = _mapping(value)
    lo, hi = m.get("lo"), m.get("hi")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and not isinstance(lo, bool):
        mid = (float(lo) + float(hi)) / 2
        return mid if math.isfinite(mid) else None
    return None


def relative_change(a: Any, b: Any) -> float | None:
    """(b - a) / |a| for numeric values; None when either is not a number or a is zero."""
    x, y = _number(a), _number(b)
    if x is None or y is None or x == 0:
        return None
    return (y - x) / abs(x)


def _measurements(
    claim: ClaimRecord,
) -> dict[tuple[str, str, int], tuple[Measurement, SourceName]]:
    """Measurements keyed by (test, name, occurrence), with the check's evidence source."""
    out: dict[tuple[str, str, int], tuple[Measurement, SourceName]] = {}
    for check in claim["checks"]:
        seen: dict[str, int] = {}
        for m in check["measurements"]:
            name = m["name"]
            seen[name] = seen.get(name, 0) + 1
            out[(check["nodeid"], name, seen[name])] = (m, check["source"])
    return out


def _display(m: Measurement) -> str:
    return value_text(m["measured"], m.get("measured_display"), m.get("unit"))


def _field_differences(a: Mapping[str, str], b: Mapping[str, str]) -> list[FieldDifference]:
    out: list[FieldDifference] = []
    for key in list(a) + [k for k in b if k not in a]:
        va, vb = a.get(key, "(absent)"), b.get(key, "(absent)")
        if stable(va) != stable(vb):
            out.append({"field": key, "a": va, "b": vb})
    return out


def _machine_fields(doc: Evidence) -> dict[str, str]:
    run = doc["run"]
    fields = machine.fingerprint(run)
    for key, value in run.get("facts", {}).items():
        fields[f"fact {key}"] = machine.text(value)
    return fields


def _run_summary(doc: Evidence, label: str) -> RunSummary:
    run = doc["run"]
    return {
        "label": label,
        "started": run["started"],
        "finished": run["finished"],
        "complete": run["complete"],
        "markexpr": run["markexpr"],
        "profile": run["profile"],
        "claims": len(doc["claims"]),
        "by_verdict": dict(doc["summary"]["by_verdict"]),
    }


def diff_evidence(a: Evidence, b: Evidence, labels: Sequence[str] = ("A", "B")) -> DiffResult:
    """Compare two evidence documents (see the module docstring for the result's keys)."""
    label_a, label_b = (str(labels[0]), str(labels[1])) if len(labels) >= 2 else ("A", "B")
    claims_a, claims_b = _claims(a), _claims(b)
    changes: list[VerdictChange] = []
    moved: list[MovedFigure] = []
    context: list[MovedFigure] = []
    only_m: dict[str, list[MeasuredOnce]] = {"a": [], "b": []}
    for cid, ca in claims_a.items():
        cb = claims_b.get(cid)
        if cb is None or cb is ca:
            # The same record object on both sides (a fleet's loader shares the records
            # of equal claim texts): no verdict change, no figure moved.
            continue
        va, vb = ca["verdict"], cb["verdict"]
        if va != vb:
            changes.append(
                {
                    "id": cid,
                    "document": ca["document"],
                    "section": ca["section"],
                    "statement": ca["statement"],
                    "a": va,
                    "b": vb,
                    "kind": change_kind(va, vb),
                    "reason_a": ca.get("reason"),
                    "reason_b": cb.get("reason"),
                }
            )
        ma, mb = _measurements(ca), _measurements(cb)
        for side, mine, other in (("a", ma, mb), ("b", mb, ma)):
            for key, (m, source) in mine.items():
                if key not in other and _compared(m):
                    only_m[side].append(
                        {
                            "claim": cid,
                            "nodeid": key[0],
                            "name": key[1],
                            "display": _display(m),
                            "holds": m["holds"],
                            "source": source,
                        }
                    )
        for key, (m1, source_a) in ma.items():
            found = mb.get(key)
            if found is None:
                continue
            m2, source_b = found
            if stable(m1["measured"]) == stable(m2["measured"]):
                continue
            row: MovedFigure = {
                "claim": cid,
                "nodeid": key[0],
                "name": key[1],
                "unit": m1.get("unit") or m2.get("unit"),
                "a": m1["measured"],
                "b": m2["measured"],
                "a_display": _display(m1),
                "b_display": _display(m2),
                "relative_change": relative_change(m1["measured"], m2["measured"]),
                "holds_a": m1["holds"],
                "holds_b": m2["holds"],
                "source_a": source_a,
                "source_b": source_b,
            }
            # A context value (what an instrument measured about itself or its input:
            # hash throughput, archive bytes) is no claim's figure: shown, not counted.
            (moved if _compared(m1) or _compared(m2) else context).append(row)
    def by_size(r: MovedFigure) -> tuple[bool, float, str]:
        return (r["relative_change"] is None, -abs(r["relative_change"] or 0.0), r["claim"])

    moved.sort(key=by_size)
    context.sort(key=by_size)
    machines = _field_differences(_machine_fields(a), _machine_fields(b))
    options = _field_differences(machine.options(a["run"]), machine.options(b["run"]))
    only_a = [cid for cid in claims_a if cid not in claims_b]
    only_b = [cid for cid in claims_b if cid not in claims_a]
    regressions = [c for c in changes if c["kind"] == "regression"]
    return {
        "labels": [label_a, label_b],
        "runs": [_run_summary(a, label_a), _run_summary(b, label_b)],
        "documents": _document_rows(a, b, changes),
        "verdict_changes": changes,
        "regressions": regressions,
        "moved_figures": moved,
        "measurements_only_in_a": only_m["a"],
        "measurements_only_in_b": only_m["b"],
        "context_changes": context,
        "machine_differences": machines,
        "option_differences": options,
        "only_in_a": only_a,
        "only_in_b": only_b,
        "identical": not (
            changes or moved or only_m["a"] or only_m["b"] or machines or options
            or only_a or only_b
        ),
    }


def _document_rows(
    a: Evidence, b: Evidence, changes: Sequence[VerdictChange]
) -> list[DocumentRow]:
    """Per document: claims and verdict counts in each run, and the verdicts that changed."""
    titles: dict[str, str] = {}
    for doc in (a, b):
        for meta in doc.get("documents", []):
            if meta["id"]:
                titles.setdefault(meta["id"], meta["title"] or meta["id"])
    counts: dict[str, dict[str, Counter[str]]] = {}
    for side, doc in (("a", a), ("b", b)):
        for claim in _claims(doc).values():
            doc_id = claim["document"] or "?"
            titles.setdefault(doc_id, claim.get("document_title") or doc_id)
            per = counts.setdefault(doc_id, {"a": Counter(), "b": Counter()})
            per[side][claim["verdict"]] += 1
    changed = Counter(c["document"] for c in changes)
    regressed = Counter(c["document"] for c in changes if c["kind"] == "regression")
    rows: list[DocumentRow] = []
    for doc_id in titles:
        per = counts.get(doc_id, {"a": Counter(), "b": Counter()})
        rows.append(
            {
                "id": doc_id,
                "title": titles[doc_id],
                "claims_a": sum(per["a"].values()),
                "claims_b": sum(per["b"].values()),
                "a": {v: per["a"][v] for v in ORDER if per["a"][v]},
                "b": {v: per["b"][v] for v in ORDER if per["b"][v]},
                "changed": changed[doc_id],
                "regressions": regressed[doc_id],
            }
        )
    return rows


# --- terminal -------------------------------------------------------------------
def _percent(change: float | None) -> str:
    return "n/a" if change is None else f"{change * 100:+.1f}%"


def _counts(run: RunSummary) -> str:
    counts = run["by_verdict"]
    shown = ", ".join(f"{counts[v]} {v}" for v in ORDER if counts.get(v))
    return shown or "no claims"


def _abbrev(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items()) or "none"


def format_diff_text(result: DiffResult) -> str:
    """A terminal summary of :func:`diff_evidence`'s result (ends with a newline).

    Every field from the evidence goes through :func:`claims.terminal.safe`: the
    files are untrusted, and an escape sequence in a claim's reason must not
    clear the screen or retitle the window of whoever runs the diff.
    """
    label_a, label_b = (safe(x) for x in result["labels"])
    run_a, run_b = result["runs"]
    lines = []
    for name, label, run in (("A", label_a, run_a), ("B", label_b, run_b)):
        incomplete = "" if run["complete"] else ", INCOMPLETE"
        lines.append(f"{name}: {label}  (started {safe(run['started'])}{incomplete})")
        lines.append(f"   {safe(_counts(run))}")
    docs = result["documents"]
    if docs:
        lines.append("")
        width = max(len(safe(d["id"])) for d in docs)
        lines.append(f"   {'doc':<{width}}  changed  verdicts in A -> verdicts in B")
        for d in docs:
            same = d["a"] == d["b"]
            detail = f"same: {_abbrev(d['a'])}" if same else (
                f"{_abbrev(d['a'])} -> {_abbrev(d['b'])}"
            )
            mark = "!" if d["regressions"] else " "
            lines.append(f" {mark} {safe(d['id']):<{width}}  {d['changed']:>7}  {safe(detail)}")
    if result["identical"]:
        lines.append("")
        lines.append(
            "identical: same verdicts, same measured figures, same machine and options "
            "(timestamps, temporary paths and context values aside)"
        )
        _context_lines(result, lines)
        return "\n".join(lines) + "\n"
    changes = result["verdict_changes"]
    if changes:
        regressions = len(result["regressions"])
        lines.append("")
        plural = "s" if regressions != 1 else ""
        lines.append(f"verdict changes: {len(changes)} ({regressions} regression{plural})")
        width = max(len(safe(c["id"])) for c in changes)
        for c in changes:
            mark = "!" if c["kind"] == "regression" else " "
            line = (
                f" {mark} {safe(c['id']):<{width}}  {safe(c['a'])} -> {safe(c['b'])}"
                f"  [{c['kind']}]"
            )
            if c["kind"] == "regression" and c["reason_b"]:
                line += f"  {safe(c['reason_b'])}"
            lines.append(line)
    moved = result["moved_figures"]
    if moved:
        lines.append("")
        lines.append(f"figures that moved: {len(moved)}")
        for m in moved:
            change = _percent(m["relative_change"])
            lines.append(
                f"   {safe(m['claim'])}  {safe(m['name'])}: {safe(m['a_display'])} -> "
                f"{safe(m['b_display'])}  ({change})"
            )
    for once, label in ((result["measurements_only_in_a"], "A"),
                        (result["measurements_only_in_b"], "B")):
        if once:
            lines.append("")
            lines.append(f"measured only in {label}: {len(once)}")
            for o in once:
                lines.append(f"   {safe(o['claim'])}  {safe(o['name'])}: {safe(o['display'])}")
    for fields, title in (
        (result["machine_differences"], "machines differ"),
        (result["option_differences"], "options differ"),
    ):
        if fields:
            lines.append("")
            lines.append(f"{title}: {len(fields)} field{'s' if len(fields) != 1 else ''}")
            width = max(len(safe(r["field"])) for r in fields)
            for r in fields:
                lines.append(f"   {safe(r['field']):<{width}}  A: {safe(r['a'])}")
                lines.append(f"   {'':<{width}}  B: {safe(r['b'])}")
    for only, label in ((result["only_in_a"], "A"), (result["only_in_b"], "B")):
        if only:
            lines.append("")
            lines.append(f"claims only in {label}: {', '.join(safe(c) for c in only)}")
    _context_lines(result, lines)
    return "\n".join(lines) + "\n"


def _context_lines(result: DiffResult, lines: list[str]) -> None:
    context = result["context_changes"]
    if context:
        lines.append("")
        lines.append(
            f"context values that differ (not claims' figures, not counted): {len(context)}"
        )


# --- HTML -----------------------------------------------------------------------
def _charts(doc: Evidence) -> dict[tuple[str, str, int], tuple[Chart, SourceName]]:
    """Each chart with the source of the check that drew it (recorded figures say so)."""
    out: dict[tuple[str, str, int], tuple[Chart, SourceName]] = {}
    for claim in doc["claims"]:
        for check in claim["checks"]:
            for index, chart in enumerate(check.get("charts", [])):
                key = (check["nodeid"], chart["kind"], index)
                out.setdefault(key, (chart, check["source"]))
    return out


def _svg(found: tuple[Chart, SourceName] | None, prefix: str) -> dict[str, str | None]:
    if found is None:
        return {"svg": None, "problem": "not in this run"}
    chart, source = found
    try:
        return {"svg": svg_with_prefix(render_chart(chart, source), prefix), "problem": None}
    except ChartError as exc:
        return {"svg": None, "problem": f"could not be drawn: {exc}"}
    except Exception as exc:  # a plot must never cost the whole page
        return {"svg": None, "problem": f"could not be drawn: {type(exc).__name__}: {exc}"}


def render_diff_html(result: DiffResult, a: Evidence, b: Evidence) -> str:
    """The two runs side by side: verdict changes, moved figures, machines, every claim, plots."""

    claims_a, claims_b = _claims(a), _claims(b)
    rows = []
    for cid in list(claims_a) + [c for c in claims_b if c not in claims_a]:
        ca, cb = claims_a.get(cid), claims_b.get(cid)
        either = ca or cb
        assert either is not None  # cid is a claim of a or of b
        va, vb = (ca["verdict"] if ca else None), (cb["verdict"] if cb else None)
        rows.append(
            {
                "id": cid,
                "document": either["document"],
                "statement": either["statement"],
                "a": va,
                "b": vb,
                "changed": va != vb,
            }
        )
    fields_a, fields_b = _machine_fields(a), _machine_fields(b)
    opts_a, opts_b = machine.options(a["run"]), machine.options(b["run"])
    charts_a, charts_b = _charts(a), _charts(b)
    plots = []
    for n, key in enumerate(list(charts_a) + [k for k in charts_b if k not in charts_a], start=1):
        found = charts_a.get(key) or charts_b.get(key)
        title = found[0]["title"] if found else None
        plots.append(
            {
                "nodeid": key[0],
                "kind": key[1],
                "title": title or key[1],
                "a": _svg(charts_a.get(key), f"d{n}a-"),
                "b": _svg(charts_b.get(key), f"d{n}b-"),
            }
        )
    template = environment().get_template("diff.html.j2")
    return template.render(
        result=result,
        labels=result["labels"],
        runs=result["runs"],
        machine_rows=[
            (k, fields_a.get(k, "(absent)"), fields_b.get(k, "(absent)"))
            for k in list(fields_a) + [k for k in fields_b if k not in fields_a]
        ],
        option_rows=[
            (k, opts_a.get(k, "(absent)"), opts_b.get(k, "(absent)"))
            for k in list(opts_a) + [k for k in opts_b if k not in opts_a]
        ],
        claim_rows=rows,
        plots=plots,
        order=ORDER,
        verdicts=VERDICTS,
        descriptions=DESCRIPTIONS,
        sources=SOURCES,
        percent=_percent,
        csp=content_security_policy(),
    ).lstrip()
