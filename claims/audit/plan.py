"""What the mutation audit perturbs, and why a figure may not be able to change anything.

From the baseline run's check records this module decides, per stated figure
of every claim the offline tier decides: which tests rerun with it perturbed
(its claim's own, plus every test that read it as a premise), the first
perturbation to try, and, where the baseline's own records already say so,
why no perturbation can change a verdict. Nothing here runs a test: the
records come in as plain dicts, so each rule is a pure function.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from claims.audit.mutate import corrected, moved
from claims.catalog.records import Claim, StatedFigure
from claims.tiers import OFFLINE, TIERS
from claims.verdicts import Verdict

__all__ = [
    "FigureResult",
    "Planned",
    "erratum_premise_reason",
    "first_perturbation",
    "insensitive_reason",
    "measurements_of",
    "plan_figures",
    "read_as_premise",
    "unaudited_figures",
]

Record = Mapping[str, Any]  # one test's check record (as the evidence writer keeps it)

# How a figure was perturbed (FigureResult.how), in the order the audit tries them.
CORRECTED = "corrected to the measurement"
MOVED_UP = "moved up"
MOVED_DOWN = "moved down"
MOVED_BOTH = "moved up and down"
MOVED_NEAR = "moved near its printed value"
MOVED_COARSE = "moved by a coarse factor"
MOVED_ALL = "moved up, down and near its printed value"


@dataclass
class FigureResult:
    """What perturbing one stated figure did."""

    claim: str
    figure: str
    stated: str
    perturbed: str | None = None
    how: str | None = None  # one of the constants above
    before: str | None = None  # the claim's verdict in the baseline run
    after: str | None = None  # ... with the figure perturbed
    changed_checks: list[str] = field(default_factory=list)
    # Every claim whose verdict a perturbation changed: "ID before -> after". The figure
    # is sensitive only when its own claim is among them.
    changed_claims: list[str] = field(default_factory=list)
    after_reason: str | None = None  # the perturbed run's reason for its verdict
    sensitive: bool = False
    reason: str | None = None  # why an insensitive figure cannot change its verdict
    # The other slips tried (claims.audit.mutate.slips): kind, the slipped figure, the
    # claim's verdict after it, whether that moved, and if not, why.
    slips: list[dict[str, Any]] = field(default_factory=list)

    @property
    def defect(self) -> bool:
        return not self.sensitive and self.reason is None


@dataclass
class Planned:
    """One figure's audit plan: the tests to rerun and the first perturbation to try."""

    result: FigureResult
    claim: Claim
    figure: StatedFigure
    items: list[Any]  # the tests to rerun (pytest items)
    values: list[Any]  # what the baseline's checks measured against the figure
    mutation: StatedFigure
    premised: bool = False  # some check computed with it (a bar a measured ratio is held to)


def measurements_of(claim: Claim, fig: StatedFigure, records: Iterable[Record]) -> list[Any]:
    """The measurements the records hold under the figure's name, for this claim."""
    return [
        m
        for rec in records
        for m in rec.get("measurements", [])
        if m.get("name") == fig.name and m.get("claim") in (None, claim.id)
    ]


def read_as_premise(claim_id: str, name: str, record: Record) -> bool:
    """Whether the test behind ``record`` computed with the figure (Check.premise)."""
    return any(
        p.get("claim") == claim_id and p.get("name") == name for p in record.get("premises", [])
    )


def first_perturbation(
    claim: Claim, fig: StatedFigure, values: Sequence[Any]
) -> tuple[str, StatedFigure]:
    """How to perturb the figure first, and the perturbed figure.

    A figure a known erratum lists is corrected to what was measured (the document
    fixed its erratum: the check judging it on its own must fail strictly); any
    other is moved up until no measurement agrees with it.
    """
    listed = claim.erratum is not None and (
        not claim.erratum.refutes or fig.name in claim.erratum.refutes
    )
    fixed = corrected(fig, values) if listed and values else None
    if fixed is not None:
        return CORRECTED, fixed
    return MOVED_UP, moved(fig, values)


def insensitive_reason(
    claim: Claim,
    fig: StatedFigure,
    records: Sequence[Record],
    measurements: Sequence[Record],
    premised: bool,
    before: str,
) -> str | None:
    """Why the figure could not change its verdict, from the baseline's own records; None
    if nothing explains it (then a perturbation that changes nothing is a defect)."""
    live = [t for t in claim.tiers if t in TIERS.live()]
    if not records or all(r.get("verdict") == Verdict.NOT_RUN for r in records):
        why = "; ".join(dict.fromkeys(str(r.get("message")) for r in records)) or "no test"
        return f"its offline checks did not run here ({why})"
    compared = [m for m in measurements if m.get("compared")]
    if not compared and not premised:
        na = [m for m in measurements if m.get("applicable") is False]
        if na:
            return "not judged offline: " + "; ".join(dict.fromkeys(str(m.get("note")) for m in na))
        shown = [m for m in measurements if "matches" in m]
        if shown:
            return f"describes the author's own run, shown beside, not judged: {fig.particular}"
        if live:
            return f"read by no offline check; judged only live ({', '.join(live)})"
        return None
    if before in (Verdict.REFUTED, Verdict.ERROR):
        return f"the claim is already {before} offline; a perturbed figure cannot undo that"
    return None


def erratum_premise_reason(
    claim: Claim, result: FigureResult, records: Iterable[Record]
) -> str | None:
    """The reason of a premise of a known erratum that stayed known-erratum, or None.

    Such a figure (an efficiency the erratum's figures are computed from) leaves
    its claim a known erratum whichever way it moves; any other claim it changed
    is named, since there the figure does decide a verdict.
    """
    if not (
        claim.erratum
        and result.before == Verdict.KNOWN_ERRATUM
        and result.after == Verdict.KNOWN_ERRATUM
        and any(read_as_premise(claim.id, result.figure, r) for r in records)
    ):
        return None
    reason = (
        "a premise of the known erratum ("
        + ", ".join(claim.erratum.refutes)
        + "): perturbed, the listed figures still do not hold, as the erratum says"
    )
    others = [c for c in result.changed_claims if not c.startswith(f"{claim.id} ")]
    if others:
        reason += "; it changes the verdict of " + ", ".join(others) + ", which computes with it"
    return reason


def plan_figures(
    catalog: Iterable[Claim],
    wanted: set[str] | None,
    by_claim: Mapping[str, Sequence[Any]],
    items: Sequence[Any],
    baseline: Mapping[str, Record],
    base_claims: Mapping[str, str],
) -> list[Planned]:
    """One plan per stated figure of every selected claim the offline tier decides."""
    planned: list[Planned] = []
    for claim in catalog:
        if not claim.testable or OFFLINE.name not in claim.tiers:
            continue
        if wanted is not None and claim.id not in wanted:
            continue
        own = list(by_claim.get(claim.id, []))
        records = [baseline[i.nodeid] for i in own if i.nodeid in baseline]
        for fig in claim.stated:
            measurements = measurements_of(claim, fig, records)
            readers = [
                item
                for item in items
                if item not in own
                and read_as_premise(claim.id, fig.name, baseline.get(item.nodeid, {}))
            ]
            premised = any(read_as_premise(claim.id, fig.name, r) for r in baseline.values())
            before = base_claims.get(claim.id, Verdict.NOT_RUN)
            values = [m.get("measured") for m in measurements if m.get("compared")]
            how, mutation = first_perturbation(claim, fig, values)
            result = FigureResult(
                claim=claim.id,
                figure=fig.name,
                stated=fig.display,
                before=before,
                how=how,
                perturbed=mutation.display,
                reason=insensitive_reason(claim, fig, records, measurements, premised, before),
            )
            planned.append(
                Planned(result, claim, fig, own + readers, values, mutation, premised)
            )
    return planned


def unaudited_figures(catalog: Iterable[Claim], wanted: set[str] | None) -> list[FigureResult]:
    """The judged figures the offline audit cannot perturb (their claims are decided only
    live), each listed with that reason, so the audit's total is every judged figure."""
    out: list[FigureResult] = []
    for claim in catalog:
        if not claim.testable or OFFLINE.name in claim.tiers:
            continue
        if wanted is not None and claim.id not in wanted:
            continue
        tiers = ", ".join(claim.tiers) or "no tier"
        for fig in claim.stated:
            out.append(FigureResult(
                claim=claim.id,
                figure=fig.name,
                stated=fig.display,
                reason=f"judged only live ({tiers}): no offline test reads it, so the offline "
                "audit cannot perturb it",
            ))
    return out
