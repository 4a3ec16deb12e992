"""Hostile files and signals through the pytest path (issue 22): the terminal and the evidence.

Each test runs the plugin in a child pytest (the toy catalog, tests/toy_catalog)
and checks the exact outcome: no raw control, format or bidi character in what
the terminal received, and a run stopped by SIGTERM still writes its evidence
and report, naming the test it stopped.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from claims.testing.hostile import INVISIBLE, TERMINAL_ATTACK, raw_terminal_bytes
from tests.plugin.toy import SUM, claim_test

# Subprocesses: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

HOSTILE_TEST = f"""
import pytest

TEXT = {TERMINAL_ATTACK + INVISIBLE!r}

@pytest.mark.offline
@pytest.mark.claim("T1-SUM")
def test_refuted_with_hostile_text(check):
    check.measure("sum " + TEXT, 5, holds=False, expected="4 " + TEXT, note=TEXT)

@pytest.mark.offline
@pytest.mark.claim("T1-SPARK")
def test_not_run_with_hostile_reason(check):
    from claims.testkit import not_run
    not_run("no such file: " + TEXT)

@pytest.mark.offline
def test_fails_with_hostile_message():
    print(TEXT)
    raise ValueError(TEXT)

@pytest.mark.offline
@pytest.mark.xfail(reason="known: " + TEXT)
def test_xfails_with_hostile_reason():
    assert False, TEXT
"""


def test_failures_reasons_and_captured_output_reach_the_terminal_escaped(claims_pytester):
    claims_pytester.pytester.makepyfile(HOSTILE_TEST)
    result = claims_pytester.run("-ra", "--claims-profile=dgx-spark", subprocess=True)
    out = result.stdout.str() + result.stderr.str()
    assert raw_terminal_bytes(out) == []
    # What was there is still said, as escapes a reader can see.
    assert "gpt2\\x1b]0;PWNED\\x07\\x1b[2J\\u202e" in out
    assert "\\u200b\\u2060\\xad\\U000e0041\\u180e\\u3164\\ufff9\\u034f" in out
    # The evidence keeps the original text (JSON escapes it; the page shows it escaped).
    (check,) = claims_pytester.claim("T1-SUM")["checks"]
    assert check["measurements"][0]["note"] == TERMINAL_ATTACK + INVISIBLE


WARNING_TEST = f"""
import threading
import warnings

import pytest

TEXT = {TERMINAL_ATTACK + INVISIBLE!r}

@pytest.mark.offline
@pytest.mark.claim("T1-SUM")
def test_a_library_warns_with_what_a_file_said(check):
    warnings.warn("tokenizer " + TEXT + " is unknown", UserWarning)
    check.against("sum", 4.0)

@pytest.mark.offline
@pytest.mark.claim("T1-SUM")
def test_a_thread_dies_on_what_a_server_said(check):
    def reply():
        raise ValueError("server said " + TEXT)

    thread = threading.Thread(target=reply)
    thread.start()
    thread.join()
    check.against("sum", 4.0)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["in-process", "xdist"])
def test_warnings_that_quote_a_file_or_a_server_reach_the_terminal_escaped(
    claims_pytester, workers
):
    # The suite emits no warning of its own with such text (its one warning names a
    # deprecated option); a library's warning or a thread's crash in a test can quote
    # a hostile file or reply, and pytest's warnings summary prints it as it is.
    # Under xdist the worker escapes it before shipping it to the controller.
    claims_pytester.pytester.makepyfile(WARNING_TEST)
    result = claims_pytester.run("-ra", *workers, subprocess=True)
    out = result.stdout.str() + result.stderr.str()
    assert "warnings summary" in out and "PytestUnhandledThreadExceptionWarning" in out, out
    assert raw_terminal_bytes(out) == []
    assert out.count("gpt2\\x1b]0;PWNED\\x07\\x1b[2J\\u202e") == 2, out  # both, escaped


SLOW_TEST = "import os, time\nimport pytest\n" + SUM + claim_test(
    "test_hangs", "T1-WRONG", 'open(os.environ["CLAIMS_STARTED"], "w").close()',
    "time.sleep(60)")

# Waits for the child to reach the hanging test, and for it to end after SIGTERM.
CHILD_BOUND_S = 60.0


def test_a_run_stopped_by_sigterm_writes_its_evidence_and_report_naming_the_test(
    claims_pytester, tmp_path: Path
) -> None:
    pyt = claims_pytester.pytester
    pyt.makepyfile(SLOW_TEST)
    started = tmp_path / "started"
    proc = claims_pytester.start("-q", env={"CLAIMS_STARTED": str(started)})
    give_up = time.monotonic() + CHILD_BOUND_S
    while not started.exists() and time.monotonic() < give_up and proc.poll() is None:
        time.sleep(0.05)
    assert started.exists(), "the child never reached the hanging test"
    time.sleep(1.0)  # a second inside it, so its recorded time is measurably real
    proc.send_signal(signal.SIGTERM)
    out = claims_pytester.output(proc, timeout=CHILD_BOUND_S)
    assert proc.returncode == 2, out  # pytest's "interrupted"
    doc = claims_pytester.evidence()
    run = doc["run"]
    assert run["complete"] is False
    assert run["interrupted"]["by"] == "SIGTERM"
    assert run["interrupted"]["test"].endswith("::test_hangs")
    assert run["interrupted"]["test_seconds"] >= 1.0
    (hung,) = claims_pytester.claim("T1-WRONG")["checks"]
    assert (hung["outcome"], hung["verdict"]) == ("skipped", "not-run")
    assert hung["message"].startswith("not run (interrupted): SIGTERM after ")
    assert claims_pytester.claim("T1-SUM")["verdict"] == "consistent"  # the finished test stays
    page = (pyt.path / "reports" / "report.html").read_text("utf-8")
    assert "Stopped by a signal." in page and "test_hangs" in page


def test_a_remote_host_is_recorded_as_remote_with_its_credentials_redacted(claims_pytester):
    # Collected only: nothing is contacted (tests talk to loopback alone); the run
    # facts say the server named is another machine, and hold no password.
    claims_pytester.pytester.makepyfile(SLOW_TEST)
    result = claims_pytester.run("--ollama-host=http://user:s3cret@spark.invalid:11434",
                                 "--collect-only")
    assert result.ret == 0
    options = claims_pytester.evidence()["run"]["options"]
    assert options["ollama_host"] == "http://***@spark.invalid:11434"
    assert options["ollama_remote"] is True
    assert "s3cret" not in claims_pytester.evidence_path.read_text("utf-8")
    assert "s3cret" not in result.stdout.str()
