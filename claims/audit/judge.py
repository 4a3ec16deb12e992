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
from dataclasses import dataclass
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

    @classmethod
    def of(cls, records: Records) -> Baseline:
        return cls(dict(records), claim_verdicts(records), check_verdicts(records))


def judge(result: FigureResult, baseline: Baseline, rerun: Records) -> bool:
    """Record in ``result`` what the rerun changed; True when its own claim's verdict did.

    ``after``, ``changed_checks`` and ``after_reason`` describe this rerun;
    ``changed_claims`` gathers every claim any rerun of the figure changed.
    """
    merged = {**baseline.records, **rerun}
    after_claims = claim_verdicts(merged)
    touched = {cid for rec in rerun.values() for cid in rec.get("claims", [])}
    result.after = after_claims.get(result.claim, Verdict.NOT_RUN)
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
    own = [r for r in merged.values() if result.claim in r.get("claims", [])]
    result.after_reason = claim_verdict(True, None, own)[1] if own else None
    return result.after != result.before


def verdict_after(claim_id: str, baseline: Baseline, rerun: Records) -> str:
    """The claim's verdict over the baseline's records with one rerun's laid over them."""
    return claim_verdicts({**baseline.records, **rerun}).get(claim_id, Verdict.NOT_RUN)
