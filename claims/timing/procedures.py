"""The benchmark procedures that feed the timing rules: sample pools, pairs, alternation.

Values are drawn lazily (:class:`SamplePool`): a claim asks its rule for a
decision, the rule's sequential plan asks for values, and the pool runs more
requests only when the values already measured are too few. Several claims
can read one pool (the Week 2 benchmark serves five), each through its own
value function and plan; the requests are shared, never repeated.

Two designs, both paired so that a busy machine's drift cancels:

* :func:`alternating_pairs` — two conditions sent alternately, in the order
  A B, B A, A B, ... (so neither condition always goes first, and a reload
  that a switch of condition causes falls on each condition equally often);
* :func:`cold_warm_pairs` — an unload (settled: /api/ps stably without the
  model), a cold request, then the same request warm.

Every request is streamed and timed by :func:`claims.probes.live.timing.measure_stream`:
the client's clock beside the server's own durations.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from claims.probes.live.timing import StreamTiming, measure_stream
from claims.timing.budget import Budget
from claims.timing.planning import SizePlan
from claims.timing.policy import PLAN_SLACK
from claims.timing.rules import Decision, Form, Plan, decide

__all__ = [
    "Pair",
    "SamplePool",
    "Timed",
    "alternating_pairs",
    "cold_warm_pairs",
    "decide_alternation",
    "decide_pool",
    "decode_rate",
    "log_ratio_pairs",
    "prefill_over_decode",
    "repeated_requests",
    "server_over_client",
    "timed_pairs",
]

S = TypeVar("S")


class SamplePool(Generic[S]):
    """Measured items, extended on demand by ``take(k)`` (which returns up to k new ones).

    ``cap`` bounds the items the pool will ever hold, whatever the claims ask;
    ``budget_s`` bounds the seconds spent measuring them (a machine so busy that
    the cap would take minutes gets an undecided verdict, not a run past its
    time); ``budget`` is a tier's shared :class:`~claims.timing.budget.Budget`,
    whose account for this pool (``first_look`` values, ``requests_per_item``)
    refuses an item the budget cannot be seen to cover, and stops the pool at once
    when its first look is out of reach. Items are taken one at a time, each
    predicted from the mean of those before. :attr:`stopped` says why the pool
    stopped growing, when it did.
    """

    def __init__(
        self,
        take: Callable[[int], list[S]],
        cap: int,
        *,
        budget_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        budget: Budget | None = None,
        name: str = "sample",
        first_look: int = 1,
        requests_per_item: float = 1.0,
    ) -> None:
        self._take = take
        self.cap = cap
        self.budget_s = budget_s
        self._clock = budget.clock if budget is not None else clock
        self.name = name
        self.account = (budget or Budget(None)).register(name, first_look, requests_per_item)
        self._budget = budget
        self.items: list[S] = []
        self.stopped: str | None = None
        # Seconds a planned sample may spend in all (set by a claim's size plan, see
        # bound_to); None: only the cap and the budgets bound it.
        self.bound_s: float | None = None

    def bound_to(self, seconds: float) -> None:
        """Take no item predicted to end past ``seconds`` spent on this pool in all (a
        planned sample's bound; a later plan on the same pool may only raise it)."""
        self.bound_s = seconds if self.bound_s is None else max(self.bound_s, seconds)

    @property
    def spent_s(self) -> float:
        return self.account.spent_s

    def _refusal(self) -> str | None:
        if len(self.items) >= self.cap:
            return f"the pool is at its cap of {self.cap}"
        if self.budget_s is not None:
            cost = self.account.cost_s() or 0.0
            if self.spent_s + cost > self.budget_s or self.spent_s >= self.budget_s:
                return (
                    f"the benchmark's time budget ({self.budget_s:g} s) would be overrun: "
                    f"{self.spent_s:.0f} s spent on {len(self.items)} items"
                )
        if self.bound_s is not None:
            # Predicted at the larger of the typical item and the last one: a machine that
            # has just slowed down is taken at its new pace.
            last = self.account.item_s[-1] if self.account.item_s else 0.0
            cost = max(self.account.cost_s() or 0.0, last)
            if self.spent_s + cost > self.bound_s:
                return (
                    f"the planned bound of {self.bound_s:.0f} s would be overrun: "
                    f"{self.spent_s:.0f} s spent on {len(self.items)} items, about "
                    f"{cost:.1f} s each"
                )
        if self._budget is not None:
            return self._budget.refusal(self.account)
        return None

    def extend(self, k: int) -> int:
        """Measure up to ``k`` more items (never past the cap or budget); returns how many came."""
        came = 0
        for _ in range(k):
            refusal = self._refusal()
            if refusal is not None:
                self.stopped = refusal
                if len(self.items) < self.account.first_look:
                    self.account.stopped = refusal  # its first look is out of reach
                break
            began = self._clock()
            new = self._take(1)[:1]
            took = self._clock() - began
            if not new:
                self.account.wasted_s += took
                break
            self.account.item_s.append(took)
            self.items.extend(new)
            came += 1
        return came

    def drawer(
        self, value: Callable[[S], float | Sequence[float | None] | None]
    ) -> Callable[[int], list[float]]:
        """A ``draw(k)`` for :func:`claims.timing.rules.decide`: the next k values.

        ``value`` gives an item's value, or several (one per request of a pair).
        Missing values (None: a reply without the field) are skipped; the draw
        returns fewer than asked only when the pool is at its cap or the server
        stopped giving items.
        """
        position = 0
        pending: list[float] = []

        def draw(k: int) -> list[float]:
            nonlocal position
            out: list[float] = []
            while len(out) < k:
                if pending:
                    out.append(pending.pop(0))
                    continue
                if position >= len(self.items) and self.extend(1) == 0:
                    break
                v = value(self.items[position])
                position += 1
                many = v if isinstance(v, Sequence) else [v]
                pending.extend(float(x) for x in many if x is not None)
            return out

        return draw


@dataclass(frozen=True)
class Timed:
    """One streamed request of a benchmark: its condition, its body, its timing."""

    label: str
    condition: Any
    body: dict[str, Any]
    timing: StreamTiming
    cold: bool = False
    switched: bool = False  # the condition differs from the request before it

    def exchange(self) -> tuple[str, dict[str, Any], dict[str, Any]]:
        final = {k: v for k, v in self.timing.final.items() if k != "context"}
        return (
            self.label,
            {**self.body, "stream": True},
            {"streamed_text": self.timing.text, "final_chunk": final},
        )

    def row(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "condition": self.condition,
            "cold": self.cold,
            "switched": self.switched,
            **self.timing.to_json(),
        }


@dataclass(frozen=True)
class Pair:
    """Two requests compared with each other: ``a`` and ``b`` (e.g. 2048 and 4096, cold, warm)."""

    a: Timed
    b: Timed

    def ratio(self, value: Callable[[Timed], float | None]) -> float | None:
        """value(b) / value(a), or None when either is missing or not positive."""
        va, vb = value(self.a), value(self.b)
        if va is None or vb is None or va <= 0 or vb <= 0:
            return None
        return vb / va


def prefill_over_decode(item: Timed) -> float | None:
    """One request's prefill rate over its decode rate (tokens/s over tokens/s, both by the
    server's clock: prompt_eval_* and eval_*), or None when the reply lacks either."""
    s = item.timing.server
    pre, dec = s.prefill_tokens_per_s, s.decode_tokens_per_s
    return pre / dec if pre and dec else None


def server_over_client(item: Timed) -> float | None:
    """One request's decode rate by the server's clock (eval_count / eval_duration) over
    the client's ((eval_count - 1) over first-to-last streamed text), or None."""
    server = item.timing.server.decode_tokens_per_s
    client = item.timing.client_decode_tokens_per_s
    return server / client if server and client else None


def decode_rate(item: Timed) -> float | None:
    """A request's decode rate by the server's clock (tokens/s), the machine's business."""
    return item.timing.server.decode_tokens_per_s


def log_ratio_pairs(pairs: Sequence[Pair], value: Callable[[Timed], float | None]) -> list[float]:
    """The ratios b/a of the pairs that have both values (for a report table)."""
    return [r for r in (p.ratio(value) for p in pairs) if r is not None]


def _stream(
    client: Any, body: Mapping[str, Any], total_timeout: float
) -> StreamTiming:
    return measure_stream(
        client, "/api/generate", body, text_key="response", total_timeout=total_timeout
    )


def alternating_pairs(
    client: Any,
    conditions: tuple[Any, Any],
    body_for: Callable[[Any, int], dict[str, Any]],
    label_for: Callable[[Any, int], str],
    *,
    cap: int,
    budget_s: float | None = None,
    total_timeout: float = 600.0,
    on_request: Callable[[Timed], None] | None = None,
    **shared: Any,
) -> SamplePool[Pair]:
    """A pool of pairs of the two ``conditions``, sent A B, B A, A B, ...

    ``body_for(condition, pair_index)`` gives each request's body;
    ``on_request`` sees each request as it is done (e.g. to read /api/ps once
    per condition).
    """
    a, b = conditions
    previous: list[Any] = []

    def one(condition: Any, index: int) -> Timed:
        body = body_for(condition, index)
        timing = _stream(client, body, total_timeout)
        switched = bool(previous) and previous[-1] != condition
        previous.append(condition)
        item = Timed(label_for(condition, index), condition, body, timing, switched=switched)
        if on_request is not None:
            on_request(item)
        return item

    pool: SamplePool[Pair]

    def take(k: int) -> list[Pair]:
        out: list[Pair] = []
        for _ in range(k):
            index = len(pool.items) + len(out)
            order = (a, b) if index % 2 == 0 else (b, a)
            done = {c: one(c, index) for c in order}
            out.append(Pair(done[a], done[b]))
        return out

    pool = SamplePool(take, cap, budget_s=budget_s, **shared)
    return pool


def cold_warm_pairs(
    client: Any,
    unload: Callable[[], Any],
    body_for: Callable[[int], dict[str, Any]],
    *,
    cap: int,
    budget_s: float | None = None,
    total_timeout: float = 600.0,
    **shared: Any,
) -> SamplePool[Pair]:
    """A pool of (warm, cold) pairs: ``unload()``, the cold request, the same request warm.

    Pair.a is the warm request and Pair.b the cold one, so Pair.ratio gives cold
    over warm.
    """
    pool: SamplePool[Pair]

    def take(k: int) -> list[Pair]:
        out: list[Pair] = []
        for _ in range(k):
            index = len(pool.items) + len(out)
            body = body_for(index)
            unload()
            cold = Timed(f"pair {index + 1} cold", "cold", body,
                         _stream(client, body, total_timeout), cold=True, switched=True)
            warm = Timed(f"pair {index + 1} warm", "warm", body,
                         _stream(client, body, total_timeout))
            out.append(Pair(warm, cold))
        return out

    pool = SamplePool(take, cap, budget_s=budget_s, **shared)
    return pool


def decide_pool(
    pool: SamplePool[S],
    value: Callable[[S], float | Sequence[float | None] | None],
    form: Form,
    plan: Plan,
    *,
    unit: str = "",
    rates: Callable[[S], tuple[float | None, float | None]] | None = None,
    max_contention: float | None = None,
) -> Decision:
    """:func:`claims.timing.rules.decide` on a pool's values; the evidence says why it stopped.

    With ``rates`` (two rates per item, e.g. each request's prefill and decode rate)
    and ``max_contention``, a refutation also needs a quiet enough machine
    (:func:`_busy`): this can only remove refutations.
    """
    decision = decide(pool.drawer(value), form, plan, unit=unit,
                      on_plan=lambda size_plan: _bound(pool, size_plan))
    extra: dict[str, Any] = {"measured_s": round(pool.spent_s, 1), "items": len(pool.items),
                             "sample": pool.account.to_json()}
    if pool.stopped:
        extra["stopped"] = pool.stopped
    decision = replace(decision, extra={**decision.extra, **extra})
    if rates is not None and max_contention is not None:
        decision = _busy(decision, [rates(i) for i in pool.items], max_contention)
    return decision


def _bound(pool: SamplePool[Any], size_plan: SizePlan) -> dict[str, Any]:
    """A size plan in seconds: the items it still needs at the pilot's seconds per item
    (the median after the first, which may carry a model load), and the bound the pool
    is held to, :data:`~claims.timing.policy.PLAN_SLACK` times that on top of what the
    pilot spent. Returns the figures for the decision's ``size_plan``."""
    per_value = len(pool.items) / size_plan.pilot if size_plan.pilot else 1.0
    items = math.ceil(size_plan.planned * per_value)
    remaining = max(0, items - len(pool.items))
    cost = pool.account.cost_s() or 0.0
    planned_s = remaining * cost
    bound_s = pool.spent_s + planned_s * PLAN_SLACK
    pool.bound_to(bound_s)
    return {
        "pilot_s": round(pool.spent_s, 1),
        "seconds_per_item": round(cost, 2),
        "planned_items": items,
        "planned_s": round(pool.spent_s + planned_s, 1),
        "bound_s": round(bound_s, 1),
        "text": f"{size_plan.describe()}: {items} items in about "
                f"{pool.spent_s + planned_s:.0f} s, bounded at {bound_s:.0f} s",
    }


def _busy(
    decision: Decision, rates: Sequence[tuple[float | None, float | None]], limit: float
) -> Decision:
    """A refutation made undecided when the run's contention exceeds ``limit``."""
    contention = _contention(rates)
    extra = {**decision.extra, "contention": round(contention, 3), "max_contention": limit}
    if decision.outcome != "refuted" or contention <= limit:
        return replace(decision, extra=extra)
    extra["stopped"] = (
        f"the machine is too busy to refute: the requests' own rates varied "
        f"{contention:.2f}-fold between their quartiles (a refutation needs at most {limit:g})"
    )
    undecided = replace(decision.looks[-1], outcome="undecided")
    return replace(decision, looks=(*decision.looks[:-1], undecided), extra=extra)


def repeated_requests(
    client: Any,
    body_for: Callable[[int], dict[str, Any]],
    *,
    cap: int,
    budget_s: float | None = None,
    before: Callable[[int], None] | None = None,
    total_timeout: float = 600.0,
    **shared: Any,
) -> SamplePool[Timed]:
    """A pool of single streamed requests (``before(i)`` runs first, e.g. an unload)."""
    pool: SamplePool[Timed]

    def take(k: int) -> list[Timed]:
        out: list[Timed] = []
        for _ in range(k):
            index = len(pool.items) + len(out)
            if before is not None:
                before(index)
            body = body_for(index)
            out.append(Timed(f"request {index + 1}", "repeat", body,
                             _stream(client, body, total_timeout), cold=before is not None))
        return out

    pool = SamplePool(take, cap, budget_s=budget_s, **shared)
    return pool


def timed_pairs(
    run: Callable[[int], tuple[float, float]],
    *,
    cap: int,
    budget_s: float | None = None,
    **shared: Any,
) -> SamplePool[tuple[float, float]]:
    """A pool of (a, b) durations from ``run(i)`` (seconds, e.g. one batched and one sequential)."""
    pool: SamplePool[tuple[float, float]]

    def take(k: int) -> list[tuple[float, float]]:
        return [run(len(pool.items) + i) for i in range(k)]

    pool = SamplePool(take, cap, budget_s=budget_s, **shared)
    return pool


def decide_alternation(
    pool: SamplePool[Pair],
    value: Callable[[Pair], float | None],
    form: Form,
    plan: Plan,
    *,
    unit: str = "",
    rates: Callable[[Pair], tuple[float | None, float | None]] | None = None,
    max_contention: float | None = None,
) -> Decision:
    """:func:`decide_pool` for alternated pairs of one kind, with the busy-machine guard.

    The alternation puts condition A first in even pairs and B first in odd ones,
    so a position effect (the second request of a pair faster) cancels in the
    ratios' centre; with the looks of claims.timing.policy an interval cannot lie
    outside a band while half the pairs' median lies inside it, so no separate
    order check is needed. ``rates`` (each pair's two rates) and
    ``max_contention``: a refutation also needs a machine quiet enough that the
    conditions are comparable (:func:`_busy`): under heavier contention other
    work can interact with what the conditions change (on Ollama 0.31.2 under
    heavy load, 4096's runner decoded at 0.1-0.4x 2048's in five pairs of five,
    while a quiet run gave 0.99).
    """
    return decide_pool(
        pool, value, form, plan, unit=unit, rates=rates, max_contention=max_contention
    )


def _contention(rates: Sequence[tuple[float | None, float | None]]) -> float:
    """The larger, over the two conditions, of upper quartile over lower quartile of its rates."""
    worst = 1.0
    for side in (0, 1):
        xs = sorted(v for r in rates if (v := r[side]) is not None and v > 0)
        if len(xs) >= 4:
            q1, q3 = xs[len(xs) // 4], xs[(3 * len(xs)) // 4]
            worst = max(worst, q3 / q1 if q1 > 0 else float("inf"))
    return worst
