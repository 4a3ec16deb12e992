"""Timing verdicts with a stated chance of refuting a true claim.

A timing claim is a statement about the centre of a noisy quantity: a ratio of
two rates, of a cold to a warm first token, a server clock against the client's.
It is decided from a confidence interval for that centre (:mod:`claims.timing.intervals`):

* it **holds** when the whole interval lies on the claim's side of its bar,
* it is **refuted** when the whole interval lies on the other side,
* otherwise it is **undecided** (the tier reports "not run" with the interval).

Sampling is sequential (:class:`Plan`): a small first batch, and more values only
while the interval straddles the bar, up to a cap. The total chance of a false
refutation, ``alpha`` (1 %), is split evenly across the looks (Bonferroni, valid
whatever the looks' dependence), and each interval is built to miss the true
centre on each side with at most its share. The evidence states the chance the
run actually had: the sum over the looks made of each interval's exact
probability of lying wholly on a refuting side of the true centre.

The intervals are distribution-free, so that bound holds under whatever noise
the run met; the noise decides only how many values are needed, or whether the
cap leaves the claim undecided. A busy machine therefore costs verdicts (not
run), never flips them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from claims.timing.intervals import (
    Estimate,
    median_interval,
    shift_interval,
    whole_range,
)
from claims.timing.planning import VARIANCE_FACTOR, SizePlan, plan_size

__all__ = [
    "ALPHA",
    "AtLeast",
    "AtMost",
    "Decision",
    "Form",
    "Look",
    "Outcome",
    "Plan",
    "Within",
    "decide",
    "decide_values",
    "futile",
    "futile_early",
]

# The largest chance, per claim and run, that a true claim is refuted by sampling noise.
ALPHA = 0.01

Outcome = Literal["holds", "refuted", "undecided"]


class Form(Protocol):
    """What a claim says about the centre, and on how many sides it can be refuted."""

    @property
    def refuting_sides(self) -> int: ...

    @property
    def bars(self) -> tuple[float, ...]:
        """The values the form compares the centre with (a sample size is planned from
        the centre's distance to the nearest)."""
        ...

    def judge(self, lo: float, hi: float) -> Outcome: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class AtLeast:
    """The centre is at least ``bar`` (strictly above it when ``strict``)."""

    bar: float
    strict: bool = False
    refuting_sides: int = 1

    @property
    def bars(self) -> tuple[float, ...]:
        return (self.bar,)

    def judge(self, lo: float, hi: float) -> Outcome:
        if lo > self.bar or (not self.strict and lo >= self.bar):
            return "holds"
        if hi < self.bar or (self.strict and hi <= self.bar):
            return "refuted"
        return "undecided"

    def describe(self) -> str:
        return f"{'>' if self.strict else '>='} {self.bar:g}"


@dataclass(frozen=True)
class AtMost:
    """The centre is at most ``bar``."""

    bar: float
    refuting_sides: int = 1

    @property
    def bars(self) -> tuple[float, ...]:
        return (self.bar,)

    def judge(self, lo: float, hi: float) -> Outcome:
        if hi <= self.bar:
            return "holds"
        if lo > self.bar:
            return "refuted"
        return "undecided"

    def describe(self) -> str:
        return f"<= {self.bar:g}"


@dataclass(frozen=True)
class Within:
    """An equivalence claim: the centre lies in [low, high] ("does not change speed").

    Holds when the interval lies inside the band, is refuted when it lies wholly
    outside (on either side, hence two refuting sides), else undecided.
    """

    low: float
    high: float
    refuting_sides: int = 2

    def __post_init__(self) -> None:
        if not self.low < self.high:
            raise ValueError(f"empty band [{self.low}, {self.high}]")

    @property
    def bars(self) -> tuple[float, ...]:
        return (self.low, self.high)

    def judge(self, lo: float, hi: float) -> Outcome:
        if self.low <= lo and hi <= self.high:
            return "holds"
        if hi < self.low or lo > self.high:
            return "refuted"
        return "undecided"

    def describe(self) -> str:
        return f"within [{self.low:g}, {self.high:g}]"


Kind = Literal["sign", "signed-rank", "every value"]


@dataclass(frozen=True)
class Plan:
    """How many values to look at, and how the interval is taken.

    ``looks``: the sample sizes at which the interval is read (increasing); the
    first is the batch a quiet run needs, the last the cap. ``kind``: "sign"
    (any shape), "signed-rank" (symmetric values, e.g. alternated requests of one
    kind), or "every value" (a recorded table: no sampling, alpha unused).
    ``log``: take the interval of log(values) and report it back as ratios (for
    ratios, whose log is the natural symmetric scale).
    """

    looks: tuple[int, ...]
    kind: Kind = "sign"
    log: bool = False
    alpha: float = ALPHA
    # Per look, when the looks differ in kind (e.g. signed-rank first, then sign):
    # each look's interval holds its own share of alpha, so the union bound holds.
    kinds: tuple[Kind, ...] = ()
    # Stop for futility (None: never): after an undecided look, sampling stops when the
    # interval, narrowed about its centre to ``futility`` times what sqrt(n / cap) would
    # narrow it to at the last look, would still straddle the bar. Stopping early can only
    # leave a claim undecided, never decide it, so the chance of a false refutation is
    # unchanged; what it saves is the seconds a busy machine would spend for nothing.
    futility: float | None = None
    # Plan the sample size from the first look (the pilot): its interval's width and
    # centre predict how many values it needs (claims.timing.planning), and the sample
    # stops at the first look of the ladder at or past that number, the cap at most. The
    # maximum is known before any value past the pilot is drawn. Only ladder sizes are
    # ever judged (a draw that comes back short shows its values, undecided), so the
    # split of alpha across the ladder holds whichever looks the plan reads.
    pilot: bool = False

    def __post_init__(self) -> None:
        if not self.looks or list(self.looks) != sorted(set(self.looks)) or self.looks[0] < 1:
            raise ValueError(f"looks must be increasing positive sizes, got {self.looks}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha}")
        if self.kinds and len(self.kinds) != len(self.looks):
            raise ValueError("kinds, when given, name one kind per look")
        if self.futility is not None and not 0 < self.futility <= 1:
            raise ValueError(f"futility must be in (0, 1], got {self.futility}")
        if self.pilot and (len(self.looks) < 2 or self.kinds
                           or self.kind not in VARIANCE_FACTOR):
            raise ValueError("a planned sample needs a ladder of looks of one interval kind "
                             f"({' or '.join(VARIANCE_FACTOR)}), got {self.kind!r} at "
                             f"{self.looks}")

    def plan_from(self, form: Form, pilot: Estimate) -> SizePlan:
        """The sample size the ``pilot`` interval plans (it must be decided)."""
        if pilot.lo is None or pilot.hi is None:
            raise ValueError("a size plan needs the pilot's interval")
        scale: Literal["log", "linear"] = "log" if self.log else "linear"
        on = math.log if self.log else float
        bars = [on(b) for b in form.bars if b > 0 or not self.log]
        return plan_size(pilot.n, centre=on(pilot.centre), lo=on(pilot.lo), hi=on(pilot.hi),
                         bars=bars, looks=self.looks, miss_each_side=self.miss_each_side,
                         kind=self.kind, scale=scale)

    def kind_at(self, size: int) -> Kind:
        """The interval kind of the look at ``size`` values (the last look's beyond the cap)."""
        if not self.kinds:
            return self.kind
        for look, kind in zip(self.looks, self.kinds, strict=True):
            if size <= look:
                return kind
        return self.kinds[-1]

    @property
    def miss_each_side(self) -> float:
        """Each look's share of alpha, per side of its interval."""
        return self.alpha / len(self.looks) / 2

    def interval(self, values: Sequence[float]) -> Estimate:
        xs = [float(v) for v in values]
        if self.log:
            if any(v <= 0 for v in xs):
                raise ValueError("a ratio taken on the log scale must be positive")
            xs = [math.log(v) for v in xs]
        kind = self.kind_at(len(xs))
        if kind == "sign":
            est = median_interval(xs, self.miss_each_side)
        elif kind == "signed-rank":
            est = shift_interval(xs, self.miss_each_side)
        else:
            est = whole_range(xs)
        if not self.log:
            return est
        back = math.exp
        return Estimate(
            est.method,
            est.n,
            back(est.centre),
            None if est.lo is None else back(est.lo),
            None if est.hi is None else back(est.hi),
            est.miss_each_side,
            est.asked_miss_each_side,
        )

    def describe(self) -> str:
        if self.kind == "every value":
            return "every recorded value (the table is the population, no sampling error)"
        scale = " of the log-ratios" if self.log else ""
        kinds = (
            " / ".join(f"{k} at {n}" for n, k in zip(self.looks, self.kinds, strict=True))
            if self.kinds
            else f"{self.kind} at {', '.join(map(str, self.looks))}"
        )
        planned = (", the last look planned from the first's scatter (the pilot)"
                   if self.pilot else "")
        return (
            f"{kinds} values{scale}, "
            f"{self.alpha:.0%} split evenly across the looks{planned}"
        )


@dataclass(frozen=True)
class Look:
    """One reading of the interval: how many values, the interval, what it decided."""

    estimate: Estimate
    outcome: Outcome

    def to_json(self) -> dict[str, Any]:
        return {**self.estimate.to_json(), "outcome": self.outcome}


@dataclass(frozen=True)
class Decision:
    """The outcome of a timing rule, with everything the evidence needs to show it."""

    form: Form
    plan: Plan
    values: tuple[float, ...]
    looks: tuple[Look, ...]
    unit: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> Outcome:
        return self.looks[-1].outcome if self.looks else "undecided"

    @property
    def holds(self) -> bool | None:
        """True / False for holds / refuted; None when undecided."""
        return {"holds": True, "refuted": False}.get(self.outcome)

    @property
    def last(self) -> Estimate:
        return self.looks[-1].estimate

    @property
    def false_refutation_chance(self) -> float:
        """At most this chance that a true claim came out refuted in this run.

        The sum over the looks made of each interval's exact probability of lying
        wholly on a refuting side of the true centre (the union bound).
        """
        return sum(
            look.estimate.miss_each_side * self.form.refuting_sides for look in self.looks
        )

    def interval_text(self, digits: int = 3) -> str:
        return self.last.describe(self.unit, digits)

    @property
    def first_look_reached(self) -> bool:
        """Whether the values reached the plan's first look (else nothing could be read)."""
        return len(self.values) >= self.plan.looks[0]

    def describe(self) -> str:
        """One sentence for a note or a not-run reason.

        An undecided rule states no chance of error (nothing was decided, so there
        is no error to state): too few values say how many of the first look's
        they are, and in how many seconds; an interval that straddles the bar says so.
        """
        stopped = self.extra.get("stopped")
        why = f" ({stopped})" if stopped else ""
        seconds = self.extra.get("measured_s")
        spent = f", in {seconds:g} s" if isinstance(seconds, (int, float)) else ""
        size_plan = self.extra.get("size_plan")
        if isinstance(size_plan, dict) and size_plan.get("text"):
            why += f"; {size_plan['text']}"
        if self.outcome == "undecided" and not self.first_look_reached:
            return (
                f"not decided: {len(self.values)} of the {self.plan.looks[0]} values the "
                f"first look needs{spent}{why}"
            )
        if self.outcome == "undecided":
            return (
                f"not decided: {self.interval_text()} straddles {self.form.describe()} after "
                f"{len(self.values)} values{spent}{why}"
            )
        planned = (f"; {size_plan['text']}"
                   if isinstance(size_plan, dict) and size_plan.get("text") else "")
        return (
            f"{self.interval_text()} against {self.form.describe()}: {self.outcome}; "
            f"chance of refuting a true claim at most {self.false_refutation_chance:.2%} "
            f"({len(self.looks)} look(s): {self.plan.describe()}){planned}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.form.describe(),
            "plan": self.plan.describe(),
            "unit": self.unit,
            "outcome": self.outcome,
            "false_refutation_chance": self.false_refutation_chance,
            "looks": [look.to_json() for look in self.looks],
            "values": list(self.values),
            **self.extra,
        }


def _look(plan: Plan, form: Form, values: Sequence[float]) -> Look:
    est = plan.interval(values)
    if not est.decided:
        return Look(est, "undecided")
    assert est.lo is not None and est.hi is not None
    return Look(est, form.judge(est.lo, est.hi))


def futile(plan: Plan, form: Form, est: Estimate) -> str | None:
    """Why more values cannot decide, when the plan stops for futility and they cannot.

    The interval at the cap is predicted from this one: about the same centre,
    each side narrowed by ``sqrt(n / cap)`` (how an interval of the centre narrows
    with the sample) and by the plan's ``futility`` margin on top, on the log scale
    for a log plan. If even that interval straddles the bar, more values are spent
    for nothing.
    """
    cap = plan.looks[-1]
    if plan.futility is None or est.lo is None or est.hi is None or est.n >= cap:
        return None
    shrink = math.sqrt(est.n / cap) * plan.futility
    if plan.log:
        if min(est.lo, est.hi, est.centre) <= 0:
            return None
        c, lo, hi = math.log(est.centre), math.log(est.lo), math.log(est.hi)
        lo_at_cap, hi_at_cap = math.exp(c - (c - lo) * shrink), math.exp(c + (hi - c) * shrink)
    else:
        c = est.centre
        lo_at_cap, hi_at_cap = c - (c - est.lo) * shrink, c + (est.hi - c) * shrink
    if form.judge(lo_at_cap, hi_at_cap) != "undecided":
        return None
    return (
        f"stopped for futility: at this scatter even {cap} values would leave an interval "
        f"of about [{lo_at_cap:.3g}, {hi_at_cap:.3g}] straddling {form.describe()}"
    )


def futile_early(plan: Plan, form: Form, values: Sequence[float]) -> str | None:
    """Why a planned sample stops half-way through its pilot: its first values scatter so
    widely that no number up to the cap could fit a band (a form with two bars).

    The values' whole range is narrowed as :func:`futile` narrows an interval (by
    ``sqrt(n / cap)`` and the plan's ``futility`` margin: optimistic), and compared with
    the band's width alone, wherever the centre lies: a few values' centre is too
    uncertain to stop on, their scatter is not. A stop for futility never decides, so
    it spends none of the error rate; it bounds the pilot's own time on a machine too
    busy for the claim.
    """
    bars = sorted(form.bars)
    if plan.futility is None or len(bars) != 2 or (plan.log and bars[0] <= 0):
        return None
    xs = [math.log(v) for v in values if v > 0] if plan.log else [float(v) for v in values]
    low, high = (math.log(bars[0]), math.log(bars[1])) if plan.log else (bars[0], bars[1])
    if len(xs) < 2:
        return None
    half = (max(xs) - min(xs)) / 2 * math.sqrt(len(xs) / plan.looks[-1]) * plan.futility
    if 2 * half <= high - low:
        return None
    return (
        f"stopped for futility after {len(values)} of the pilot's {plan.looks[0]} values: "
        f"they scatter so that even {plan.looks[-1]} values would leave an interval about "
        f"{2 * half:.3g} wide{' on the log scale' if plan.log else ''}, wider than "
        f"{form.describe()}"
    )


def decide(
    draw: Callable[[int], Sequence[float]],
    form: Form,
    plan: Plan,
    *,
    unit: str = "",
    on_plan: Callable[[SizePlan], dict[str, Any]] | None = None,
) -> Decision:
    """Sample sequentially: ``draw(k)`` returns k more values; stop at the first decided look.

    A draw that returns fewer values than asked (the server stopped answering in
    time) ends the sampling: the values so far are judged once more and kept (in a
    planned sample they are shown, undecided: only the ladder's sizes are judged). A
    plan with ``futility`` also stops after an undecided look that more values could
    not decide (:func:`futile`); the decision's ``extra["stopped"]`` says so. A plan
    with ``pilot`` draws half its pilot first and stops there when even those values
    show the sample hopeless (:func:`futile_early`, with ``futility``), and plans its
    last look after the first (:meth:`Plan.plan_from`), in ``extra["size_plan"]``;
    ``on_plan`` sees that plan before any further value is drawn and returns what to
    add to it (e.g. the seconds it will take).
    """
    values: list[float] = []
    looks: list[Look] = []
    extra: dict[str, Any] = {}
    last = plan.looks[-1]
    if plan.pilot and plan.futility is not None and plan.looks[0] >= 4:
        # Half the pilot first: a hopeless scatter stops there, in half the pilot's time.
        half = plan.looks[0] // 2
        values.extend(float(v) for v in draw(half))
        why = futile_early(plan, form, values) if len(values) == half else None
        if why is not None:
            extra["stopped"] = why
            looks.append(Look(plan.interval(values), "undecided"))
            return Decision(form, plan, tuple(values), tuple(looks), unit, extra)
    for size in plan.looks:
        if size > last:
            break
        want = size - len(values)
        got = [float(v) for v in draw(want)]
        values.extend(got)
        look = _look(plan, form, values)
        if plan.pilot and len(got) < want and look.outcome != "undecided":
            look = Look(look.estimate, "undecided")  # off the ladder: shown, not judged
        looks.append(look)
        if look.outcome != "undecided" or len(got) < want:
            break
        why = futile(plan, form, look.estimate)
        if why is not None:
            extra["stopped"] = why
            break
        if plan.pilot and len(looks) == 1 and look.estimate.decided:
            size_plan = plan.plan_from(form, look.estimate)
            last = size_plan.planned
            extra["size_plan"] = {**size_plan.to_json(), "text": size_plan.describe(),
                                  **(on_plan(size_plan) if on_plan is not None else {})}
    return Decision(form, plan, tuple(values), tuple(looks), unit, extra)


def decide_values(
    values: Sequence[float], form: Form, plan: Plan, *, unit: str = ""
) -> Decision:
    """The same rule on values already measured: the looks read their prefixes."""
    pool = [float(v) for v in values]
    position = 0

    def draw(k: int) -> list[float]:
        nonlocal position
        out = pool[position : position + k]
        position += len(out)
        return out

    if plan.kind == "every value":
        return Decision(form, plan, tuple(pool), (_look(plan, form, pool),), unit)
    return decide(draw, form, plan, unit=unit)
