"""Ctrl-C, SIGTERM and a closed terminal end a run at any moment, keeping what finished (issue 47).

The interrupt path is claims/plugin/writer.py's (``interrupt_on_signals``, the writer's
``pytest_keyboard_interrupt`` and ``pytest_sessionfinish``). Each case starts a child
pytest of a toy project (the toy catalog) in a terminal of its own, a pty that is its
controlling terminal, as a user's is, with the signal dispositions a terminal gives a
command (tests/signals.py: this run may itself have been started with SIGINT ignored).
The project's conftest holds the run at one moment (start-up, collection, inside a
check, in the middle of writing the final evidence or the report, printing the summary)
and says so through a file; the test then stops it there: Ctrl-C typed into the terminal,
SIGTERM as ``kill`` sends it, or the terminal closed (SIGHUP). The run must end (the
deadline only detects a hang: a held moment lasts longer than it) and its evidence keep
every check that finished before the signal.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.plugin.toy import SUM, claim_test
from tests.signals import own_terminal

# Subprocesses: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# Hang detectors, not budgets: reaching a moment (a loaded machine is slow, not hung),
# and ending once stopped; a moment held by the conftest lasts HOLD_S, longer than both,
# so a signal that did not end the run is caught.
REACH_S = 300.0
DEADLINE_S = 60.0
HOLD_S = 600

PAUSING_CONFTEST = f'''
import contextlib
import os
import time

import pytest

import claims.evidence
import claims.plugin.writer

MOMENT = os.environ["PAUSE_AT"]
READY = os.environ["PAUSE_READY"]
finishing = False
held = None  # the signals the writer holds while it writes the final evidence


def pause(moment):
    """Hold the run here, once it said so, until the test's signal has arrived."""
    if moment != MOMENT:
        return
    with open(READY, "w", encoding="utf-8") as fh:
        fh.write(moment)
    give_up = time.monotonic() + {HOLD_S}
    # A signal the run listens to ends this loop with KeyboardInterrupt; one the
    # writer holds ends it here, and the write goes on.
    while not held and time.monotonic() < give_up:
        time.sleep(0.05)


held_signals = claims.plugin.writer.held_signals


@contextlib.contextmanager
def watched_held_signals():
    global held
    with held_signals() as held:
        yield held


claims.plugin.writer.held_signals = watched_held_signals


def halfway(write, moment, name):
    """write_atomic that holds the run with half of the final ``name`` written."""
    def write_atomic(path, text):
        if path.name != name or not finishing:
            return write(path, text)
        whole = text if isinstance(text, str) else "".join(text)

        def pieces():
            yield whole[: len(whole) // 2]
            pause(moment)
            yield whole[len(whole) // 2 :]

        return write(path, pieces())
    return write_atomic


# The evidence log writes through claims.evidence's name, the report through the writer's.
claims.evidence.write_atomic = halfway(claims.evidence.write_atomic, "evidence", "evidence.json")
claims.plugin.writer.write_atomic = halfway(
    claims.plugin.writer.write_atomic, "report", "report.html")


def pytest_configure(config):
    pause("start-up")


def pytest_collectstart(collector):
    if isinstance(collector, pytest.Module):
        pause("collection")


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session):
    global finishing
    finishing = True
    return (yield)


def pytest_terminal_summary(terminalreporter):
    pause("summary")
'''

# T1-SUM finishes first; the second check is the one "inside a check" holds.
TESTS = "import pytest\n" + SUM + claim_test(
    "test_2_parts", "T1-WRONG", "from conftest import pause", 'pause("check")',
    'check.against("parts", 2)')

MOMENTS = ("start-up", "collection", "check", "evidence", "report", "summary")
# pytest has started its session (and the plugin listens to all three signals) from
# collection on; both checks have finished from the final write of the evidence on.
IN_SESSION = ("collection", "check", "evidence", "report")
AFTER_THE_CHECKS = ("evidence", "report", "summary")
# How the evidence names who stopped the run.
SIGNALS = {"Ctrl-C": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGHUP": signal.SIGHUP}


def _stop(project: Any, moment: str, how: str) -> tuple[int, bytes]:
    """Run the project until it holds at ``moment``, stop it ``how``; its status and output."""
    ready = project.pytester.path / "ready"
    # This checkout's claims first on the path (not an installed copy elsewhere).
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PAUSE_AT": moment, "PAUSE_READY": str(ready), "PYTHONPATH": path}
    for key in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"):
        env.pop(key, None)
    cmd = [sys.executable, "-m", "pytest", *project.base_args, "-p", "no:xdist", "-q"]
    master, follower = pty.openpty()
    proc = subprocess.Popen(cmd, cwd=project.pytester.path, env=env, stdin=follower,
                            stdout=follower, stderr=follower, preexec_fn=own_terminal)
    os.close(follower)
    output = bytearray()

    def drain(wait_s: float) -> None:  # the terminal is read, or the child blocks writing
        if master < 0:
            time.sleep(wait_s)
            return
        ready_fds, _, _ = select.select([master], [], [], wait_s)
        if ready_fds:
            with contextlib.suppress(OSError):  # EIO once the child closed its side
                output.extend(os.read(master, 65536))

    try:
        deadline = time.monotonic() + REACH_S
        while not ready.exists():
            assert proc.poll() is None, f"ended before {moment}: {bytes(output).decode()}"
            assert time.monotonic() < deadline, f"never reached {moment}: {bytes(output)!r}"
            drain(0.05)
        if how == "Ctrl-C":
            os.write(master, b"\x03")  # as the terminal's line discipline turns the key
        elif how == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        else:  # the terminal closed: the kernel hangs up its session (SIGHUP)
            os.close(master)
            master = -1
        deadline = time.monotonic() + DEADLINE_S
        while proc.poll() is None:
            assert time.monotonic() < deadline, (
                f"{how} at {moment}: still running; {bytes(output[-3000:]).decode()}")
            drain(0.05)
        drain(0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if master >= 0:
            os.close(master)
    return proc.returncode, bytes(output)


@pytest.mark.parametrize("how", list(SIGNALS))
@pytest.mark.parametrize("moment", MOMENTS)
def test_a_signal_at_any_moment_ends_the_run_keeping_the_finished_checks(
    claims_pytester, moment: str, how: str
) -> None:
    claims_pytester.pytester.makeconftest(PAUSING_CONFTEST)
    claims_pytester.pytester.makepyfile(test_toy=TESTS)
    status, output = _stop(claims_pytester, moment, how)
    said = (moment, how, status, output.decode(errors="replace")[-3000:])
    if moment == "start-up":
        # Before the plugin listens: Ctrl-C is pytest's own, the others end it the
        # default way. Nothing had run, so there is nothing to keep.
        assert status == (2 if how == "Ctrl-C" else -SIGNALS[how]), said
        return
    if moment in IN_SESSION:
        assert status == 2, said  # pytest's "interrupted", through its interrupt path
    else:  # the summary is printed after everything was written: stopped, never "passed"
        assert status != 0, said
    doc: dict[str, Any] = json.loads(claims_pytester.evidence_path.read_text(encoding="utf-8"))
    checks = {c["id"]: c["checks"] for c in doc["claims"] if c["id"] in ("T1-SUM", "T1-WRONG")}
    if moment in AFTER_THE_CHECKS:
        # Both checks finished: all of it is kept, the report too, whole.
        assert doc["run"]["complete"] is True, said
        assert [c["verdict"] for c in checks["T1-SUM"] + checks["T1-WRONG"]] == [
            "consistent", "consistent"], (said, checks)
        page = (claims_pytester.pytester.path / "reports" / "report.html").read_text("utf-8")
        assert page.rstrip().endswith("</html>"), said
        return
    assert doc["run"]["complete"] is False, said
    assert doc["run"]["interrupted"]["by"] == how, (said, doc["run"]["interrupted"])
    if moment == "collection":
        assert checks == {"T1-SUM": [], "T1-WRONG": []}, (said, checks)
        return
    # Inside the second check: the first keeps its verdict, the second is "not run".
    assert [c["verdict"] for c in checks["T1-SUM"]] == ["consistent"], (said, checks)
    (stopped,) = checks["T1-WRONG"]
    assert stopped["verdict"] == "not-run", (said, stopped)
    assert stopped["message"].startswith(f"not run (interrupted): {how} after "), stopped
