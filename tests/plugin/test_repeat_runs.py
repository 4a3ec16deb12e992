"""Two consecutive offline runs: their evidence differs only in times and the run's own ids.

Everything else (verdicts, measurements, messages, facts, attachments) is the same, so
``claims diff`` and a plain ``diff`` of two runs show only what changed. Masked here:
the run's start and finish, each check's duration, and measurements in a unit of time or
rate (a hash throughput is a time). Paths under pytest's numbered temporary folders
would differ too (claims.plugin.tmp_paths writes them one way).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

TIME_KEYS = {"started", "finished", "duration_s"}
TIME_UNITS = {"s", "ms", "µs", "ns", "MB/s", "MiB/s", "GB/s", "tok/s", "B/s"}


def _masked(value: Any) -> Any:
    if isinstance(value, dict):
        timed = value.get("unit") in TIME_UNITS
        return {
            k: "<time>" if k in TIME_KEYS or (timed and k.startswith("measured")) else _masked(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}/{k}: only in one" for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += _differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in _differences(x, y, f"{path}/{i}")]
    return [] if a == b else [f"{path}: {str(a)[:120]!r} != {str(b)[:120]!r}"]


def test_two_offline_runs_differ_only_in_times(tmp_path):
    evidence = tmp_path / "evidence.json"
    kept = []
    for n in (1, 2):
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
             "-m", "offline", "tests/claims", f"--claims-evidence={evidence}",
             f"--claims-report-html={tmp_path / 'report.html'}"],
            cwd=ROOT, capture_output=True, text=True, timeout=1200, check=False,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
        kept.append(shutil.copy(evidence, tmp_path / f"run{n}.json"))
    first, second = (json.loads(Path(p).read_text("utf-8")) for p in kept)
    assert first["run"]["started"] != second["run"]["started"]
    # (the run's own arguments name this test's folder: the same in both runs)
    assert "pytest-of-" not in json.dumps(first["claims"])
    differences = _differences(_masked(first), _masked(second))
    assert differences == [], "\n".join(differences[:40])
