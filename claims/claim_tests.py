"""Which tests each claim has, as pytest itself collects them (``claims list --tests``).

Not ``claims coverage``, which accounts for the figures the documents print
(:mod:`claims.text.measure`): this module was ``claims.coverage`` until the two were told
apart by name (issue 52). The map is read from a real ``pytest --collect-only`` run in
a subprocess (so markers applied by modules, classes and parametrization all count), with the
plugin's hidden ``--claims-claim-tests`` option writing the claim → tests map.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

COLLECT_TIMEOUT_S = 300


def default_tests_dir() -> Path | None:
    """./tests when run from a checkout of the suite, else None.

    Not the folder beside this package: installed, that is site-packages, where a
    ``tests`` folder would be another project's.
    """
    candidate = Path.cwd() / "tests"
    return candidate if (candidate / "claims").is_dir() else None


def collect_claim_tests(
    tests_dir: Path | None = None,
) -> tuple[dict[str, list[dict[str, Any]]] | None, str | None]:
    """(claim id -> [{nodeid, tiers}], note). None and a note when tests cannot be found."""
    tests = tests_dir or default_tests_dir()
    if tests is None or not tests.is_dir():
        return None, "no tests folder found (run from a checkout of the suite to see coverage)"
    root = tests.resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "coverage.json"
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "--no-claims-report",
            f"--claims-claim-tests={out}",
            str(tests.resolve()),
        ]
        try:
            proc = subprocess.run(
                cmd,
                cwd=root,
                capture_output=True,
                text=True,
                timeout=COLLECT_TIMEOUT_S,
                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None, f"test collection took longer than {COLLECT_TIMEOUT_S} s"
        if not out.exists():
            tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
            return None, "test collection failed: " + " | ".join(tail)
        data: dict[str, list[dict[str, Any]]] = json.loads(out.read_text("utf-8"))
        note = None
        if proc.returncode not in (0, 5):
            note = f"pytest --collect-only exited {proc.returncode}; coverage may be partial"
        return data, note
