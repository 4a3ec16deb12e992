"""scripts/propose-repeats.py: the facts two places of the series print, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")

pytestmark = pytest.mark.slow


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("CLAIMS_DOCUMENTS", None)
    return subprocess.run([sys.executable, "scripts/propose-repeats.py", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env, check=False)


@pytest.mark.skipif(not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, "
                    "the folder of the seeds")
def test_the_revision_weeks_3_and_4_print_is_listed_with_both_places() -> None:
    proc = _run("--claims-documents", str(DOCUMENTS))
    assert proc.returncode == 0, proc.stderr[-2000:]
    block = proc.stdout.split("aa8e72537993ba99e69dfaafa59ed015b17504d1  (W3, W4)\n", 1)[1]
    # The group's places are the indented lines up to the next figure's line.
    places = []
    for line in block.splitlines():
        if not line.startswith("    "):
            break
        places.append(line)
    assert any("W3 002_7d36a8153c2e8741.txt:831 'aa8e725' [judged: W3-RESULTS-TABLE]" in p
               for p in places)
    assert any(":242 " in p and "W4-REVISION-IS-WEEK3S" in p for p in places)


def test_without_documents_it_says_what_to_name() -> None:
    proc = _run()
    assert proc.returncode == 2
    assert "--claims-documents DIR" in proc.stderr
