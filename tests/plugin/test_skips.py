"""claims.plugin.skips: one terminal line per kind of skip, with its count."""

from __future__ import annotations

SKIPPING = """
import pytest
from claims.testkit import not_run

pytestmark = pytest.mark.offline

@pytest.mark.claim("T1-SUM")
@pytest.mark.parametrize("n", range(3))
def test_needs_a_server(check, n):
    not_run("no server at http://127.0.0.1:1 (connection refused)")

@pytest.mark.claim("T1-WRONG")
def test_needs_a_gpu(check):
    not_run("no GPU")
"""


def test_skips_are_counted_by_kind_and_listed_only_when_asked(claims_pytester):
    claims_pytester.pytester.makepyfile(SKIPPING)
    result = claims_pytester.run()
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines([
        "*skipped, by reason*",
        "   3 × not run: no server at http://127.0.0.1:1 (connection refused)",
        "   1 × not run: no GPU",
        "4 skipped in 2 kinds; every test's reason is in the evidence and the report, "
        "and with -rs here",
    ])
    assert "SKIPPED [" not in result.stdout.str()  # no line per test

    listed = claims_pytester.run("-rs")
    listed.stdout.fnmatch_lines(["SKIPPED *not run: no GPU"])
    assert "4 skipped in 2 kinds" not in listed.stdout.str()
