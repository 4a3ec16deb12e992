"""The timing rules on series recorded from real Ollama 0.31.2 and 0.32.15 (fixtures/timing/).

Each series is replayed through the rule its claim uses: the replay must give the
outcome the run gave (the rule is a pure function of the values), no series of
these servers may refute its claim (the claims hold there: issue 20's quiet
check, 16 alternated pairs, ratio 0.995), and the stated chance stays within 1 %.
The /api/ps reads replay through the settle rule.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claims.catalog.loader import load_catalog
from claims.check import out_of_scope
from claims.probes.live.settle import SettleRule, settle_change
from claims.timing import Plan, decide_values
from claims.timing.intervals import median_interval, shift_interval
from claims.timing.policy import ALTERNATED, COLD_ABOVE_WARM, PAIRED, figure_form
from claims.timing.pools import POOL_OF

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "timing"
VERSIONS = ("0.31.2", "0.32.15")
# Per version: a run under heavy load (several rules undecided) and a quieter one.
RUNS = [f"{v}{suffix}" for v in VERSIONS for suffix in ("", "-quieter")]
# The series were recorded with gemma3:270m on a 2-core generic machine.
RECORDED_MODEL, RECORDED_PROFILE = "gemma3:270m", "generic"


def _rules() -> dict[str, tuple[Any, Any]]:
    """The rule of each claim, from its catalog figure (as its claim test builds it): the
    figure's form where its scope covers the recorded model and machine, else a cold/warm
    ratio's general form; the plan is its quantity's procedure's."""
    rules: dict[str, tuple[Any, Any]] = {}
    for claim in load_catalog():
        for fig in claim.stated:
            if fig.quantity is None or fig.quantity == "cold load":
                continue
            plan = ALTERNATED if POOL_OF[fig.quantity] == "contexts" else PAIRED
            scoped = out_of_scope(fig, model=RECORDED_MODEL, profile=RECORDED_PROFILE,
                                  source="live")
            rules[claim.id] = (COLD_ABOVE_WARM if scoped else figure_form(fig), plan)
    return rules


RULES = _rules()


def _series(run: str) -> list[tuple[str, dict[str, Any]]]:
    path = FIXTURES / f"ollama-{run}.json"
    if not path.is_file():
        pytest.skip(f"no recorded series {run}")
    data = json.loads(path.read_text("utf-8"))
    assert data["provenance"]["ollama"] == run.split("-")[0]
    return sorted(data["series"].items())


@pytest.mark.parametrize("run", RUNS)
def test_recorded_series_replay_to_their_outcome_and_refute_nothing(run: str) -> None:
    series = _series(run)
    assert series
    if run.endswith("-quieter"):  # every timing rule decided, all of them holding
        assert {e["outcome"] for _, e in series} == {"holds"}
    for key, entry in series:
        claim = key.split(":")[0]
        form, plan = RULES[claim]
        assert entry["rule"] == form.describe(), key
        decision = decide_values(entry["values"], form, plan)
        assert decision.outcome == entry["outcome"], key
        assert decision.outcome != "refuted", (key, decision.describe())
        if entry["plan"] == plan.describe():  # recorded under today's plan: the same chance
            assert decision.false_refutation_chance == pytest.approx(
                entry["false_refutation_chance"]
            )
        assert decision.false_refutation_chance <= 0.01
        assert entry["false_refutation_chance"] <= 0.01


# The alternated plan before it was given a pilot (looks at 12, 24 and 36, as at df6e416):
# the intervals below were computed with its share of alpha per look.
ALTERNATED_BEFORE_THE_PILOT = Plan(looks=(12, 24, 36), kind="signed-rank", log=True, futility=0.5)


def test_recorded_intervals_are_those_the_rules_took_before_the_order_step_was_shared() -> None:
    # intervals-df6e416.json: every interval of these series as claims.timing computed
    # it at df6e416, when the sign and signed-rank intervals each picked their order
    # statistics in their own copy; the shared step must give the same floats exactly
    # (under the plans of that commit: the alternated one has since been given a pilot).
    before = json.loads((FIXTURES / "intervals-df6e416.json").read_text("utf-8"))
    seen = set()
    for run in RUNS:
        for key, entry in _series(run):
            form, plan = RULES[key.split(":")[0]]
            if plan is ALTERNATED:
                plan = ALTERNATED_BEFORE_THE_PILOT
            decision = decide_values(entry["values"], form, plan)
            want = before[f"{run} {key}"]
            assert [look.estimate.to_json() for look in decision.looks] == want["looks"], key
            assert median_interval(entry["values"], 0.0025).to_json() == want["sign"], key
            assert shift_interval(entry["values"], 0.0025).to_json() == want["signed-rank"], key
            seen.add(f"{run} {key}")
    assert seen == set(before)


def _reader(changes: list[list[Any]]) -> tuple[Any, Any, Any]:
    now = [changes[0][0]]

    def read() -> Any:
        value = changes[0][1]
        for at, v in changes:
            if now[0] >= at:
                value = v
        return value

    def sleep(s: float) -> None:
        now[0] += s

    return read, (lambda: now[0]), sleep


RULE = SettleRule(stable_s=1.0, timeout_s=10.0, poll_s=0.05)


def test_the_recorded_late_expiry_of_0_31_2_is_waited_for() -> None:
    reads = json.loads((FIXTURES / "expiry_reads.json").read_text("utf-8"))
    changes = reads["0.31.2 after keep_alive 24h"]
    before, after = changes[0][1], changes[-1][1]
    read, clock, sleep = _reader(changes)
    got = settle_change(read, RULE, before, clock=clock, sleep=sleep)
    assert got.stable and got.value == after and after.startswith("2026-12-02")
    # "Poll until expires_at changes" stops at the first read that differs: here the
    # right one, but only because nothing rewrote it meanwhile (0.32.15's case below).
    read, clock, sleep = _reader(reads["0.32.15 after keep_alive 24h"])
    assert settle_change(read, RULE, before, clock=clock, sleep=sleep).value.startswith(
        "2026-12-02"
    )


def test_a_millisecond_rewrite_is_not_a_new_expiry() -> None:
    reads = json.loads((FIXTURES / "expiry_reads.json").read_text("utf-8"))
    first, rewrite = reads["0.32.15 after a fresh load (issue 20)"]["reads"]
    # The old rule took the rewrite for the 24-hour expiry: a change of 0.9 ms.
    assert rewrite != first and rewrite[:19] == first[:19]
    # The settle rule, reading the fresh load's expiry as it is rewritten, settles on
    # the rewrite before the next request is sent, so the next wait starts from it.
    read, clock, sleep = _reader([[0.0, first], [0.001, rewrite]])
    got = settle_change(read, RULE, None, clock=clock, sleep=sleep)
    assert got.value == rewrite and got.stable


@pytest.mark.parametrize("run", RUNS)
def test_the_recorded_keep_alive_settles_were_stable(run: str) -> None:
    path = FIXTURES / f"ollama-{run}.json"
    if not path.is_file():
        pytest.skip(f"no recorded series {run}")
    settles = json.loads(path.read_text("utf-8"))["keep_alive_settles"]
    assert len(settles) == 3
    for label, rec in settles.items():
        assert rec["stable"] is True, label
        last = rec["values"][-1]
        assert last["last_s"] - last["first_s"] >= 1.0, label
