"""Timing policy of the instrument: timing verdicts with a stated error.

* settle rules — waiting until a server state is stable — are a probe's
  (:mod:`claims.probes.live.settle`, which an unload waits with), handed on here;
* :mod:`claims.timing.intervals` — sign-test and signed-rank intervals;
* :mod:`claims.timing.rules` — claim forms (at least, at most, within a band),
  sequential plans and the decisions they give, with their chance of refuting a
  true claim;
* :mod:`claims.timing.procedures` — the benchmarks that feed them (paired
  cold/warm requests, alternated requests of two conditions).

Test modules call these; none of them defines a bar or a sample size of its own.
"""

from claims.probes.live.settle import Settled, SettleRule, settle, settle_change
from claims.timing.intervals import Estimate, median_interval, shift_interval, whole_range
from claims.timing.rules import (
    ALPHA,
    AtLeast,
    AtMost,
    Decision,
    Plan,
    Within,
    decide,
    decide_values,
)

__all__ = [
    "ALPHA",
    "AtLeast",
    "AtMost",
    "Decision",
    "Estimate",
    "Plan",
    "SettleRule",
    "Settled",
    "Within",
    "decide",
    "decide_values",
    "median_interval",
    "settle",
    "settle_change",
    "shift_interval",
    "whole_range",
]
