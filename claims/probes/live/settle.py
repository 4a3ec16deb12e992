"""Settle rules: wait until the server's state is stable, not until it first changes.

Ollama updates its state a moment after a reply is sent (a runner's expires_at
when the request is released, /api/ps when an unload completes, the runner
processes when one starts or dies). A poll that stops at the first change can
catch an intermediate value: Ollama 0.32.15 moved expires_at by one millisecond
before writing the 24-hour one, and a "changed" poll took that for the new
expiry. :func:`settle` instead reads until the value has stayed the same for
``stable_s`` seconds (measured from the first read of that value, every read in
between agreeing) and, where the caller knows which values are final, ``done``
accepts it; it gives up after ``timeout_s``. Every distinct value read is kept
with when it was first and last seen, so the evidence shows the wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Run", "SettleRule", "Settled", "settle", "settle_change"]

T = TypeVar("T")


@dataclass(frozen=True)
class SettleRule:
    """How long a value must stay unchanged, how often to read, when to give up (s)."""

    stable_s: float
    timeout_s: float
    poll_s: float = 0.05

    def __post_init__(self) -> None:
        if not (0 <= self.stable_s < self.timeout_s and self.poll_s > 0):
            raise ValueError(f"bad settle rule {self}")

    def describe(self) -> str:
        return (
            f"read every {self.poll_s:g} s until unchanged for {self.stable_s:g} s, "
            f"at most {self.timeout_s:g} s"
        )


@dataclass
class Run(Generic[T]):
    """One value as read repeatedly: first and last read (s after the wait began), reads."""

    value: T
    first_s: float
    last_s: float
    reads: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "first_s": round(self.first_s, 4),
            "last_s": round(self.last_s, 4),
            "reads": self.reads,
        }


@dataclass(frozen=True)
class Settled(Generic[T]):
    """The outcome of a wait: the value it settled on, or the last one read at the timeout."""

    value: T
    stable: bool
    seconds: float
    runs: tuple[Run[T], ...]
    rule: SettleRule

    @property
    def reads(self) -> int:
        return sum(r.reads for r in self.runs)

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule.describe(),
            "stable": self.stable,
            "seconds": round(self.seconds, 4),
            "reads": self.reads,
            "values": [r.to_json() for r in self.runs],
        }

    def describe(self) -> str:
        state = "stable" if self.stable else "NOT stable"
        return (
            f"{state} after {self.seconds:.2f} s, {self.reads} reads, "
            f"{len(self.runs)} distinct value(s) ({self.rule.describe()})"
        )


# Distinct values kept in the record; a flapping value beyond that keeps its last ones.
MAX_RUNS = 64


def settle(
    read: Callable[[], T],
    rule: SettleRule,
    *,
    done: Callable[[T], bool] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Settled[T]:
    """Read until the value is unchanged for ``rule.stable_s`` (and ``done`` accepts it).

    Start it after the reply that changes the state has been received in full.
    Returns at the timeout too, with ``stable`` False: the caller decides
    whether an unsettled state is a not-run or a failure.
    """
    began = clock()
    runs: list[Run[T]] = []
    while True:
        value = read()
        now = clock() - began
        if runs and runs[-1].value == value:
            runs[-1].last_s = now
            runs[-1].reads += 1
        else:
            runs.append(Run(value, now, now))
            del runs[:-MAX_RUNS]
        current = runs[-1]
        accepted = done is None or done(value)
        if accepted and current.reads > 1 and current.last_s - current.first_s >= rule.stable_s:
            return Settled(value, True, now, tuple(runs), rule)
        if now >= rule.timeout_s:
            return Settled(value, False, now, tuple(runs), rule)
        sleep(rule.poll_s)


def settle_change(
    read: Callable[[], T],
    rule: SettleRule,
    before: T,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Settled[T]:
    """Settle on a value other than ``before`` (the state the request should change).

    A request's effect lands a moment after its reply; the wait is for a new value
    that then stays put for ``rule.stable_s``. If none comes within
    ``rule.timeout_s``, the state as it stands is settled once more (a request
    that changed nothing is an answer too), so the caller always gets a stable
    reading or an explicit ``stable=False``.
    """
    changed = settle(
        read, rule, done=lambda v: v is not None and v != before, clock=clock, sleep=sleep
    )
    if changed.stable:
        return changed
    again = settle(
        read,
        SettleRule(rule.stable_s, rule.stable_s * 2 + rule.poll_s * 2, rule.poll_s),
        done=lambda v: v is not None,
        clock=clock,
        sleep=sleep,
    )
    return Settled(
        again.value,
        again.stable,
        changed.seconds + again.seconds,
        changed.runs + again.runs,
        rule,
    )
