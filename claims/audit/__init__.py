"""The mutation audit: does every stated figure change its claim's verdict?

``python -m claims audit`` perturbs, one at a time, every stated figure of
every claim the offline tier decides, reruns that claim's offline tests (and
any test that computed with the figure, :meth:`claims.check.Check.premise`)
in-process, and reports per figure whether a verdict changed. A figure that
cannot change one is listed with the reason the baseline run's own records
give (stated for another model, judged only live, its offline check did not
run here...); a figure compared by a check that still did not notice is a
defect of the suite, and the audit exits 1 naming it.

How each figure is perturbed is in :mod:`claims.audit.mutate`: a figure that
holds is moved until no recorded measurement agrees with it (upwards, then,
for one-sided bounds, downwards); a figure a known erratum lists is corrected
to what was measured, which must fail strictly.

Transcribed values (fixtures/recorded/) are audited by
:mod:`claims.audit.transcribed`: each changed digit or letter must fail the
anchored transcription check.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from claims.audit.mutate import corrected, moved, near, scaled
from claims.audit.runner import AuditSession, Group, check_verdicts, claim_verdicts
from claims.catalog.records import Claim, StatedFigure
from claims.tiers import TIERS
from claims.verdicts import claim_verdict

__all__ = ["FigureResult", "run_audit", "summary_line"]


@dataclass
class FigureResult:
    """What perturbing one stated figure did."""

    claim: str
    figure: str
    stated: str
    perturbed: str | None = None
    how: str | None = None  # "moved up", "moved down", "corrected to the measurement"
    before: str | None = None  # the claim's verdict in the baseline run
    after: str | None = None  # ... with the figure perturbed
    changed_checks: list[str] = field(default_factory=list)
    after_reason: str | None = None  # the perturbed run's reason for its verdict
    sensitive: bool = False
    reason: str | None = None  # why an insensitive figure cannot change a verdict

    @property
    def defect(self) -> bool:
        return not self.sensitive and self.reason is None


def summary_line(sensitive: int, total: int) -> str:
    return f"{sensitive} of {total} stated figures change their verdict when perturbed"


def _measurements(claim: Claim, fig: StatedFigure, records: list[dict[str, Any]]) -> list[Any]:
    return [
        m
        for rec in records
        for m in rec.get("measurements", [])
        if m.get("name") == fig.name and m.get("claim") in (None, claim.id)
    ]


def _reason(
    claim: Claim,
    fig: StatedFigure,
    records: list[dict[str, Any]],
    measurements: list[dict[str, Any]],
    premised: bool,
    before: str,
) -> str | None:
    """Why the figure could not change a verdict, from the baseline's own records; None if
    nothing explains it (a defect)."""
    live = [t for t in claim.tiers if t in TIERS.live()]
    if not records or all(r.get("verdict") == "not-run" for r in records):
        why = "; ".join(dict.fromkeys(str(r.get("message")) for r in records)) or "no test"
        return f"its offline checks did not run here ({why})"
    compared = [m for m in measurements if m.get("compared")]
    if not compared and not premised:
        na = [m for m in measurements if m.get("applicable") is False]
        if na:
            return "not judged offline: " + "; ".join(
                dict.fromkeys(str(m.get("note")) for m in na)
            )
        shown = [m for m in measurements if "matches" in m]
        if shown:
            return f"describes the author's own run, shown beside, not judged: {fig.particular}"
        if live:
            return f"read by no offline check; judged only live ({', '.join(live)})"
        return None
    if before in ("refuted", "error"):
        return f"the claim is already {before} offline; a perturbed figure cannot undo that"
    return None


def _plan(
    session: AuditSession, results: list[FigureResult], transcribed: dict[str, Any]
) -> None:
    baseline = Group(items=list(session.items))
    session.run([baseline])
    base_claims = claim_verdicts(baseline.records)
    base_checks = check_verdicts(baseline.records)
    catalog = session.catalog
    first: list[tuple[FigureResult, Group, Claim, StatedFigure, list[Any]]] = []
    premise_of: set[int] = set()  # results whose figure a check computes with
    for claim in catalog:
        if not claim.testable or "offline" not in claim.tiers:
            continue
        if session.wanted is not None and claim.id not in session.wanted:
            continue
        items = session.by_claim.get(claim.id, [])
        records = [baseline.records[i.nodeid] for i in items if i.nodeid in baseline.records]
        for fig in claim.stated:
            measurements = _measurements(claim, fig, records)
            dependents = [
                item
                for item in session.items
                if item not in items
                and {"claim": claim.id, "name": fig.name}
                in [
                    {"claim": p.get("claim"), "name": p.get("name")}
                    for p in baseline.records.get(item.nodeid, {}).get("premises", [])
                ]
            ]
            premised = any(
                p.get("claim") == claim.id and p.get("name") == fig.name
                for rec in baseline.records.values()
                for p in rec.get("premises", [])
            )
            result = FigureResult(
                claim=claim.id,
                figure=fig.name,
                stated=fig.display,
                before=base_claims.get(claim.id, "not-run"),
            )
            results.append(result)
            if premised:
                premise_of.add(id(result))
            values = [m.get("measured") for m in measurements if m.get("compared")]
            listed = claim.erratum is not None and (
                not claim.erratum.refutes or fig.name in claim.erratum.refutes
            )
            mutation = corrected(fig, values) if listed and values else None
            result.how = "corrected to the measurement" if mutation is not None else "moved up"
            mutation = mutation or moved(fig, values)
            result.perturbed = mutation.display
            reason = _reason(
                claim, fig, records, measurements, premised, result.before or "not-run"
            )
            result.reason = reason
            group = Group(items=items + dependents, claim=claim.id, figure=mutation)
            first.append((result, group, claim, fig, values))

    def judge(result: FigureResult, group: Group) -> bool:
        after = claim_verdicts(group.records).get(result.claim, "not-run")
        changed = [
            nodeid
            for nodeid, verdict in check_verdicts(group.records).items()
            if base_checks.get(nodeid) != verdict
        ]
        result.after = after
        result.changed_checks = changed
        per_claim = [r for r in group.records.values() if result.claim in r.get("claims", [])]
        result.after_reason = claim_verdict(True, None, per_claim)[1] if per_claim else None
        return after != result.before or bool(changed)

    session.run([g for _, g, *_ in first])
    again: list[tuple[FigureResult, Group]] = []
    for result, group, claim, fig, values in first:
        if judge(result, group):
            result.sensitive, result.reason = True, None
        elif fig.kind in ("number", "range") and result.how == "moved up":
            down = moved(fig, values, down=True)
            again.append(
                (
                    result,
                    Group(items=group.items, claim=claim.id, figure=down),
                )
            )
            result.how, result.perturbed = "moved down", down.display
    session.run([g for _, g in again])
    searched: list[tuple[FigureResult, list[Group]]] = []
    for result, group in again:
        if judge(result, group):
            result.sensitive, result.reason = True, None
            continue
        result.how = "moved up and down"
        claim = catalog.get(result.claim)
        if result.before == "known-erratum" and group.figure is not None:
            # A premise of an erratum (an efficiency the real-world figures are computed
            # from): the perturbation that matters is the one that makes a listed
            # figure hold, which a coarse move misses. Search near the printed value.
            fig = claim.figure(result.figure)
            candidates = near(fig)
            searched.append(
                (result, [Group(items=group.items, claim=claim.id, figure=c) for c in candidates])
            )
        elif id(result) in premise_of:
            # A premise (a bar the check holds its values to): moved by each factor in
            # turn, since values that clear it by far ignore the first move.
            fig = claim.figure(result.figure)
            searched.append(
                (result, [Group(items=group.items, claim=claim.id, figure=c) for c in scaled(fig)])
            )
    session.run([g for _, groups in searched for g in groups])
    for result, groups in searched:
        hit = next((g for g in groups if judge(result, g)), None)
        if hit is not None and hit.figure is not None:
            result.sensitive, result.reason = True, None
            result.how = (
                "moved by a larger factor" if id(result) in premise_of
                and result.before != "known-erratum" else "moved near its printed value"
            )
            result.perturbed = hit.figure.display
        else:
            judge(result, groups[-1] if groups else group)
            result.how = "moved up, down and near its printed value"
    for result in results:
        if result.sensitive or result.reason is not None:
            continue
        claim = catalog.get(result.claim)
        if result.before == "known-erratum" and result.after == "known-erratum" and claim.erratum:
            read = [
                r
                for r in baseline.records.values()
                if {"claim": claim.id, "name": result.figure}
                in [{"claim": p.get("claim"), "name": p.get("name")} for p in r.get("premises", [])]
            ]
            if read:
                result.reason = (
                    "a premise of the known erratum ("
                    + ", ".join(claim.erratum.refutes)
                    + "): perturbed, the listed figures still do not hold, as the erratum says"
                )


def run_audit(
    claims: Sequence[str] | None = None,
    *,
    tests: Path | str = "tests",
    pytest_args: Sequence[str] = (),
    quiet: bool = True,
) -> dict[str, Any]:
    """Run the audit in-process; the result is JSON-ready (see ``claims audit --json``)."""
    import pytest

    wanted = set(claims) if claims else None
    session = AuditSession(wanted)
    results: list[FigureResult] = []
    transcribed: dict[str, Any] = {}
    session.planner = lambda s: _plan(s, results, transcribed)
    args = [
        str(tests),
        "-m",
        "offline",
        "-p",
        "no:cacheprovider",
        "--no-claims-report",
        "-q",
        "-p",
        "no:randomly",
        *pytest_args,
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out) if quiet else contextlib.nullcontext():
        code = pytest.main(args, plugins=[session])
    if session.session is None:
        tail = out.getvalue()[-2000:]
        raise RuntimeError(f"the audit's pytest session did not run (exit {code}): {tail}")
    from claims.audit.transcribed import audit_transcriptions

    transcriptions = audit_transcriptions(Path(tests).resolve().parent)
    sensitive = sum(r.sensitive for r in results)
    from claims.audit.report import catalog_digest
    from claims.evidence import now_iso

    return {
        "finished": now_iso(),
        "catalog": catalog_digest(session.catalog),
        "partial": wanted is not None,
        "claims": sorted({r.claim for r in results}),
        "total": len(results),
        "sensitive": sensitive,
        "explained": sum(not r.sensitive and r.reason is not None for r in results),
        "defects": [asdict(r) for r in results if r.defect],
        "summary": summary_line(sensitive, len(results)),
        "figures": [asdict(r) for r in results],
        "transcriptions": transcriptions,
    }
