"""The shared order-statistic step: which bounds a null distribution picks, and their exact miss.

Small cases are worked by hand; the exact miss is checked against its
definition by enumerating every sign pattern of symmetric values (each equally
likely under the null), independently of the distributions' own code.
"""

from __future__ import annotations

import itertools
import random

import pytest

from claims.timing.intervals import walsh_averages
from claims.timing.ranks import order_bounds, sign_cdf, signed_rank_cdf

NINE = [float(v) for v in range(1, 10)]


def test_sign_bounds_of_nine_values_by_hand() -> None:
    def cdf(j: int) -> float:
        return sign_cdf(9, j)

    # P(B <= 0) = 1/512 <= 0.25 %: the whole range; P(B <= 1) = 10/512 needs 2 %.
    assert order_bounds(NINE, cdf, 0.0025) == (1.0, 9.0, 1 / 512)
    assert order_bounds(NINE, cdf, 0.02) == (2.0, 8.0, 10 / 512)
    assert order_bounds(NINE, cdf, 0.001) is None  # nine values are too few


def test_signed_rank_bounds_of_three_values_by_hand() -> None:
    # Subsets of the ranks {1, 2, 3} sum to 0, 1, 2, 3, 3, 4, 5, 6: P(T <= 0) = 1/8,
    # P(T <= 1) = 2/8, P(T <= 2) = 3/8. The six Walsh averages of 1, 2, 4:
    walsh = walsh_averages([1.0, 2.0, 4.0])
    assert walsh == [1.0, 1.5, 2.0, 2.5, 3.0, 4.0]

    def cdf(j: int) -> float:
        return signed_rank_cdf(3, j)

    assert order_bounds(walsh, cdf, 0.25) == (1.5, 3.0, 0.25)
    assert order_bounds(walsh, cdf, 0.2) == (1.0, 4.0, 0.125)
    assert order_bounds(walsh, cdf, 0.1) is None


def test_the_scan_reads_the_distribution_only_up_to_the_first_value_past_the_ask() -> None:
    asked: list[int] = []

    def cdf(j: int) -> float:
        asked.append(j)
        return sign_cdf(15, j)

    # P(B <= 2) = 121/32768 is within 0.5 %, P(B <= 3) = 576/32768 is not.
    assert order_bounds([float(v) for v in range(15)], cdf, 0.005) == (2.0, 12.0, 121 / 32768)
    assert asked == [0, 1, 2, 3]


@pytest.mark.parametrize("kind", ["sign", "signed-rank"])
@pytest.mark.parametrize("n", [6, 9, 10])
@pytest.mark.parametrize("miss", [0.002, 0.01, 0.05])
def test_the_stated_miss_is_the_exact_chance_of_lying_wholly_on_one_side(
    kind: str, n: int, miss: float
) -> None:
    # Values symmetric about 0 with fixed distinct magnitudes: under the null every
    # sign pattern is equally likely, so the chance that the interval lies wholly
    # above 0 is the share of the 2^n patterns for which it does.
    rng = random.Random(n)
    magnitudes = sorted(rng.uniform(0.5, 5.0) for _ in range(n))
    assert len(set(magnitudes)) == n  # no ties: the null distributions are exact
    above = below = 0
    stated: set[float] = set()
    for signs in itertools.product((-1.0, 1.0), repeat=n):
        xs = sorted(s * m for s, m in zip(signs, magnitudes, strict=True))
        if kind == "sign":
            bounds = order_bounds(xs, lambda j: sign_cdf(n, j), miss)
        else:
            bounds = order_bounds(walsh_averages(xs), lambda j: signed_rank_cdf(n, j), miss)
        if bounds is None:
            assert 2.0**-n > miss  # too few values only when the whole range cannot reach it
            return
        lo, hi, tail = bounds
        stated.add(tail)
        above += lo > 0
        below += hi < 0
    assert len(stated) == 1  # the picked order depends on n alone, not on the values
    assert above / 2**n == pytest.approx(stated.pop()) and above / 2**n <= miss
    assert below == above  # and wholly below it as often, by symmetry
