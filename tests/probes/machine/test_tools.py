"""Tests of the tool runner (claims.probes.machine.tools): missing, failing and hung tools.

The tools are this interpreter run with ``-c``, so each failure mode is
produced on purpose, on any machine.
"""

from __future__ import annotations

import sys
import time

import pytest

from claims.probes.errors import PrerequisiteMissing
from claims.probes.machine import tools


def test_missing_tool_is_a_missing_prerequisite(tmp_path):
    with pytest.raises(PrerequisiteMissing, match="no such program"):
        tools.run_tool([str(tmp_path / "nvidia-smi")], timeout=5)


def test_not_executable_tool_is_a_missing_prerequisite(tmp_path):
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\n", encoding="utf-8")
    with pytest.raises(PrerequisiteMissing, match="not executable"):
        tools.run_tool([str(tool)], timeout=5)


def test_failing_tool_names_its_status_and_first_line():
    argv = [sys.executable, "-c",
            "import sys; print('NVIDIA-SMI has failed', file=sys.stderr); sys.exit(9)"]
    with pytest.raises(tools.ToolFailed, match="status 9: NVIDIA-SMI has failed"):
        tools.run_tool(argv, timeout=10)
    assert tools.run_tool(argv, timeout=10, check=False).returncode == 9


def test_hung_tool_fails_within_its_timeout():
    t0 = time.monotonic()
    with pytest.raises(tools.ToolFailed, match=r"no answer within 0\.5 s"):
        tools.run_tool([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert time.monotonic() - t0 < 5


def test_transcript_shows_the_command_its_output_and_a_failing_status():
    argv = [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); "
                                  "sys.exit(2)"]
    run = tools.run_tool(argv, timeout=10, check=False)
    assert run.transcript() == f"$ {' '.join(argv)}\nout\nerr\n[exit status 2]"


def test_output_is_decoded_leniently_and_capped(monkeypatch):
    monkeypatch.setattr(tools, "MAX_OUTPUT_CHARS", 8)
    run = tools.run_tool([sys.executable, "-c", "import sys; sys.stdout.buffer.write("
                                                "b'ab\\xffcdefghijkl')"], timeout=10)
    assert run.stdout == "ab\ufffdcdefg"
