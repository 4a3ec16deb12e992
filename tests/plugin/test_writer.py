"""claims.plugin.writer: how often the evidence is rewritten while a run goes on.

The rewrites' share of a run is bounded whatever its size (issue 51): after a rewrite
the writer waits WRITE_SPACING times as long as it took, and at least WRITE_INTERVAL_S.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from claims.plugin import writer as writer_module
from claims.plugin.writer import WRITE_INTERVAL_S, WRITE_SPACING, EvidenceWriter


class SlowLog:
    """An evidence log whose every write takes ``cost`` seconds of a fake clock."""

    def __init__(self, clock: list[float], cost: float) -> None:
        self.clock, self.cost = clock, cost
        self.writes = 0
        self.added: list[Any] = []

    def add(self, ids: Any, rec: Any) -> None:
        self.added.append((ids, rec))

    def write(self, path: Path, *, complete: bool) -> dict[str, Any]:
        self.clock[0] += self.cost
        self.writes += 1
        return {}


def _writer(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cost: float
            ) -> tuple[EvidenceWriter, SlowLog, list[float]]:
    clock = [1000.0]
    monkeypatch.setattr(writer_module.time, "monotonic", lambda: clock[0])
    log = SlowLog(clock, cost)
    settings = SimpleNamespace(evidence_path=tmp_path / "evidence.json")
    return EvidenceWriter(log, settings, None), log, clock  # type: ignore[arg-type]


def _finish_one(writer: EvidenceWriter, clock: list[float], after_s: float) -> None:
    clock[0] += after_s
    writer.pending["t"] = {"claims": ["X-A"]}  # type: ignore[typeddict-item]
    writer._finalize("t")


def test_a_slow_rewrite_spaces_the_next_in_proportion(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    writer, log, clock = _writer(monkeypatch, tmp_path, cost=0.5)
    assert writer.write(complete=False)
    assert writer.next_write_after == pytest.approx(WRITE_SPACING * 0.5)
    # Checks that finish within that spacing are kept in memory, not written one by one.
    for _ in range(5):
        _finish_one(writer, clock, after_s=1.0)
    assert log.writes == 1 and len(log.added) == 5
    _finish_one(writer, clock, after_s=WRITE_SPACING * 0.5)
    assert log.writes == 2


def test_the_rewrites_take_a_bounded_share_of_a_long_run(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    # A rewrite as slow as a large series' evidence, and a check finishing every 10 ms.
    writer, log, clock = _writer(monkeypatch, tmp_path, cost=0.8)
    start = clock[0]
    for _ in range(20_000):
        _finish_one(writer, clock, after_s=0.01)
    writing = log.writes * 0.8
    assert writing / (clock[0] - start) <= 1 / (1 + WRITE_SPACING) + 0.01


def test_a_quick_rewrite_waits_the_minimum_interval(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    writer, log, clock = _writer(monkeypatch, tmp_path, cost=0.001)
    writer.write(complete=False)
    assert writer.next_write_after == WRITE_INTERVAL_S
    _finish_one(writer, clock, after_s=WRITE_INTERVAL_S / 2)
    assert log.writes == 1
    _finish_one(writer, clock, after_s=WRITE_INTERVAL_S / 2)
    assert log.writes == 2


def test_the_real_clock_is_what_spaces_writes(tmp_path: Path) -> None:
    """Without a fake clock: the spacing is measured, never a constant."""
    log = SlowLog([0.0], cost=0.0)

    def slow_write(path: Path, *, complete: bool) -> dict[str, Any]:
        time.sleep(0.06)
        return {}

    log.write = slow_write  # type: ignore[method-assign]
    settings = SimpleNamespace(evidence_path=tmp_path / "evidence.json")
    writer = EvidenceWriter(log, settings, None)  # type: ignore[arg-type]
    writer.write(complete=False)
    assert writer.next_write_after >= WRITE_SPACING * 0.06
