"""Distribution-free confidence intervals for the centre of repeated timings.

Two kinds, both exact for continuous data:

* :func:`median_interval` (the sign test's interval): order statistics of the
  values themselves. It assumes only that the values are independent draws
  around one median, nothing about the shape; it is the one for ratios of two
  different quantities (prefill over decode rate, a cold over a warm first
  token), whose scatter on a busy machine is skewed: other work only ever slows a
  request down.
* :func:`shift_interval` (Wilcoxon's signed-rank interval, Hodges-Lehmann
  centre): order statistics of the Walsh averages. It assumes the values are
  symmetric about their centre, which holds by construction for the log-ratio of
  two requests of the same kind sent alternately (which one goes first is
  swapped every pair, so under "no effect" A/B and B/A are equally likely), and
  then gives a much narrower interval than the sign test from the same values.

Each interval is built to miss the true centre on each side with at most a
stated probability, and reports the exact probability it actually has (the
sample size makes it smaller than asked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any, Literal

from claims.timing.ranks import order_bounds, sign_cdf, signed_rank_cdf

__all__ = ["Estimate", "Method", "median_interval", "shift_interval", "whole_range"]

Method = Literal["sign", "signed-rank", "every value"]


@dataclass(frozen=True)
class Estimate:
    """An interval for the centre of ``n`` values, and its chance of missing on each side.

    ``miss_each_side`` is P(interval wholly above the true centre), which equals
    P(wholly below); it is 0 for ``every value`` (a recorded table is its own
    population, not a sample). ``lo``/``hi`` are None when ``n`` is too small to
    reach the asked-for miss at all.
    """

    method: Method
    n: int
    centre: float
    lo: float | None
    hi: float | None
    miss_each_side: float
    asked_miss_each_side: float

    @property
    def decided(self) -> bool:
        return self.lo is not None and self.hi is not None

    @property
    def confidence(self) -> float:
        """Two-sided coverage, 1 - 2 x miss_each_side."""
        return 1.0 - 2.0 * self.miss_each_side

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "n": self.n,
            "centre": self.centre,
            "interval": None if not self.decided else [self.lo, self.hi],
            "confidence": round(self.confidence, 6),
            "miss_each_side": self.miss_each_side,
            "asked_miss_each_side": self.asked_miss_each_side,
        }

    def describe(self, unit: str = "", digits: int = 3) -> str:
        if not self.decided:
            wanted = 1 - 2 * self.asked_miss_each_side
            return f"{self.n} values are too few for a {wanted:.2%} interval"
        assert self.lo is not None and self.hi is not None
        u = f" {unit}" if unit else ""
        return (
            f"[{self.lo:.{digits}g}, {self.hi:.{digits}g}]{u} ({self.confidence:.2%} "
            f"{self.method} interval of {self.n} values, centre {self.centre:.{digits}g}{u})"
        )


def _clean(values: Sequence[float]) -> list[float]:
    out = sorted(float(v) for v in values)
    if any(v != v for v in out):  # NaN
        raise ValueError("a timing value is NaN")
    if not out:
        raise ValueError("no values to take an interval from")
    return out


def _estimate(
    method: Method,
    n: int,
    centre: float,
    ordered: list[float],
    cdf: Callable[[int], float],
    miss_each_side: float,
) -> Estimate:
    """An estimate whose interval is the order-statistic bound of ``ordered`` (none if too few)."""
    bounds = order_bounds(ordered, cdf, miss_each_side)
    if bounds is None:
        return Estimate(method, n, centre, None, None, 0.0, miss_each_side)
    lo, hi, tail = bounds
    return Estimate(method, n, centre, lo, hi, tail, miss_each_side)


def median_interval(values: Sequence[float], miss_each_side: float) -> Estimate:
    """The sign test's interval for the median: [x_(k), x_(n+1-k)]."""
    xs = _clean(values)
    n = len(xs)
    return _estimate("sign", n, float(median(xs)), xs, lambda j: sign_cdf(n, j), miss_each_side)


def walsh_averages(values: Sequence[float]) -> list[float]:
    """(x_i + x_j) / 2 for every i <= j, sorted (n(n+1)/2 of them)."""
    xs = _clean(values)
    return sorted((xs[i] + xs[j]) / 2 for i in range(len(xs)) for j in range(i, len(xs)))


def shift_interval(values: Sequence[float], miss_each_side: float) -> Estimate:
    """Wilcoxon's signed-rank interval for the centre of symmetric values (Hodges-Lehmann)."""
    xs = _clean(values)
    n = len(xs)
    walsh = walsh_averages(xs)
    return _estimate(
        "signed-rank",
        n,
        float(median(walsh)),
        walsh,
        lambda j: signed_rank_cdf(n, j),
        miss_each_side,
    )


def whole_range(values: Sequence[float]) -> Estimate:
    """[min, max] of values that are a whole population (a document's printed table)."""
    xs = _clean(values)
    return Estimate("every value", len(xs), float(median(xs)), xs[0], xs[-1], 0.0, 0.0)
