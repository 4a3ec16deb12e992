"""Whether a run goes through one of the suite's fakes, and which.

The suite ships stand-ins for what CI cannot reach (``claims.testing``: a fake
CUDA device, a fake ``nvidia-smi``, a fake Ollama server). What a run measures
through one is the fake's scripted or recorded output and says nothing about a
machine, so such a run is *simulated*: the evidence lists the fakes at run level
(``run.simulated``) and marks every live check (``"simulated": true``), and such a
check is never "reproduced" (claims.verdicts).

A fake makes itself known in one of three ways:

* a fake module calls :func:`declare` when it installs itself (fake CUDA);
* an executable the fakes put on PATH carries :data:`MARKER` in its first bytes
  (the fake ``nvidia-smi``, ``lscpu`` and ``free`` wrappers);
* the environment variable :data:`ENV` names it (for fakes started elsewhere,
  such as a fake server another process runs).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping

__all__ = ["ENV", "MARKER", "WATCHED_TOOLS", "declare", "declared", "fakes_in_use", "marker_line"]

MARKER = "claims-suite fake:"
ENV = "CLAIMS_SIMULATED"
# The tools whose output a probe reads; a fake of any of them simulates what it reports.
WATCHED_TOOLS = ("nvidia-smi", "nvcc", "lscpu", "free", "ollama")
_HEAD_BYTES = 4096  # the marker sits on the wrapper's second line

_declared: dict[str, None] = {}


def declare(what: str) -> None:
    """Record that a fake is in use in this process (``what`` names it for the report)."""
    _declared.setdefault(what, None)


def declared() -> list[str]:
    return list(_declared)


def marker_line(what: str) -> str:
    """The comment line a fake wrapper script carries so that :func:`fakes_in_use` sees it."""
    return f"# {MARKER} {what}"


def _marked(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    for line in head.splitlines():
        _, sep, rest = line.partition(MARKER)
        if sep:
            return rest.strip() or os.path.basename(path)
    return None


def fakes_in_use(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every fake this process would measure through, named; empty for a real run."""
    env = os.environ if environ is None else environ
    found: dict[str, None] = dict(_declared)
    for tool in WATCHED_TOOLS:
        exe = shutil.which(tool, path=env.get("PATH", ""))
        if exe is not None:
            what = _marked(exe)
            if what is not None:
                found.setdefault(what, None)
    for part in env.get(ENV, "").split(","):
        if part.strip():
            found.setdefault(part.strip(), None)
    return list(found)
