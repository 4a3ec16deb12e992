"""Margins for timing comparisons, from the instrument's measured resolution and jitter.

A verdict such as "a cold request waits longer than a warm one" must not be
decided by clock granularity or by run-to-run jitter. Two things are measured
here and shown in the evidence beside every such comparison:

* the resolution of the clock that took the values: the client's
  :func:`time.perf_counter_ns` (smallest step seen between successive reads,
  in seconds), or the granularity of the server's reported durations (the
  largest power of ten dividing every reported nanosecond count);
* the spread of the repeated reference runs (slowest minus fastest, seconds).

:func:`separation_margin` turns them into the margin a difference must exceed:
three times the reference spread (a value that far beyond the slowest reference
run is not the jitter those runs showed) and never less than ten resolution
steps (a difference of a few ticks is not a measurement).

Rates compared with each other (prefill against decode, tokens per second) are
read by :class:`BestRates`: other work on the machine only ever slows a request
down, so the fastest of repeated samples is the least disturbed one (the reason
``timeit`` reports the minimum time), and a verdict is given only when the
fastest and the second-fastest samples agree on it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "JITTER_FACTOR",
    "RESOLUTION_STEPS",
    "BestRates",
    "Margin",
    "clock_resolution_s",
    "separation_margin",
    "server_resolution_s",
]

JITTER_FACTOR = 3.0
RESOLUTION_STEPS = 10


def clock_resolution_s(reads: int = 2000) -> float:
    """The smallest positive step between successive ``perf_counter_ns`` reads, in seconds.

    Never below what the OS reports for the clock (``time.get_clock_info``).
    """
    smallest: int | None = None
    last = time.perf_counter_ns()
    for _ in range(reads):
        now = time.perf_counter_ns()
        step = now - last
        if step > 0 and (smallest is None or step < smallest):
            smallest = step
        last = now
    reported = time.get_clock_info("perf_counter").resolution
    measured = (smallest or 1) / 1e9
    return max(measured, reported)


def server_resolution_s(durations_ns: Sequence[int]) -> float:
    """Granularity of server-reported durations: the largest power of ten dividing them all.

    Ollama reports nanoseconds, but a runner that times in microseconds gives
    multiples of 1,000; that step is the server clock's resolution. Zero values
    say nothing and are left out; with no value the answer is 1 ns.
    """
    values = [int(v) for v in durations_ns if isinstance(v, int) and v > 0]
    step = 1
    while values and step < 10**9 and all(v % (step * 10) == 0 for v in values):
        step *= 10
    return step / 1e9


@dataclass(frozen=True)
class Margin:
    """How far apart two timings must be for a verdict: the margin and what it came from."""

    resolution_s: float
    spread_s: float
    margin_s: float
    samples: int

    def to_json(self) -> dict[str, Any]:
        return {
            "resolution_s": self.resolution_s,
            "reference_spread_s": round(self.spread_s, 6),
            "reference_samples": self.samples,
            "margin_s": round(self.margin_s, 6),
            "rule": f"max({JITTER_FACTOR:g} x reference spread, "
            f"{RESOLUTION_STEPS} x resolution)",
        }

    def describe(self) -> str:
        return (
            f"margin {self.margin_s:.4g} s = max({JITTER_FACTOR:g} x spread "
            f"{self.spread_s:.4g} s of {self.samples} reference runs, {RESOLUTION_STEPS} x "
            f"resolution {self.resolution_s:.3g} s)"
        )


def separation_margin(reference_s: Sequence[float], resolution_s: float) -> Margin:
    """The margin by which a value must exceed the slowest of ``reference_s`` (seconds)."""
    values = [float(v) for v in reference_s]
    if not values:
        raise ValueError("no reference samples to take a margin from")
    spread = max(values) - min(values)
    margin = max(JITTER_FACTOR * spread, RESOLUTION_STEPS * resolution_s)
    return Margin(resolution_s, spread, margin, len(values))


@dataclass(frozen=True)
class BestRates:
    """Two rates from repeated requests, compared through their fastest samples (tokens/s).

    ``first`` and ``second`` hold one rate per request (e.g. prefill and decode
    tokens per second). :attr:`best` is the fastest first over the fastest second;
    :attr:`runner_up` the same for the second-fastest of each. A bar is decided
    only when both ratios fall on the same side of it (:meth:`decide`): one lucky or one stalled
    request cannot set the verdict, and a ratio that sits on the bar within the
    samples' own scatter decides nothing (:meth:`decide` returns None).
    """

    first: tuple[float, ...]
    second: tuple[float, ...]

    @classmethod
    def of(cls, first: Sequence[float], second: Sequence[float]) -> BestRates:
        a = tuple(sorted((float(v) for v in first if v and v > 0), reverse=True))
        b = tuple(sorted((float(v) for v in second if v and v > 0), reverse=True))
        if len(a) < 2 or len(b) < 2:
            raise ValueError(
                f"two positive samples of each rate are needed, got {len(a)} and {len(b)}"
            )
        return cls(a, b)

    @property
    def best(self) -> float:
        """Fastest first rate over fastest second rate (a ratio, unitless)."""
        return self.first[0] / self.second[0]

    @property
    def runner_up(self) -> float:
        """Second-fastest first rate over second-fastest second rate (unitless)."""
        return self.first[1] / self.second[1]

    def decide(self, holds: Callable[[float], bool]) -> bool | None:
        """True if ``holds`` is true of both ratios, False if of neither, None if they differ."""
        verdicts = {holds(self.best), holds(self.runner_up)}
        return verdicts.pop() if len(verdicts) == 1 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "first_rates": [round(v, 3) for v in self.first],
            "second_rates": [round(v, 3) for v in self.second],
            "best_ratio": round(self.best, 3),
            "runner_up_ratio": round(self.runner_up, 3),
            "rule": "decided when the fastest and the second-fastest samples agree",
        }
