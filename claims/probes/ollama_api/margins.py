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
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "JITTER_FACTOR",
    "RESOLUTION_STEPS",
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
