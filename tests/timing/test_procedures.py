"""The benchmark procedures against the fake server: order, reloads, pools, budgets."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claims.probes.live.ollama_api import OllamaClient
from claims.testing.fake_ollama import FakeOllama
from claims.timing import AtLeast
from claims.timing.policy import ALTERNATED, PAIRED, change_band
from claims.timing.procedures import (
    SamplePool,
    alternating_pairs,
    cold_warm_pairs,
    decide_pool,
    repeated_requests,
    timed_pairs,
)


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(token_interval_s=0.0005, cold_load_s=0.05) as server:
        yield server


@pytest.fixture
def client(fake: FakeOllama) -> Iterator[OllamaClient]:
    with OllamaClient(fake.url, connect_timeout=2.0, read_timeout=10.0) as c:
        yield c


def _body(ctx: int, i: int) -> dict:
    return {"model": "phi4", "prompt": f"n{i} hello", "options": {"num_predict": 4,
                                                                  "num_ctx": ctx}}


def test_alternation_swaps_the_order_every_pair_and_marks_reloads(client) -> None:
    seen: list[int] = []
    pool = alternating_pairs(client, (2048, 4096), _body, lambda c, i: f"{c} {i}", cap=4,
                             on_request=lambda t: seen.append(t.condition))
    assert pool.extend(3) == 3
    assert seen == [2048, 4096, 4096, 2048, 2048, 4096]
    first, second, _ = pool.items
    assert (first.a.condition, first.b.condition) == (2048, 4096)
    # A switch of num_ctx reloads the runner (the fake sleeps cold_load_s, as Ollama reloads).
    # Pair 2 sends 4096 first (no switch after pair 1's 4096), then 2048 (a switch).
    assert first.b.switched and not second.b.switched and second.a.switched
    assert (first.b.timing.server.load_ms or 0) > 40 > (second.b.timing.server.load_ms or 0)
    assert pool.extend(5) == 1 and pool.extend(1) == 0 and "cap of 4" in (pool.stopped or "")


def test_the_decode_rates_of_the_fake_are_equal_so_the_band_holds_at_the_first_look(client):
    pool = alternating_pairs(client, (2048, 4096), _body, lambda c, i: "x", cap=36)
    decision = decide_pool(pool, lambda p: p.ratio(lambda t: t.timing.server.decode_tokens_per_s),
                           change_band(5), ALTERNATED)
    assert decision.outcome == "holds" and len(pool.items) == ALTERNATED.looks[0]
    assert decision.extra["items"] == 12 and decision.false_refutation_chance <= 0.01


def test_cold_pairs_unload_first_and_give_cold_over_warm(client, fake) -> None:
    unloads: list[int] = []

    def unload() -> None:
        unloads.append(1)
        client.unload("phi4", timeout=5.0, poll_interval=0.02)

    pool = cold_warm_pairs(client, unload, lambda i: {"model": "phi4", "prompt": "hi",
                                                     "options": {"num_predict": 2}}, cap=9)
    decision = decide_pool(pool, lambda p: p.ratio(lambda t: t.timing.server.load_ms),
                           AtLeast(1.0, strict=True), PAIRED)
    assert decision.outcome == "holds" and len(unloads) == 9
    assert all(p.b.cold and not p.a.cold for p in pool.items)


def test_a_pool_stops_at_its_time_budget() -> None:
    now = [0.0]

    def take(k: int) -> list[int]:
        now[0] += 10.0 * k
        return list(range(k))

    pool: SamplePool[int] = SamplePool(take, cap=100, budget_s=25.0, clock=lambda: now[0])
    draw = pool.drawer(lambda x: float(x))
    got = draw(10)
    # Two items took 20 s; a third, predicted at 10 s, would overrun 25 s: never started.
    assert len(got) == 2 and "time budget (25 s) would be overrun" in (pool.stopped or "")
    assert pool.spent_s <= 25.0


def test_a_drawer_skips_missing_values_and_splits_pairs() -> None:
    pool: SamplePool[tuple[float | None, float | None]] = SamplePool(
        lambda k: [(1.0, None)] * k, cap=5
    )
    assert pool.drawer(lambda p: list(p))(3) == [1.0, 1.0, 1.0]
    assert len(pool.items) == 3


def test_repeated_requests_and_timed_pairs(client) -> None:
    pool = repeated_requests(client, lambda i: {"model": "phi4", "prompt": f"{i}",
                                                "options": {"num_predict": 2}}, cap=2)
    assert pool.extend(5) == 2 and pool.items[1].label == "request 2"
    pairs = timed_pairs(lambda i: (1.0, 2.0 + i), cap=3)
    assert pairs.extend(3) == 3 and pairs.items[2] == (1.0, 4.0)


def test_a_busy_machine_cannot_refute_an_alternated_claim() -> None:
    from claims.timing.procedures import Pair, Timed, decide_alternation

    class Rate:
        def __init__(self, rate: float) -> None:
            self.rate = rate

    # 4096 at a third of 2048 in every pair, but 2048's own rate swings 8-42 tok/s
    # (the shape of a heavily loaded 0.31.2 run, fixtures/timing/ollama-0.31.2.json).
    speeds = [9.3, 42.5, 8.6, 16.7, 7.7, 30.0] * 6
    pool: SamplePool[Pair] = SamplePool(
        lambda k: [Pair(Rate(s), Rate(s / 3)) for s in speeds[len(pool.items):][:k]],  # type: ignore[arg-type]
        cap=36,
    )

    def ratio(p: Pair) -> float:
        return p.b.rate / p.a.rate  # type: ignore[attr-defined]

    def rates(p: Pair) -> tuple[float, float]:
        return p.a.rate, p.b.rate  # type: ignore[attr-defined]

    assert Timed  # the real pairs hold Timed requests; the rule reads only the rates
    busy = decide_alternation(pool, ratio, change_band(5), ALTERNATED, rates=rates,
                              max_contention=1.5)
    assert busy.outcome == "undecided" and "too busy" in busy.extra["stopped"]
    quiet: SamplePool[Pair] = SamplePool(lambda k: [Pair(Rate(40.0), Rate(13.0))] * k, cap=36)  # type: ignore[arg-type]
    assert decide_alternation(quiet, ratio, change_band(5), ALTERNATED, rates=rates,
                              max_contention=1.5).outcome == "refuted"
