"""scripts/bench-against.py: the side-by-side benchmark's pairing and its verdict check."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    path = ROOT / "scripts" / "bench-against.py"
    if not path.is_file():
        pytest.skip("no scripts/ in this copy of the checkout")
    spec = importlib.util.spec_from_file_location("bench_against", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_ratios_are_taken_pair_by_pair(bench: ModuleType) -> None:
    # A machine twice as slow in the second pair moves both halves: the ratio stays.
    assert bench.pair_ratios([1.0, 2.0, 1.5], [2.0, 4.0, 3.0]) == [0.5, 0.5, 0.5]
    with pytest.raises(ValueError):
        bench.pair_ratios([1.0], [1.0, 2.0])


def test_claims_both_hold_must_keep_their_verdicts(bench: ModuleType, tmp_path: Path) -> None:
    now = {"W1-A": "consistent", "W1-B": "refuted", "W6-NEW": "consistent"}
    before = {"W1-A": "consistent", "W1-B": "consistent"}
    differ, new = bench.compare_verdicts(now, before)
    assert differ == ["W1-B: consistent before, refuted now"] and new == 1
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps({"claims": [{"id": "W1-A", "verdict": "consistent"}]}), "utf-8")
    assert bench.verdicts(path) == {"W1-A": "consistent"}


def test_the_summary_names_medians_bests_and_the_median_ratio(bench: ModuleType) -> None:
    a = bench.Side("A", ROOT, walls=[1.0, 3.0, 2.0], cpus=[0.5, 0.5, 0.6])
    b = bench.Side("B", ROOT, walls=[2.0, 5.0, 4.0], cpus=[1.0, 1.0, 1.0])
    text = bench.summary((a, b))
    assert "| A | 2.00 (1.00) | 0.50 (0.50) |" in text
    assert "| A/B, median of the pairs | 0.500 (0.500 to 0.600)" in text


def test_a_command_is_timed_with_its_children(bench: ModuleType, tmp_path: Path) -> None:
    wall, cpu, status = bench.time_once(
        [sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], tmp_path)
    assert status == 0 and wall > 0 and cpu > 0
