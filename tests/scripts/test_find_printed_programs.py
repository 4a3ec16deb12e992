"""scripts/find-printed-programs.py: it lists each printed lab program, transcribed or not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from claims.probes.files.printed_programs import program_lines

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")

pytestmark = pytest.mark.slow


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "scripts/find-printed-programs.py", *args], cwd=ROOT,
        capture_output=True, text=True, timeout=120, check=False,
        env={**(env or os.environ), "PYTHONPATH": str(ROOT)})


@pytest.mark.skipif(not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, "
                    "the folder of the seeds")
def test_w2s_full_programs_are_listed_as_transcribed() -> None:
    proc = _run("--claims-documents", str(DOCUMENTS), "W2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lab = ROOT / "fixtures" / "lab" / "week-02-first-local-model" / "benchmark.py"
    n = len(program_lines(lab.read_text("utf-8")))
    last = len(lab.read_text("utf-8").splitlines())
    full = [line for line in proc.stdout.splitlines()
            if f"week-02-first-local-model/benchmark.py lines 1-{last}" in line]
    # benchmark.py, printed whole in the post (seed 000) and in its copy in seed 002.
    assert len(full) == 2
    assert all(f"({n} of {n} lines, 100%)" in line
               and "transcribed: fixtures/recorded/programs/W2/benchmark.py.txt" in line
               for line in full)
    assert "NOT TRANSCRIBED" not in proc.stdout


def test_without_documents_it_says_how_to_name_them() -> None:
    env = {k: v for k, v in os.environ.items() if k != "CLAIMS_DOCUMENTS"}
    proc = _run(env=env)
    assert proc.returncode == 2
    assert "--claims-documents DIR or $CLAIMS_DOCUMENTS" in proc.stderr
