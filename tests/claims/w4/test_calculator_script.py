"""W4-CALCULATOR-SCRIPT: the lab's model_memory.py (bundled byte for byte) run with the
arguments the post shows prints the outputs the post shows (fixtures/recorded/W4.json)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from claims.testing import lab
from claims.testkit import InputError

pytestmark = pytest.mark.offline

SCRIPT = "week-04-parameters-memory/model_memory.py"


@pytest.mark.claim("W4-CALCULATOR-SCRIPT", source="recorded")
def test_lab_calculator_prints_the_posts_output(check, recorded) -> None:
    script = lab.lab_dir() / SCRIPT
    check.fact("lab script", f"{lab.PROVENANCE}: {SCRIPT}")
    runs = recorded("W4")["calculator_runs"]
    # The recorded runs are the fixture's (checked against its manifest and anchors);
    # the claim is about each run's output, judged below.
    check.observe("runs the post prints", len(runs))
    if not runs:
        raise InputError("fixtures/recorded/W4.json: no calculator_runs recorded")
    for run in runs:
        # The script only parses its arguments and prints: no network, no files.
        proc = subprocess.run([sys.executable, str(script), *run["args"]], capture_output=True,
                              text=True, timeout=60, check=False)
        printed = [line.rstrip() for line in run["output"]]
        got = [line.rstrip() for line in proc.stdout.splitlines()]
        check.attach(f"model_memory.py {' '.join(run['args'])} (the lab's file, run here)",
                     proc.stdout + proc.stderr)
        check.measure(f"output of {' '.join(run['args'])}", got,
                      holds=proc.returncode == 0 and got == printed,
                      expected="the post's lines, exactly")
