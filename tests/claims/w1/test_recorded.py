"""W1 claims checked on the benchmark figures the post records."""

from __future__ import annotations

import pytest

from claims.figures import Interval

pytestmark = pytest.mark.offline


@pytest.mark.claim("W1-SPEEDUP-RANGE")
def test_recorded_speedup_lies_in_predicted_range(check, recorded):
    bench = recorded("W1")["benchmark"]
    check.source = "recorded"
    # Recompute the speedup from the printed times, carrying their precision.
    speedup = Interval.stated(bench["cpu_ms"]) / Interval.stated(bench["gpu_fp32_ms"])
    check.against("recorded speedup", speedup, note="172.57 ms / 7.67 ms")
    check.against("predicted speedup", speedup)
    check.measure("GPU faster than CPU", speedup.lo, unit="x", holds=speedup.lo > 1,
                  expected="> 1x")
