"""The audit's stages: the baseline, then each figure perturbed until its verdict moves.

Each stage runs all of its groups in one pass of the session
(:class:`claims.audit.runner.AuditSession`), so a claim's module fixtures are
set up once per stage, not once per figure:

1. every figure perturbed as :func:`claims.audit.plan.first_perturbation` says;
2. a number or range whose verdict did not move, moved down instead (a
   one-sided bound notices one direction only);
3. a figure of a known erratum that still did not move, stepped near its printed
   value (the perturbation that matters is the one that makes a listed figure
   hold, which a coarse move misses); a bar some check holds a measured ratio to,
   moved by every coarse factor (only a move past the measured ratio can change
   the verdict, and the first coarse move may stop short of it).

What counts as a moved verdict is :func:`claims.audit.judge.judge`.
"""

from __future__ import annotations

from claims.audit.judge import Baseline, judge
from claims.audit.mutate import every_move, flipped, moved, near
from claims.audit.plan import (
    MOVED_ALL,
    MOVED_BOTH,
    MOVED_COARSE,
    MOVED_DOWN,
    MOVED_NEAR,
    MOVED_UP,
    FigureResult,
    Planned,
    erratum_premise_reason,
    plan_figures,
)
from claims.audit.runner import AuditSession, Group
from claims.catalog.records import StatedFigure
from claims.verdicts import Verdict

__all__ = ["audit_figures"]


def _sensitive(result: FigureResult) -> None:
    result.sensitive, result.reason = True, None


def _first(session: AuditSession, base: Baseline, plans: list[Planned]) -> list[Planned]:
    """Stage 1; returns the plans whose verdict did not move."""
    groups = [Group(items=p.items, claim=p.claim.id, figure=p.mutation) for p in plans]
    session.run(groups)
    left: list[Planned] = []
    for plan, group in zip(plans, groups, strict=True):
        if judge(plan.result, base, group.records):
            _sensitive(plan.result)
        else:
            left.append(plan)
    return left


def _down(session: AuditSession, base: Baseline, plans: list[Planned]) -> list[Planned]:
    """Stage 2, for numbers and ranges first moved up; returns those still unmoved."""
    todo = [p for p in plans if p.figure.kind in ("number", "range") and p.result.how == MOVED_UP]
    groups = []
    for plan in todo:
        down = moved(plan.figure, plan.values, down=True)
        plan.result.how, plan.result.perturbed = MOVED_DOWN, down.display
        groups.append(Group(items=plan.items, claim=plan.claim.id, figure=down))
    session.run(groups)
    left: list[Planned] = []
    for plan, group in zip(todo, groups, strict=True):
        if judge(plan.result, base, group.records):
            _sensitive(plan.result)
        else:
            plan.result.how = MOVED_BOTH
            left.append(plan)
    return left


def _is_bar(plan: Planned) -> bool:
    return plan.premised and plan.result.before != Verdict.KNOWN_ERRATUM


def _bound_moves(plan: Planned) -> list[StatedFigure]:
    """A bound (at-most, at-least) the moves did not cross: every coarse move, then its
    direction turned."""
    turned = flipped(plan.figure)
    return [] if turned is None else [*every_move(plan.figure), turned]


def _near(session: AuditSession, base: Baseline, plans: list[Planned]) -> None:
    """Stage 3, for figures of a known erratum (stepped near) and bars (every coarse move)."""
    todo = [
        (
            p,
            near(p.figure)
            if p.result.before == Verdict.KNOWN_ERRATUM
            else every_move(p.figure) if _is_bar(p) else _bound_moves(p),
        )
        for p in plans
        if p.result.before == Verdict.KNOWN_ERRATUM or _is_bar(p) or flipped(p.figure)
    ]
    searched = [
        (plan, [Group(items=plan.items, claim=plan.claim.id, figure=c) for c in candidates])
        for plan, candidates in todo
    ]
    session.run([g for _, groups in searched for g in groups])
    for plan, groups in searched:
        hit = next((g for g in groups if judge(plan.result, base, g.records)), None)
        if hit is not None and hit.figure is not None:
            _sensitive(plan.result)
            near_erratum = plan.result.before == Verdict.KNOWN_ERRATUM and not _is_bar(plan)
            how = MOVED_NEAR if near_erratum else MOVED_COARSE
            plan.result.how, plan.result.perturbed = how, hit.figure.display
        elif groups:
            # What the widest step did is what the result shows.
            judge(plan.result, base, groups[-1].records)
            plan.result.how = MOVED_ALL
        else:
            plan.result.how = MOVED_ALL


def audit_figures(session: AuditSession) -> list[FigureResult]:
    """Run the baseline and every stage; one result per stated figure, in catalog order."""
    baseline = Group(items=list(session.items))
    session.run([baseline])
    base = Baseline.of(baseline.records)
    plans = plan_figures(
        session.catalog, session.wanted, session.by_claim, session.items, base.records, base.claims
    )
    _near(session, base, _down(session, base, _first(session, base, plans)))
    for plan in plans:
        result = plan.result
        if not result.sensitive and result.reason is None:
            result.reason = erratum_premise_reason(plan.claim, result, base.records.values())
    return [p.result for p in plans]
