"""What a fresh Python interpreter loads: for the tests that keep an import cheap (the
plugin is loaded by every pytest run; torch and httpx wait until they are used)."""

from __future__ import annotations

import subprocess
import sys

# Starting an interpreter and importing the suite, on a loaded machine.
TIMEOUT_S = 60


def modules_loaded(code: str, *, after: str = "") -> frozenset[str]:
    """The modules a new interpreter of this environment holds once it ran ``code``, less
    those it already held after ``after`` (say, ``import pytest``)."""
    script = "\n".join([
        "import sys", after, "before = set(sys.modules)", code,
        "print('\\n'.join(sorted(set(sys.modules) - before)))",
    ])
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return frozenset(proc.stdout.split())
