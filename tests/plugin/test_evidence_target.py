"""Evidence written as a database writes (issue 35): no file lost to a full disk, a device
node, a folder or a second run.

Each case is a child pytest of the toy catalog (tests/toy_catalog). A full disk is
made two ways: simulated (a conftest in the child makes the evidence file's writes
fail with ENOSPC while a marker file exists) and, where this machine lets root
mount one, a real 300 KiB tmpfs that a test of the child fills.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.plugin.toy import SUM, claim_test

# Subprocesses: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

# A template: {middle} and {end} are the tests each case adds.
CLAIM_TESTS = "\n".join([
    "import pytest",
    SUM,
    claim_test("test_2_wrong", "T1-WRONG", 'check.against("sum", 2.0)',
               'check.against("parts", 2)'),
    "{middle}",
    claim_test("test_4_server", "T1-SERVER",
               'check.measure("rate", 12.0, holds=True, unit="tok/s", expected="a rate")'),
    claim_test("test_5_table", "T1-TABLE",
               'check.measure("rows", 3, holds=True, expected="three rows")'),
    "{end}",
])


def _checks(doc: dict[str, Any]) -> set[str]:
    return {ch["nodeid"].rsplit("::", 1)[-1] for c in doc["claims"] for ch in c["checks"]}


EXPECTED = {"test_1_sum", "test_2_wrong", "test_4_server", "test_5_table"}


# --- a target that is not a file ----------------------------------------------------------


def test_a_folder_as_the_evidence_path_is_a_usage_error_before_any_test(claims_pytester):
    claims_pytester.pytester.makepyfile(CLAIM_TESTS.format(middle="", end=""))
    folder = claims_pytester.pytester.path / "somewhere"
    folder.mkdir()
    result = claims_pytester.run(f"--claims-evidence={folder}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "IsADirectoryError" not in out
    assert f"--claims-evidence {folder} is a folder; name a file in it" in out
    assert "passed" not in result.stdout.str()


def test_a_fifo_as_the_evidence_path_is_refused_and_left_as_it_is(claims_pytester):
    # As /dev/full would be (which on 4f018a0 was replaced by a regular file, as root);
    # a FIFO of the test's own, so the check cannot harm this machine.
    claims_pytester.pytester.makepyfile(CLAIM_TESTS.format(middle="", end=""))
    fifo = claims_pytester.pytester.path / "evidence.fifo"
    os.mkfifo(fifo)
    result = claims_pytester.run(f"--claims-evidence={fifo}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "exists and is not a regular file" in result.stderr.str() + result.stdout.str()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# --- a full disk, simulated -------------------------------------------------------------------

FULL_DISK_CONFTEST = """
import errno
from pathlib import Path

import claims.evidence as evidence

MARK = Path(__file__).parent / "disk-is-full"
_real = evidence.write_atomic

def failing(path, text):
    if MARK.exists() and Path(path).parent == MARK.parent / "reports":
        raise OSError(errno.ENOSPC, "No space left on device")
    return _real(path, text)

evidence.write_atomic = failing
"""

FILL = """
def test_3_disk_fills():
    import time
    from pathlib import Path
    Path(__file__).parent.joinpath("disk-is-full").write_text("")
    time.sleep(1.2)  # past the writer's interval: its next write meets the full disk
"""

FREE = """
def test_6_space_returns():
    from pathlib import Path
    Path(__file__).parent.joinpath("disk-is-full").unlink()
"""


def test_a_disk_full_mid_run_keeps_every_check_in_a_named_fallback_copy(claims_pytester,
                                                                        spare_home):
    pyt = claims_pytester.pytester
    pyt.makeconftest(FULL_DISK_CONFTEST)
    pyt.makepyfile(CLAIM_TESTS.format(middle=FILL, end=""))
    result = claims_pytester.run("-p", "no:randomly", subprocess=True)
    out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "Traceback" not in out
    result.assert_outcomes(passed=4, xfailed=1)
    assert result.ret != 0  # every test passed, but the evidence is not where it was asked
    copies = list(spare_home.glob("evidence.fallback-*.json"))
    assert len(copies) == 1
    assert (f"evidence could not be written to {claims_pytester.evidence_path} "
            "(No space left on device;") in out
    assert f"every finished check is in the fallback copy {copies[0]}" in out
    doc = json.loads(copies[0].read_text("utf-8"))
    assert doc["run"]["complete"] is True
    assert _checks(doc) == EXPECTED


def test_a_disk_that_frees_up_before_the_end_gets_the_whole_evidence(claims_pytester,
                                                                    spare_home):
    pyt = claims_pytester.pytester
    pyt.makeconftest(FULL_DISK_CONFTEST)
    pyt.makepyfile(CLAIM_TESTS.format(middle=FILL, end=FREE))
    result = claims_pytester.run(subprocess=True)
    out = result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=5, xfailed=1)
    assert result.ret != 0
    assert "written in full at the end, when it could be" in out
    doc = claims_pytester.evidence()
    assert doc["run"]["complete"] is True and _checks(doc) == EXPECTED
    assert not list(spare_home.glob("*.json"))


# --- a full disk, for real: a 300 KiB tmpfs ---------------------------------------------------


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str = "300k") -> Any:
    where.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size},nr_inodes=1000", "tmpfs", str(where)],
            capture_output=True, timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        pytest.skip("cannot run mount here")
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root): the simulated cases stand in")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


FILL_TMPFS = """
def test_3_disk_fills():
    import os
    from pathlib import Path
    target = Path(os.environ["CLAIMS_TEST_FULL_DIR"]) / "filler"
    try:
        with open(target, "wb") as fh:
            while True:
                fh.write(b"x" * 4096)
                fh.flush()
    except OSError:
        pass  # full: what this test is for
    import time
    time.sleep(1.2)  # past the writer's interval: its next write meets the full disk
"""


def test_evidence_on_a_tmpfs_that_fills_mid_run_loses_no_check(claims_pytester, spare_home,
                                                                monkeypatch):
    pyt = claims_pytester.pytester
    with small_tmpfs(pyt.path / "full") as full:
        pyt.makepyfile(CLAIM_TESTS.format(middle=FILL_TMPFS, end=""))
        monkeypatch.setenv("CLAIMS_TEST_FULL_DIR", str(full))
        evidence = full / "evidence.json"
        result = claims_pytester.run(f"--claims-evidence={evidence}",
                                     f"--claims-report-html={full / 'report.html'}",
                                     subprocess=True)
        out = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in out and "Traceback" not in out
    result.assert_outcomes(passed=4, xfailed=1)
    assert result.ret != 0
    assert "No space left on device" in out
    copies = list(spare_home.glob("evidence.fallback-*.json"))
    assert len(copies) == 1, out
    doc = json.loads(copies[0].read_text("utf-8"))
    assert doc["run"]["complete"] is True and _checks(doc) == EXPECTED


# --- two runs at once ------------------------------------------------------------------------

# Each test takes a second, so the two runs overlap from start to end.
SLOW_CONFTEST = """
import time
import pytest

@pytest.fixture(autouse=True)
def slowly():
    time.sleep(1)
"""


def test_two_runs_at_once_both_complete_into_distinct_files(claims_pytester):
    pyt = claims_pytester.pytester
    pyt.makeconftest(SLOW_CONFTEST)
    pyt.makepyfile(CLAIM_TESTS.format(middle="", end=""))
    marker = uuid.uuid4().hex
    runs = [claims_pytester.start("-m", "offline", "-k", f"not {marker}{i}") for i in range(2)]
    outs = [claims_pytester.output(run) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outs  # T1-WRONG's erratum: xfail
    files = sorted((pyt.path / "reports").glob("evidence*.json"))
    assert len(files) == 2, files
    docs = [json.loads(f.read_text("utf-8")) for f in files]
    for doc in docs:
        assert doc["run"]["complete"] is True and _checks(doc) == EXPECTED
    assert docs[0]["run"]["args"] != docs[1]["run"]["args"]
    # The second run said which files it wrote instead, at the start and at the end.
    second = next(o for o in outs if "is writing" in o)
    assert second.count("this run writes its evidence to") == 2
    assert len(list((pyt.path / "reports").glob("report*.html"))) == 2
