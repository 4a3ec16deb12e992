"""W2 claims checked on the figures the post itself records."""

from __future__ import annotations

import pytest

from claims.figures import Interval, convert

pytestmark = pytest.mark.offline


@pytest.mark.claim("W2-COLD-TTFT")
def test_recorded_cold_and_warm_ttft_match_the_summary(check, recorded):
    rows = recorded("W2")["benchmark"]["rows"]
    check.source = "recorded"
    for row in rows:
        ttft = convert(Interval.stated(row["ttft_ms"]), "ms", "s")
        figure = "cold TTFT" if row["cold"] else "warm TTFT"
        check.against(figure, ttft, model="phi4", note=f"num_ctx {row['context']}, run {row['run']}")
    cold = min(float(r["ttft_ms"]) for r in rows if r["cold"])
    warm = max(float(r["ttft_ms"]) for r in rows if not r["cold"])
    check.measure("slowest warm vs fastest cold", cold / warm, unit="x",
                  holds=cold > 10 * warm, expected="cold TTFT more than 10x the slowest warm TTFT")


@pytest.mark.claim("W2-SEED-REPEAT")
def test_recorded_seeded_runs_are_identical(check, recorded):
    runs = recorded("W2")["seed_runs"]
    replies = runs["replies"]
    check.source = "recorded"
    check.attach("request", runs["request"], kind="json")
    check.against("runs", len(replies))
    check.measure("distinct replies", len(set(replies)), holds=len(set(replies)) == 1,
                  expected="1 (all runs identical)")
    check.against("recorded reply", replies[0], model="phi4")
