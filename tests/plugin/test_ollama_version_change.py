"""A server whose /api/version changes during a run (issue 35, item 9) is noted in the
evidence and the report, and each check records the version it ran against.

On 4f018a0 the version was asked once per session: a server upgraded between two
tests left evidence naming one version for checks measured on two releases.
"""

from __future__ import annotations

import pytest

from claims.testing.fake_ollama import FakeOllama, upgraded_mid_run

TESTS = """
import pytest

@pytest.mark.ollama
@pytest.mark.claim("T1-SERVER")
def test_1_before(check, live):
    live.generate("one", {"model": "phi4", "prompt": "hi", "options": {"num_predict": 2}})
    check.measure("rate", 12.0, holds=True, unit="tok/s", expected="a rate")

@pytest.mark.ollama
@pytest.mark.claim("T1-SERVER")
def test_2_after(check, live):
    check.measure("rate", 12.0, holds=True, unit="tok/s", expected="a rate")
"""


@pytest.fixture
def fake():
    with FakeOllama.as_release("0.31.2", token_interval_s=0.001) as server:
        yield server


def test_a_version_change_during_the_run_is_in_the_evidence_and_the_report(
    claims_pytester, fake
):
    upgraded_mid_run(fake, "0.32.15")
    claims_pytester.pytester.makepyfile(TESTS)
    result = claims_pytester.run(f"--ollama-host={fake.url}", "-m", "ollama")
    result.assert_outcomes(passed=2)
    doc = claims_pytester.evidence()
    assert doc["run"]["machine"]["ollama"]["versions"] == ["0.31.2", "0.32.15"]
    checks = {c["nodeid"].rsplit("::", 1)[-1]: c["facts"]
              for c in claims_pytester.claim("T1-SERVER")["checks"]}
    assert checks["test_1_before"]["ollama_version"] == "0.31.2"
    assert checks["test_2_after"]["ollama_version"] == "0.32.15"
    assert checks["test_2_after"]["ollama_version_at_start"] == "0.31.2"
    page = (claims_pytester.pytester.path / "reports" / "report.html").read_text("utf-8")
    assert "its version changed during the run (0.31.2 → 0.32.15)" in page


def test_a_steady_server_lists_no_versions(claims_pytester, fake):
    claims_pytester.pytester.makepyfile(TESTS)
    result = claims_pytester.run(f"--ollama-host={fake.url}", "-m", "ollama")
    result.assert_outcomes(passed=2)
    assert "versions" not in claims_pytester.evidence()["run"]["machine"]["ollama"]
