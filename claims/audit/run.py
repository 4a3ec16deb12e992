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

4. every figure its checks compare, slipped the other ways a transcriber slips it
   (:func:`claims.audit.mutate.slips`: its unit, form, bound direction, scope), each
   slip recorded with the verdict it left and, when that did not move, why.

Then every recorded value a claim test read in the baseline (:mod:`claims.audit.data`)
is changed in turn and its readers rerun (:func:`audit_recorded_data`).

What counts as a moved verdict is :func:`claims.audit.judge.judge`.
"""

from __future__ import annotations

from typing import Any

from claims.audit.data import (
    LAST_DIGIT,
    Datum,
    Reads,
    reading,
    slips_of,
    taken_from_the_catalog,
    value_at,
)
from claims.audit.judge import Baseline, judge, verdict_after
from claims.audit.mutate import every_move, flipped, moved, near, slips
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
    unaudited_figures,
)
from claims.audit.runner import AuditSession, Group
from claims.catalog.records import StatedFigure
from claims.text import transcribed
from claims.verdicts import Verdict

__all__ = ["audit_figures", "audit_recorded_data"]


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


def _slip_reason(
    kind: str, slipped: str, plan: Planned, base: Baseline, session: AuditSession
) -> str:
    """Why a slip of this kind left the claim's verdict where it was."""
    unpinned = ""
    if kind == "unit":
        anchor = session.anchor_of(plan.claim.id, plan.figure.name)
        # The anchor's unit (or its reads, the whole display) is what catches a unit slip
        # whatever the check does; without one, only a check that converts can.
        unpinned = (
            "its anchor pins no printed unit (the document prints none right after the "
            "number: a JSON field, a label or metric name before it, a word), and "
            if anchor is None or (anchor.unit is None and anchor.reads is None) else ""
        )
    if plan.result.before in (Verdict.REFUTED, Verdict.KNOWN_ERRATUM, Verdict.ERROR):
        return (f"{unpinned}the claim is already {plan.result.before} offline; a slip cannot "
                "undo that")
    records = [base.records[i.nodeid] for i in plan.items if i.nodeid in base.records]
    recorded_only = bool(records) and all(r.get("source") == "recorded" for r in records)
    if kind == "scope":
        if recorded_only:
            return ("judged on the document's own records, which are the author's model and "
                    "machine whatever the scope says")
        return "no offline check of it ran on another model or machine than the scope names"
    if kind == "unit":
        return (f"{unpinned}its check hands over a bare number (no unit=), so the figure's "
                "unit is not read; a measurement taken in the wrong unit would pass")
    return f"every measurement also meets the figure read as {slipped}"


def _slips(session: AuditSession, base: Baseline, plans: list[Planned], profile: str) -> None:
    """Stage 4: each compared figure's unit, form, bound direction and scope slipped, and
    run as a run over the slipped catalog runs: its anchor check included (``pinned``), so
    a slip the figure's anchor objects to fails its document's claim tests. Which of the
    two caught a slip is recorded (``by``)."""
    todo = [
        (plan, kind, fig)
        for plan in plans
        if plan.result.reason is None
        for kind, fig in slips(plan.figure, profile)
    ]
    groups = [
        Group(items=p.items, claim=p.claim.id, figure=fig, pinned=True) for p, _, fig in todo
    ]
    session.run(groups)
    for (plan, kind, fig), group in zip(todo, groups, strict=True):
        after = verdict_after(plan.claim.id, base, group.records)
        caught = after != plan.result.before
        shown = f"{fig.form} {fig.display}" if kind in ("form", "bound direction") else (
            fig.display if kind == "unit" else
            f"{fig.display} for {fig.model or fig.profile or 'any model and machine'}"
        )
        plan.result.slips.append({
            "kind": kind,
            "slipped": shown,
            "after": after,
            "caught": caught,
            "by": None if not caught else "anchor" if group.pin else "check",
            "why": None if caught else _slip_reason(kind, fig.form, plan, base, session),
        })


def _anchored_note(session: AuditSession, doc: str, path: str) -> str:
    """What stands guard over a recorded value no claim test judges: its anchor, with which
    the transcription check compares it with the document when the documents are given."""
    try:
        anchor = transcribed.load_anchors(session.root, doc).get(path)
    except (OSError, ValueError, KeyError):
        anchor = None
    if anchor is None:
        return ""
    return (f"; it is anchored at {anchor.get('seed')} line {anchor.get('line')}, where the "
            "transcription check compares it with the document when the documents are "
            "given (--claims-documents)")


def audit_recorded_data(session: AuditSession, base: Baseline, reads: Reads) -> dict[str, Any]:
    """Each recorded value some claim test read, slipped every way :func:`slips_of` makes
    (the decimal point, the last digit, the column's unit), one slip per rerun of its
    readers; caught when a reader's claim moves.

    A value a fixture takes from the catalog is a figure, audited as one: not changed here.
    """
    readers: dict[Datum, list[Any]] = {}
    by_id = {item.nodeid: item for item in session.items}
    for nodeid, data in reads.by_test.items():
        for datum in data:
            if nodeid in by_id:
                readers.setdefault(datum, []).append(by_id[nodeid])
    todo: list[tuple[Datum, str, Any, list[Any]]] = []
    skipped = 0
    if not readers:
        return {"values": 0, "slips": 0, "caught": 0, "not_slipped": 0, "by_kind": {},
                "survivors": []}
    values = 0
    for datum in sorted(readers):
        doc, path = datum
        raw = transcribed.raw_data(session.root, doc)
        if path in taken_from_the_catalog(raw):
            continue
        made = slips_of(path, value_at(raw, path))
        if not made:
            skipped += 1
            continue
        values += 1
        todo += [(datum, kind, value, readers[datum]) for kind, value in made]
    groups = [Group(items=items, datum=datum, value=value) for datum, _, value, items in todo]
    session.run(groups)
    survivors: list[dict[str, Any]] = []
    by_kind: dict[str, dict[str, int]] = {}
    caught = 0
    judged: dict[Datum, str] = {}  # a slip of the value that moved a claim: which, and how
    for (datum, kind, value, items), group in zip(todo, groups, strict=True):
        counts = by_kind.setdefault(kind, {"cases": 0, "caught": 0})
        counts["cases"] += 1
        claims = sorted({c for rec in group.records.values() for c in rec.get("claims", [])})
        moved = [c for c in claims if verdict_after(c, base, group.records) != base.claims.get(c)]
        if moved:
            caught += 1
            counts["caught"] += 1
            judged.setdefault(datum, f"its {kind} slip moved {moved[0]}")
            continue
        checks = [
            i.nodeid for i in items
            if i.nodeid in group.records and i.nodeid in base.records
            and group.records[i.nodeid].get("verdict") != base.records[i.nodeid].get("verdict")
        ]
        why = (
            f"{len(checks)} reading check(s) moved, but no reading claim's verdict did (its "
            "other checks, or an erratum it already is, decide it)" if checks else
            "its readers show it (attached, observed or used as context) without judging it"
        )
        survivors.append({"datum": f"{datum[0]} {datum[1]}", "slip": kind,
                          "changed": str(value), "readers": len(items), "why": why,
                          "_datum": datum})
    for survivor in survivors:
        datum = survivor.pop("_datum")
        fine = survivor["slip"] in (LAST_DIGIT, "digit +1")
        if fine and datum in judged and not survivor["why"].startswith(tuple("0123456789")):
            # Judged, but not this finely: a nanosecond count whose rate the document
            # prints to a tenth, a token id any valid id stands in for.
            survivor["why"] = (
                f"its readers judge it ({judged[datum]}), but not to this precision: the "
                "slip stays within what the figures and checks that use it allow")
        survivor["why"] += _anchored_note(session, *datum)
    return {"values": values, "slips": len(todo), "caught": caught, "not_slipped": skipped,
            "by_kind": by_kind, "survivors": survivors}


def audit_figures(session: AuditSession) -> list[FigureResult]:
    """Run the baseline and every stage; one result per stated figure, in catalog order.

    The baseline notes which recorded data each test reads (``session.reads``), for
    :func:`audit_recorded_data`."""
    baseline = Group(items=list(session.items))
    reads = session.reads = Reads()
    with reading(reads):
        session.run([baseline])
    session.reads = None
    session.baseline_reads = reads
    session.baseline_records = baseline.records
    base = Baseline.of(baseline.records)
    plans = plan_figures(
        session.catalog, session.wanted, session.by_claim, session.items, base.records, base.claims
    )
    _near(session, base, _down(session, base, _first(session, base, plans)))
    _slips(session, base, plans, session.profile)
    for plan in plans:
        result = plan.result
        if not result.sensitive and result.reason is None:
            result.reason = erratum_premise_reason(plan.claim, result, base.records.values())
    session.recorded_data = audit_recorded_data(session, base, reads)
    return [p.result for p in plans] + unaudited_figures(session.catalog, session.wanted)
