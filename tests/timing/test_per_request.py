"""The shared per-request sample's claims are decided one way (claims.timing.per_request)."""

from __future__ import annotations

from claims.timing import AtLeast
from claims.timing.budget import Budget
from claims.timing.per_request import decide_per_request
from claims.timing.policy import MAX_CONTENTION, PAIRED
from claims.timing.procedures import SamplePool


class _Server:
    def __init__(self, decode: float) -> None:
        self.decode_tokens_per_s = decode


class _Timing:
    def __init__(self, decode: float) -> None:
        self.server = _Server(decode)


class _Item:
    def __init__(self, ratio: float, decode: float) -> None:
        self.ratio = ratio
        self.timing = _Timing(decode)


def _pool(items: list[_Item]) -> SamplePool:
    queue = list(items)
    return SamplePool(lambda k: [queue.pop(0) for _ in range(min(k, len(queue)))], cap=15,
                      budget=Budget(None), name="requests", first_look=PAIRED.looks[0])


def test_the_plan_unit_and_guard_are_the_policys() -> None:
    pool = _pool([_Item(7.0 + 0.01 * i, 100.0) for i in range(15)])
    decision = decide_per_request(pool, lambda t: t.ratio, AtLeast(5))
    assert decision.outcome == "holds" and decision.plan == PAIRED and decision.unit == "x"
    assert decision.extra["max_contention"] == MAX_CONTENTION
    assert len(pool.items) == PAIRED.looks[0]  # the first look decided: nothing more drawn


def test_a_busy_machine_cannot_refute() -> None:
    # Clearly under the bar, but the decode rates vary 10-fold between their quartiles.
    decodes = [10.0, 100.0] * 8
    pool = _pool([_Item(2.0 + 0.01 * i, decodes[i]) for i in range(15)])
    decision = decide_per_request(pool, lambda t: t.ratio, AtLeast(5))
    assert decision.outcome == "undecided"
    assert "too busy to refute" in decision.extra["stopped"]


def test_the_engines_generations_are_guarded_by_their_own_decode_rates() -> None:
    # llama.cpp's generations carry their rates elsewhere: the caller says where.
    class Generation:
        def __init__(self, ratio: float, decode: float) -> None:
            self.ratio, self.eval_tokens_per_s = ratio, decode

    decodes = [10.0, 100.0] * 8
    queue = [Generation(2.0 + 0.01 * i, decodes[i]) for i in range(15)]
    pool = SamplePool(lambda k: [queue.pop(0) for _ in range(min(k, len(queue)))], cap=15,
                      budget=Budget(None), name="engine", first_look=PAIRED.looks[0])
    decision = decide_per_request(pool, lambda g: g.ratio, AtLeast(5),
                                  decode=lambda g: g.eval_tokens_per_s)
    assert decision.outcome == "undecided" and decision.extra["contention"] == 10.0
