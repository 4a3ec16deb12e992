"""A check lost with its pytest-xdist worker is never reported as a complete run (issue 35).

A worker that dies under a test (here: ``os._exit``, as a segfault in a native
library would) takes that test's check with it; xdist reports the test failed
with the phase ``???``. The evidence then says the run is not complete, naming the
lost test, instead of a complete run whose claim simply lacks a check.
"""

from __future__ import annotations

import pytest

from tests.plugin.toy import SUM, claim_test

pytestmark = pytest.mark.slow

TESTS = "import os\nimport pytest\n" + SUM + claim_test(
    "test_2_dies", "T1-TABLE", 'check.measure("rows", 3, holds=True, expected="three rows")',
    "os._exit(3)")


def test_a_worker_crash_leaves_evidence_marked_incomplete(claims_pytester):
    claims_pytester.pytester.makepyfile(TESTS)
    result = claims_pytester.run("-n", "2", "-m", "offline", subprocess=True)
    assert "crashed" in result.stdout.str()
    doc = claims_pytester.evidence()
    assert doc["run"]["complete"] is False
    assert doc["run"]["interrupted"]["by"] == "a pytest-xdist worker crashed (1 test(s) lost)"
    assert doc["run"]["interrupted"]["test"].endswith("::test_2_dies")
    assert claims_pytester.claim("T1-TABLE")["checks"] == []  # nothing it measured is kept
    assert claims_pytester.claim("T1-SUM")["verdict"] == "consistent"
