"""Exact null distributions of the sign and signed-rank statistics, for small samples.

Both confidence intervals of :mod:`claims.timing.intervals` are read off order
statistics; which ones depends only on these distributions, computed exactly
(no normal approximation: the samples here are 8 to 48 values).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

__all__ = ["order_index", "sign_cdf", "signed_rank_cdf"]


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


def order_index(cdf_at: list[float], miss: float) -> tuple[int, float]:
    """The largest 1-based order k with P(stat <= k-1) <= ``miss``, and that probability.

    ``cdf_at[j]`` is P(stat <= j). The interval from the k-th smallest to the k-th
    largest order statistic then lies wholly above (or wholly below) the centre
    with probability P(stat <= k-1) each. k = 0: even the whole range cannot reach
    ``miss`` (too few values).
    """
    k = 0
    tail = 0.0
    for j, p in enumerate(cdf_at):
        if p <= miss:
            k, tail = j + 1, p
        else:
            break
    return k, tail
