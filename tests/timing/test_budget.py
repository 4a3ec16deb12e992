"""The tier's shared timing budget: items predicted, first looks reserved, said before spent."""

from __future__ import annotations

import pytest

from claims.timing.budget import Budget
from claims.timing.procedures import SamplePool


class Clock:
    """A clock each item advances by its own cost (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def pool_of(budget: Budget, clock: Clock, cost: float, *, name: str = "p", first: int = 9,
            cap: int = 15, per_item: float = 1.0) -> tuple[SamplePool[int], list[int]]:
    taken: list[int] = []

    def take(k: int) -> list[int]:
        out = []
        for _ in range(k):
            clock.now += cost
            taken.append(len(taken))
            out.append(taken[-1])
        return out

    return SamplePool(take, cap, budget=budget, name=name, first_look=first,
                      requests_per_item=per_item), taken


def test_a_pool_that_cannot_reach_its_first_look_stops_before_spending_the_rest():
    clock = Clock()
    budget = Budget(45.0, clock=clock)
    pool, taken = pool_of(budget, clock, 10.0)
    # One item measures the cost, 10 s a value: 8 more need 80 s, more than all 35 s left.
    assert pool.extend(9) == 1
    assert taken == [0] and budget.spent_s == 10.0
    assert pool.stopped is not None
    assert "8 more values at 10.0 s each need 80 s, and 35 s" in pool.stopped


def test_a_first_look_within_what_is_left_is_judged_on_a_second_item():
    clock = Clock()
    budget = Budget(100.0, clock=clock)
    first, _ = pool_of(budget, clock, 1.0, name="other", first=30, cap=30)
    first.extend(2)  # 2 s: the other pool keeps 28 s, up to an equal share, for its look
    pool, _ = pool_of(budget, clock, 10.0)
    # After one item (10 s) 80 s more fit in the 88 s left but not beside the other's
    # share: the first item may have carried a load, so a second is taken to confirm.
    assert pool.extend(9) == 2 and "7 more values at 10.0 s each" in (pool.stopped or "")


def test_a_first_item_that_paid_a_load_does_not_set_the_price():
    clock = Clock()
    budget = Budget(200.0, clock=clock)
    costs = iter([20.0] + [1.0] * 20)
    items: list[int] = []

    def take(k: int) -> list[int]:
        clock.now += next(costs)
        items.append(len(items))
        return [items[-1]]

    pool = SamplePool(take, 15, budget=budget, name="p", first_look=9)
    # Priced at its first item the 8 more values would need 160 s beside another's
    # reservation; at the later 1 s, the cap fits.
    assert pool.extend(15) == 15 and budget.spent_s == 34.0
    assert pool.account.cost_s() == 1.0


def test_a_large_estimate_for_another_pool_reserves_at_most_an_equal_share():
    clock = Clock()
    budget = Budget(100.0, clock=clock)
    slow, _ = pool_of(budget, clock, 40.0, name="slow", first=12, per_item=3.0)
    slow.extend(1)  # 40 s: the tier's request cost says 12 x 3 x 13 s for the other
    quick, _ = pool_of(budget, clock, 2.0, name="quick", first=9)
    assert quick.extend(9) == 9


def test_no_item_is_taken_that_the_budget_can_be_seen_not_to_cover():
    clock = Clock()
    budget = Budget(100.0, clock=clock)
    pool, _ = pool_of(budget, clock, 7.0, first=3, cap=50)
    pool.extend(50)
    # 14 items cost 98 s; a 15th (about 7 s) would overrun: never started.
    assert len(pool.items) == 14 and budget.spent_s <= budget.total_s
    assert pool.stopped is not None and "would overrun the budget" in pool.stopped


def test_a_pool_growing_to_its_cap_leaves_the_others_their_first_looks():
    clock = Clock()
    budget = Budget(60.0, clock=clock)
    first, _ = pool_of(budget, clock, 1.0, name="requests", first=9, cap=100)
    second, _ = pool_of(budget, clock, 1.0, name="pairs", first=9, cap=100, per_item=3.0)
    first.extend(100)
    # The second has measured nothing: it is reserved 9 items x 3 requests x 1 s each.
    assert len(first.items) == 60 - 27
    second.extend(100)
    assert len(second.items) >= 9  # its first look was reached
    assert budget.spent_s <= 60.0


def test_without_a_budget_only_the_cap_stops_a_pool():
    clock = Clock()
    pool, _ = pool_of(Budget(None, clock=clock), clock, 100.0, cap=4)
    assert pool.extend(10) == 4 and pool.stopped == "the pool is at its cap of 4"


def test_a_budget_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        Budget(0.0)


def test_a_pool_that_starts_after_the_budget_was_spent_says_so():
    clock = Clock()
    budget = Budget(10.0, clock=clock)
    first, _ = pool_of(budget, clock, 5.0, first=2, cap=2)
    first.extend(2)
    late, taken = pool_of(budget, clock, 5.0, name="late", first=2)
    assert late.extend(1) == 0 and taken == []
    assert late.stopped is not None and "spent by other samples" in late.stopped


def test_a_sample_that_cannot_reach_its_first_look_keeps_nothing_from_the_others():
    clock = Clock()
    budget = Budget(200.0, clock=clock)
    hopeless, _ = pool_of(budget, clock, 110.0, name="contexts", first=12, cap=36)
    hopeless.extend(1)  # 110 s a pair: 11 more need 1,210 s of the 90 left
    pairs, _ = pool_of(budget, clock, 9.0, name="cold/warm pairs", first=9)
    assert pairs.extend(9) == 9  # all of the 81 s it needs, none kept for the other
    assert hopeless.extend(1) == 0 and "cannot reach the first look" in (hopeless.stopped or "")
