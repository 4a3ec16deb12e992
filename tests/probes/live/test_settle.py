"""Settle rules on scripted reads: stable means unchanged for the stated interval.

The reads are scripted against a fake clock, so no test sleeps, in the shapes seen
on the real servers (fixtures/timing/: 0.31.2 showed the previous expires_at at the
first read after a keep_alive "24h" reply and the new one 20 ms later; 0.32.15
rewrote one expiry a millisecond later after a fresh load); the delays are made
longer here, as a busy machine makes them. tests/timing/test_recorded_series.py
replays the recorded reads themselves.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from claims.probes.live.settle import SettleRule, settle, settle_change

RULE = SettleRule(stable_s=1.0, timeout_s=10.0, poll_s=0.05)


class Script:
    """A value that changes at given times on a fake clock advanced by sleep()."""

    def __init__(self, changes: list[tuple[float, object]]) -> None:
        self.changes = changes
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s

    def read(self) -> object:
        value = None
        for at, v in self.changes:
            if self.now >= at:
                value = v
        return value

    def run(self, fn: Callable[..., object], *args: object, **kw: object) -> object:
        return fn(self.read, *args, clock=self.clock, sleep=self.sleep, **kw)


def test_a_late_write_is_waited_for_not_taken_early() -> None:
    # 0.31.2's shape, slowed: the old expiry for 0.3 s after the reply, then the 24-hour one.
    s = Script([(0.0, "old"), (0.3, "new")])
    got = settle(s.read, RULE, done=lambda v: v != "old", clock=s.clock, sleep=s.sleep)
    assert got.value == "new" and got.stable
    assert got.seconds >= 1.3
    assert [r.value for r in got.runs] == ["old", "new"]
    assert got.to_json()["values"][1]["first_s"] == pytest.approx(0.3, abs=0.06)


def test_a_millisecond_change_is_not_a_settled_state() -> None:
    # 0.32.15's shape after a fresh load: the expiry written, rewritten 1 ms later.
    s = Script([(0.0, "19:42:44.4548"), (0.02, "19:42:44.4557")])
    got = settle(s.read, RULE, clock=s.clock, sleep=s.sleep)
    assert got.value == "19:42:44.4557" and got.stable


def test_a_flapping_value_times_out_unstable() -> None:
    s = Script([(t / 10, t % 2) for t in range(200)])
    got = settle(s.read, RULE, clock=s.clock, sleep=s.sleep)
    assert not got.stable and got.seconds >= RULE.timeout_s
    assert "NOT stable" in got.describe()


def test_settle_change_falls_back_to_the_state_as_it_stands() -> None:
    s = Script([(0.0, "old")])
    got = settle_change(s.read, RULE, "old", clock=s.clock, sleep=s.sleep)
    # No new value within the timeout: the state as it stands, settled again.
    assert got.value == "old" and got.stable and got.seconds >= RULE.timeout_s


def test_settle_change_takes_the_new_value() -> None:
    short = SettleRule(stable_s=0.05, timeout_s=1.0, poll_s=0.01)
    values = iter(["old", "old", "new", "new", "new", "new", "new", "new", "new"] + ["new"] * 50)
    got = settle_change(lambda: next(values), short, "old")
    assert got.value == "new" and got.stable


def test_bad_rules_are_refused() -> None:
    with pytest.raises(ValueError):
        SettleRule(stable_s=2.0, timeout_s=1.0)
    with pytest.raises(ValueError):
        SettleRule(stable_s=0.1, timeout_s=1.0, poll_s=0)
