"""Relations that claim tests of several documents and tiers measure the same way.

A claim that states a relation rather than a printed figure ("both runs gave
the same reply", "prefill more than twice as fast as decode") is recorded with
:meth:`claims.check.Check.measure`. The relations below recur across Week 2 and
the masterclass, on the engine, the live server and the recorded figures; each
is spelled once here so its label, unit and rounding read alike in every
report, and the measured expression is written once instead of twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from claims.check import Check

__all__ = ["equal", "identical_replies", "more_than_times"]


def identical_replies(
    check: Check, replies: Sequence[str], *, expected: str, note: str | None = None
) -> bool:
    """Against the stated number of runs, then that the runs gave one distinct reply.

    Records the claim's "runs" figure (the number of replies) and "distinct
    replies" (a count), which holds when every reply is the same text.
    """
    check.against("runs", len(replies))
    distinct = len(set(replies))
    return check.measure(
        "distinct replies", distinct, holds=distinct == 1, expected=expected, note=note
    )


def more_than_times(
    check: Check,
    name: str,
    larger: float,
    smaller: float,
    *,
    factor: float,
    expected: str,
    digits: int = 2,
) -> bool:
    """Records ``larger / smaller`` (unit "x", rounded to ``digits``); holds above ``factor``.

    The comparison is ``larger > factor * smaller`` on the unrounded values, so
    rounding for display never decides a verdict.
    """
    return check.measure(
        name,
        round(larger / smaller, digits),
        unit="x",
        holds=larger > factor * smaller,
        expected=expected,
    )


def equal(
    check: Check,
    name: str,
    measured: Any,
    wanted: Any,
    *,
    expected: str,
    unit: str | None = None,
    note: str | None = None,
) -> bool:
    """Records ``measured``; holds when it equals ``wanted`` (``expected`` says it in words)."""
    return check.measure(
        name, measured, holds=measured == wanted, expected=expected, unit=unit, note=note
    )
