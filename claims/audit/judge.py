"""Whether one perturbed rerun changed a verdict: the audit's definition of "sensitive".

A figure is sensitive when perturbing it changes its own claim's verdict. A
check whose verdict changes while the claim's stays (one more refuted check of
a refuted claim, a known erratum that stays one) is recorded, never counted:
the claim is what a reader is told. A change in another claim (one whose test
computes with the figure as a premise) is recorded by name as well.

Claim verdicts after a rerun are taken over the baseline's records with the
rerun's laid over them, so a claim of which only one test reran is judged on
all of its tests, as in the baseline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from claims.audit.plan import FigureResult
from claims.verdicts import Verdict, check_verdict, claim_verdict

__all__ = ["Baseline", "check_verdicts", "claim_verdicts", "judge", "verdict_after"]

Records = Mapping[str, Mapping[str, Any]]  # nodeid -> the check record of one run of that test


def claim_verdicts(records: Records) -> dict[str, Verdict]:
    """Each claim's verdict from the records of one run of its tests."""
    per_claim: dict[str, list[Mapping[str, Any]]] = {}
    for rec in records.values():
        for cid in rec.get("claims", []):
            per_claim.setdefault(cid, []).append(rec)
    return {cid: claim_verdict(True, None, recs)[0] for cid, recs in per_claim.items()}


def check_verdicts(records: Records) -> dict[str, Verdict]:
    """Each test's check verdict (nodeid -> verdict)."""
    return {nodeid: check_verdict(rec) for nodeid, rec in records.items()}


@dataclass(frozen=True)
class Baseline:
    """The unperturbed run: its records and the verdicts they give."""

    records: Records
    claims: Mapping[str, str]
    checks: Mapping[str, str]
    # Each claim's records (nodeid -> record, in the run's order) and each record's place
    # in the run: a rerun is judged on the claims it touched alone, not by deciding every
    # claim of the catalog again (that grew with the square of the series, issue 51).
    by_claim: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    position: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, records: Records) -> Baseline:
        by_claim: dict[str, dict[str, Mapping[str, Any]]] = {}
        for nodeid, rec in records.items():
            for cid in rec.get("claims", []):
                by_claim.setdefault(cid, {})[nodeid] = rec
        return cls(dict(records), claim_verdicts(records), check_verdicts(records), by_claim,
                   {nodeid: i for i, nodeid in enumerate(records)})


def _claim_records(claim_id: str, baseline: Baseline, rerun: Records
                   ) -> list[Mapping[str, Any]]:
    """The records of ``claim_id`` in the baseline's records with the rerun's laid over them
    (``{**baseline.records, **rerun}``), in that merge's order, without making it."""
    found = {nodeid: rec for nodeid, rec in baseline.by_claim.get(claim_id, {}).items()
             if nodeid not in rerun}
    after = len(baseline.position)
    late = {}
    for i, (nodeid, rec) in enumerate(rerun.items()):
        if claim_id in rec.get("claims", []):
            found[nodeid] = rec
        late[nodeid] = after + i
    order = sorted(found, key=lambda n: baseline.position.get(n, late.get(n, after)))
    return [found[nodeid] for nodeid in order]


def _verdict_after(claim_id: str, baseline: Baseline, rerun: Records) -> str:
    records = _claim_records(claim_id, baseline, rerun)
    return claim_verdict(True, None, records)[0] if records else Verdict.NOT_RUN


def judge(result: FigureResult, baseline: Baseline, rerun: Records) -> bool:
    """Record in ``result`` what the rerun changed; True when its own claim's verdict did.

    ``after``, ``changed_checks`` and ``after_reason`` describe this rerun;
    ``changed_claims`` gathers every claim any rerun of the figure changed.
    """
    touched = {cid for rec in rerun.values() for cid in rec.get("claims", [])}
    after_claims = {cid: _verdict_after(cid, baseline, rerun)
                    for cid in touched | {result.claim}}
    result.after = after_claims[result.claim]
    result.changed_checks = [
        nodeid
        for nodeid, verdict in check_verdicts(rerun).items()
        if baseline.checks.get(nodeid) != verdict
    ]
    # Kept across the perturbations tried: one that moved another claim counts for the record.
    for cid in sorted(touched):
        before = baseline.claims.get(cid, Verdict.NOT_RUN)
        if after_claims[cid] != before:
            change = f"{cid} {before} -> {after_claims[cid]}"
            if change not in result.changed_claims:
                result.changed_claims.append(change)
    own = _claim_records(result.claim, baseline, rerun)
    result.after_reason = claim_verdict(True, None, own)[1] if own else None
    return result.after != result.before


def verdict_after(claim_id: str, baseline: Baseline, rerun: Records) -> str:
    """The claim's verdict over the baseline's records with one rerun's laid over them."""
    return _verdict_after(claim_id, baseline, rerun)
