"""The version matrix: the offline certification and the quick loop on each Python the
suite supports (requires-python in pyproject.toml; README, "Two commands").

    nox                 # every interpreter found here, one after another
    nox -s "matrix(3.12)" # one of them
    nox -l              # the sessions, and which interpreter each one runs

Each minor version runs on the OLDEST patch release found on this machine, because a
feature that arrived in a patch release (tarfile's extraction filter, 3.11.4) is missing
there: Debian 12's own ``python3`` is 3.11.2. The interpreters are looked for on PATH
(every entry, so a pyenv shim does not hide /usr/bin), in the usual system folders and
under pyenv's versions folder; ``CLAIMS_PYTHON_3_12=/path/to/python`` names one instead.

A version with no interpreter here is not passed: its session is skipped and says so
(nox's own "Python interpreter ... not found"), and under ``--error-on-missing-interpreters``
(nox's default when CI is set) it fails. The list printed when this file loads names
each version's interpreter or says it is absent.

A session makes its own virtual environment (in .nox/), runs scripts/certify-offline.sh
with VENV and PYTHON pointing at it, then installs the dev extra (and torch==2.13.0 on
3.11, whose CPU wheel CI machines hold; on 3.12 and 3.13 the torch tests are skipped with
the reason) and runs ``pytest tests -m "not slow"``. The engine extra (llama-cpp-python, a
5-20 min native build per interpreter) is left out: scripts/test.sh builds it once, for
the main environment. Each session prints what each step took and appends it to
.nox/matrix-timings.txt. ``WORKERS=N`` sets the quick loop's xdist workers (default auto,
as in scripts/test.sh); ``nox -- ARGS`` passes ARGS to its pytest; NOX_QUIET_DISCOVERY=1
leaves out the list of interpreters (tests/test_noxfile.py imports this file).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import nox

SUPPORTED = ("3.11", "3.12", "3.13")
# torch is installed where its wheel is known to exist for the interpreter (CI's disk
# holds the CPU file for 3.11 only); elsewhere the torch tests skip with the reason.
TORCH = {"3.11": "torch==2.13.0"}
ROOT = Path(__file__).resolve().parent
TIMINGS = ROOT / ".nox" / "matrix-timings.txt"

nox.options.default_venv_backend = "venv"
# An interpreter that is not on the machine is reported missing, never fetched.
nox.options.download_python = "never"


def _version(python: str) -> tuple[tuple[int, ...], str] | None:
    """(version, sys.executable) of an interpreter, or None when it does not run."""
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:3]); print(sys.executable)"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.splitlines()
        return tuple(int(p) for p in out[0].split()), os.path.realpath(out[1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def _candidates(minor: str) -> list[str]:
    named = os.environ.get(f"CLAIMS_PYTHON_{minor.replace('.', '_')}")
    if named:
        return [named]
    name = f"python{minor}"
    found = [shutil.which(name, path=d) for d in os.environ.get("PATH", "").split(os.pathsep)]
    found += [f"/usr/bin/{name}", f"/usr/local/bin/{name}"]
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found += sorted(glob.glob(os.path.join(glob.escape(pyenv), "versions", f"{minor}.*",
                                           "bin", name)))
    return [f for f in dict.fromkeys(found) if f and os.path.isfile(f)]


def _oldest(minor: str) -> tuple[str, str] | None:
    """(path, "3.11.2") of the oldest patch release of ``minor`` that runs here."""
    runs = [v for v in map(_version, _candidates(minor)) if v is not None]
    runs = [(ver, exe) for ver, exe in runs if ".".join(map(str, ver[:2])) == minor]
    if not runs:
        return None
    ver, exe = min(runs)
    return exe, ".".join(map(str, ver))


FOUND = {minor: _oldest(minor) for minor in SUPPORTED}
if "NOX_QUIET_DISCOVERY" not in os.environ:
    for minor, hit in FOUND.items():
        print(f"claims-suite matrix: Python {minor}: "
              + (f"{hit[1]} at {hit[0]}" if hit
                 else "absent on this machine: its session is skipped, not passed "
                      f"(set CLAIMS_PYTHON_{minor.replace('.', '_')} to an interpreter)"),
              file=sys.stderr)


@nox.session
@nox.parametrize(
    "python",
    # An absent version is handed to nox as its bare number: nox then reports it as a
    # missing interpreter (skipped, or an error under --error-on-missing-interpreters).
    [hit[0] if hit else minor for minor, hit in FOUND.items()],
    ids=list(SUPPORTED),
)
def matrix(session: nox.Session) -> None:
    """The offline certification and the quick loop on one interpreter."""
    minor = next(m for m, hit in FOUND.items() if session.python in (m, hit and hit[0]))
    patch = (FOUND[minor] or ("", minor))[1]
    venv = session.virtualenv.location
    steps: list[tuple[str, float]] = []
    start = time.monotonic()

    def step(what: str, *args: str, **kwargs: Any) -> None:
        mark = time.monotonic()
        try:
            session.run(*args, **kwargs)
        finally:
            steps.append((what, time.monotonic() - mark))

    try:
        # The README's own command, in this session's environment; its report stays there.
        step("offline certification",
             "bash", "scripts/certify-offline.sh", "-p", "no:cacheprovider",
             "--claims-evidence", f"{venv}/reports/evidence.json",
             "--claims-report-html", f"{venv}/reports/report.html",
             env={"VENV": venv, "PYTHON": str(session.python)}, external=True)
        step("dev extra install",
             "python", "-m", "pip", "install", "--editable", ".[dev]",
             *filter(None, [TORCH.get(minor)]))
        step("quick loop",
             "python", "-m", "pytest", "tests", "-m", "not slow",
             "-n", os.environ.get("WORKERS", "auto"), "-q", "-p", "no:cacheprovider",
             "--claims-evidence", f"{venv}/quick/evidence.json",
             "--claims-report-html", f"{venv}/quick/report.html",
             *session.posargs)
    finally:
        # Said and kept whether the session passed or not: CI prints the file at its end.
        line = (f"Python {patch}: " + ", ".join(f"{what} {s:.0f} s" for what, s in steps)
                + f"; in all {time.monotonic() - start:.0f} s")
        session.log(line)
        TIMINGS.parent.mkdir(parents=True, exist_ok=True)
        with TIMINGS.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
