"""Sample sizes planned from a pilot: small for low noise, the bound for high noise, and the
error rate held whatever the plan reads.

Synthetic, seeded series only (no server): the plan's arithmetic, the looks a planned
rule reads, the seconds a planned pool is held to, and by simulation the chance that a
true claim is refuted under a planned sample.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from statistics import NormalDist

import pytest

from claims.timing import AtLeast, Plan, decide, decide_values
from claims.timing.budget import Budget
from claims.timing.planning import SizePlan, plan_size
from claims.timing.policy import ALTERNATED, PLAN_SLACK, change_band
from claims.timing.procedures import SamplePool, decide_pool

BAND = change_band(5)


def _alternated(rng: random.Random, scatter: float, centre: float = 1.0):
    """Ratios of alternated requests: ``centre`` times a symmetric log-scatter."""

    def draw(k: int) -> list[float]:
        return [centre * math.exp(rng.gauss(0.0, scatter)) for _ in range(k)]

    return draw


def _asking(draw):
    asked: list[int] = []

    def counted(k: int) -> list[float]:
        asked.append(k)
        return draw(k)

    return counted, asked


LADDER = (12, 20, 28, 36)
LOG_BAND = [math.log(0.95), math.log(1.05)]


def _plan(half: float, centre: float = 0.0, **kw) -> SizePlan:
    args = {"bars": LOG_BAND, "looks": LADDER, "miss_each_side": 0.00125,
            "kind": "signed-rank", "scale": "log", **kw}
    return plan_size(12, centre=centre, lo=centre - half, hi=centre + half, **args)


def test_the_planned_size_grows_with_the_square_of_the_pilots_width_over_the_margin():
    margin = math.log(1.05)
    # A pilot interval 1.2 times the margin wide on each side: 12 x 1.44 = 17.3 values.
    modest = _plan(1.2 * margin)
    assert modest.required == 18 and modest.planned == 20 and not modest.at_bound
    # Twice as wide: four times the values, past the cap of 36.
    wide = _plan(2.4 * margin)
    assert wide.required == math.ceil(12 * 2.4**2) and wide.planned == 36 and wide.at_bound
    # Just past the band (a pilot the next look is predicted to decide): the plan still
    # reads one more look, never the pilot's own size again.
    close = _plan(1.01 * margin)
    assert close.required == 13 and close.planned == 20
    # The same width nearer the band's edge needs more values.
    edge = _plan(0.0145, centre=math.log(1.04))
    assert edge.margin == pytest.approx(math.log(1.05) - math.log(1.04))
    assert edge.required == math.ceil(12 * (0.0145 / edge.margin) ** 2) and edge.planned == 28
    # The scatter the interval implies: a normal value's, z * sqrt(pi / 3 / n) per side.
    z = NormalDist().inv_cdf(1 - 0.00125)
    assert modest.scatter == pytest.approx(1.2 * margin * math.sqrt(12 / (math.pi / 3)) / z)


def test_a_centre_on_the_bar_or_past_the_cap_plans_the_bound():
    common = {"bars": [2.0], "looks": (9, 15), "miss_each_side": 0.0025, "kind": "sign"}
    on_bar = plan_size(9, centre=2.0, lo=1.5, hi=2.5, **common)
    assert on_bar.required is None and on_bar.planned == 15 and on_bar.at_bound
    assert "no number of values" in on_bar.describe() and "(the bound)" in on_bar.describe()
    with pytest.raises(ValueError):
        plan_size(9, centre=1.0, lo=0.5, hi=1.5, bars=[2.0], looks=(9,), miss_each_side=0.01,
                  kind="every value")
    with pytest.raises(ValueError):
        plan_size(9, centre=3.0, lo=0.5, hi=1.5, **common)


def test_a_planned_plan_is_a_ladder_of_one_kind():
    with pytest.raises(ValueError):
        Plan(looks=(12,), kind="signed-rank", pilot=True)
    with pytest.raises(ValueError):
        Plan(looks=(1, 2), kind="every value", pilot=True)
    assert ALTERNATED.pilot and "planned" in ALTERNATED.describe()


def test_low_noise_is_decided_by_the_pilot_and_plans_nothing():
    draw, asked = _asking(_alternated(random.Random(5), 0.01))
    decision = decide(draw, BAND, ALTERNATED)
    assert decision.outcome == "holds" and sum(asked) == ALTERNATED.looks[0]
    assert "size_plan" not in decision.extra


def test_moderate_noise_plans_a_look_before_the_cap_and_reads_no_further():
    # 3 % per pair: the pilot's interval pokes out of the ±5 % band, and its scatter asks
    # for fewer values than the cap, so the sample stops at the planned look.
    for seed in range(40):
        draw, asked = _asking(_alternated(random.Random(seed), 0.03))
        decision = decide(draw, BAND, ALTERNATED)
        plan = decision.extra.get("size_plan")
        if plan is not None and plan["planned"] < ALTERNATED.looks[-1]:
            break
    else:
        pytest.fail("no seed planned fewer values than the cap")
    assert sum(asked) <= plan["planned"] and not plan["at_bound"]
    assert len(decision.values) <= plan["planned"]
    assert [look.estimate.n for look in decision.looks] == [
        n for n in ALTERNATED.looks if n <= len(decision.values)]
    assert "planned" in decision.describe() and f"pilot of {ALTERNATED.looks[0]}" in \
        decision.describe()


def test_high_noise_plans_the_bound_and_never_reads_past_it():
    # 8 % per pair at a centre of 1.03: no affordable sample fits the band, but the
    # interval is not yet hopeless by the futility rule: the plan is the cap.
    plan = replace(ALTERNATED, futility=None)
    draw, asked = _asking(_alternated(random.Random(11), 0.08, centre=1.03))
    decision = decide(draw, BAND, plan)
    size_plan = decision.extra["size_plan"]
    assert size_plan["at_bound"] and size_plan["planned"] == plan.looks[-1]
    assert sum(asked) == len(decision.values) == plan.looks[-1]
    assert decision.outcome == "undecided" and "the bound" in decision.describe()


def test_a_short_draw_is_shown_but_not_judged_off_the_ladder():
    # The split of alpha covers the ladder's sizes only: 11 equal values (a server that
    # stopped answering one short of the pilot) are kept and shown, undecided, where an
    # unplanned rule judges them (and they would hold).
    def server(total: int):
        left = [total]

        def short(k: int) -> list[float]:
            got = min(k, left[0])
            left[0] -= got
            return [1.0] * got

        return short

    decision = decide(server(11), BAND, ALTERNATED)
    assert decision.outcome == "undecided" and decision.last.n == 11
    assert decision.last.decided  # an interval was there to judge, and was not judged
    assert decide(server(11), BAND, replace(ALTERNATED, pilot=False)).outcome == "holds"
    assert decide_values([1.0] * 12, BAND, ALTERNATED).outcome == "holds"


def test_the_pool_is_held_to_the_planned_seconds():
    """A planned sample on a pool whose items take 2 s: the plan's seconds are the pilot's
    plus the planned items at 2 s, and a machine that slows down to 10 s an item stops the
    pool at the bound (PLAN_SLACK times the planned seconds) instead of running to the cap."""
    now = [0.0]
    rng = random.Random(11)
    cost = [2.0]

    def take(k: int) -> list[float]:
        now[0] += cost[0]
        if len(pool.items) >= ALTERNATED.looks[0]:
            cost[0] = 10.0  # the machine got busy after the pilot
        return [1.03 * math.exp(rng.gauss(0.0, 0.08)) for _ in range(k)]

    pool: SamplePool[float] = SamplePool(take, cap=ALTERNATED.looks[-1],
                                         budget=Budget(None, clock=lambda: now[0]),
                                         name="contexts", first_look=ALTERNATED.looks[0])
    decision = decide_pool(pool, lambda x: x, BAND, replace(ALTERNATED, futility=None))
    plan = decision.extra["size_plan"]
    assert plan["pilot_s"] == pytest.approx(24.0) and plan["seconds_per_item"] == 2.0
    remaining = plan["planned_items"] - ALTERNATED.looks[0]
    assert plan["planned_s"] == pytest.approx(24.0 + 2.0 * remaining)
    assert plan["bound_s"] == pytest.approx(24.0 + 2.0 * remaining * PLAN_SLACK)
    assert pool.spent_s <= plan["bound_s"]
    assert len(pool.items) < plan["planned_items"]
    assert "planned bound" in (decision.extra.get("stopped") or "")
    assert decision.outcome == "undecided"


def _refutations(plan: Plan, centre: float, scatters: tuple[float, ...], trials: int,
                 seed: int) -> tuple[float, set[int]]:
    """How often a true claim (its centre on the band's edge) is refuted under ``plan``,
    over series of every scatter in turn; and the planned sizes met."""
    rng = random.Random(seed)
    refuted = 0
    sizes: set[int] = set()
    for t in range(trials):
        scatter = scatters[t % len(scatters)]

        def draw(k: int, s: float = scatter) -> list[float]:
            # Heavy-tailed but symmetric: a preempted request in either position.
            out = []
            for _ in range(k):
                x = rng.gauss(0.0, s)
                if rng.random() < 0.1:
                    x *= 5
                out.append(centre * math.exp(x))
            return out

        decision = decide(draw, BAND, plan)
        refuted += decision.outcome == "refuted"
        if "size_plan" in decision.extra:
            sizes.add(decision.extra["size_plan"]["planned"])
    return refuted / trials, sizes


@pytest.mark.slow
@pytest.mark.parametrize("futility", [None, ALTERNATED.futility])
@pytest.mark.parametrize("centre", [1.05, 0.95])
def test_a_planned_sample_refutes_a_true_claim_at_most_one_time_in_a_hundred(centre, futility):
    """Under the null at its worst (the true ratio on the band's edge), whatever size the
    pilot plans: the plans met span the ladder past the pilot, and refutations stay within
    1 % (plus three binomial standard errors of the simulation), with or without the stop
    for futility."""
    trials = 1200
    rate, sizes = _refutations(replace(ALTERNATED, futility=futility), centre,
                               (0.01, 0.03, 0.06, 0.12), trials, seed=20261207)
    assert sizes == set(ALTERNATED.looks[1:]), sizes  # every plan the ladder allows was met
    assert rate <= 0.01 + 3 * math.sqrt(0.01 * 0.99 / trials), rate


def test_the_plan_is_in_the_evidence_json():
    plan = SizePlan(pilot=12, centre=0.01, half_width=0.05, scatter=0.03,
                    margin=0.0388, required=20,
                    planned=20, cap=36, scale="log")
    data = plan.to_json()
    assert data["planned"] == 20 and data["required"] == 20 and data["at_bound"] is False
    assert plan.describe().startswith("planned 20 values from a pilot of 12: its interval's")
    assert AtLeast(2.0).bars == (2.0,) and BAND.bars == (0.95, 1.05)


@pytest.mark.slow
def test_the_simulation_tells_a_looser_plan_apart():
    """The same simulation under a plan that spends 6 % refutes a true claim more often
    than the 1 % bound allows: it can fail a rule that does not hold its error rate."""
    trials = 1200
    rate, _ = _refutations(replace(ALTERNATED, futility=None, alpha=0.06), 1.05,
                           (0.01, 0.03, 0.06, 0.12), trials, seed=20261207)
    assert rate > 0.01 + 3 * math.sqrt(0.01 * 0.99 / trials), rate
