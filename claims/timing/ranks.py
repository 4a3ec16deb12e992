"""Exact null distributions of the sign and signed-rank statistics, for small samples.

Both confidence intervals of :mod:`claims.timing.intervals` are read off order
statistics; which ones depends only on these distributions, computed exactly
(no normal approximation: the samples here are 8 to 48 values), and
:func:`order_bounds` is the one step that picks them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from math import comb

__all__ = ["order_bounds", "sign_cdf", "signed_rank_cdf"]


def sign_cdf(n: int, k: int) -> float:
    """P(B <= k) for B ~ Binomial(n, 1/2): how many of n values fall below the median."""
    if k < 0:
        return 0.0
    return float(sum(comb(n, i) for i in range(min(k, n) + 1)) / 2**n)


@lru_cache(maxsize=64)
def _signed_rank_counts(n: int) -> tuple[int, ...]:
    """How many subsets of the ranks 1..n sum to each total t (index t)."""
    top = n * (n + 1) // 2
    counts = [0] * (top + 1)
    counts[0] = 1
    for rank in range(1, n + 1):
        for t in range(top, rank - 1, -1):
            counts[t] += counts[t - rank]
    return tuple(counts)


def signed_rank_cdf(n: int, k: int) -> float:
    """P(T <= k) for Wilcoxon's signed-rank statistic T of n values symmetric about 0."""
    if k < 0:
        return 0.0
    counts = _signed_rank_counts(n)
    return float(sum(counts[: min(k, len(counts) - 1) + 1]) / 2**n)


def order_bounds(
    ordered: Sequence[float], cdf: Callable[[int], float], miss_each_side: float
) -> tuple[float, float, float] | None:
    """The distribution-free interval of ``ordered`` missing the centre at most a stated chance.

    ``ordered`` holds m sorted values (the values themselves for the sign test,
    their Walsh averages for the signed-rank test); ``cdf(j)`` is P(S <= j) for S,
    how many of them lie below the true centre, under the test's null
    distribution on 0..m (symmetric about m/2). The interval from the k-th
    smallest to the k-th largest lies wholly above the centre exactly when
    S <= k-1, and wholly below it with the same probability by symmetry; k is the
    largest order with P(S <= k-1) <= ``miss_each_side``.

    Returns (lo, hi, that probability), or None when even the whole range misses
    more often than asked (too few values).
    """
    m = len(ordered)
    k = 0
    tail = 0.0
    # P(S <= j) only grows with j, so the scan stops at the first j past the ask
    # (and never needs j beyond m/2, where it is at least 1/2).
    for j in range(m // 2 + 1):
        p = cdf(j)
        if p > miss_each_side:
            break
        k, tail = j + 1, p
    if k == 0:
        return None
    return ordered[k - 1], ordered[m - k], tail
