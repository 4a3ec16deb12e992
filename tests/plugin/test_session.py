"""claims.plugin.session: a cache folder that cannot be written stops the run with one
message naming it and what to set, before any test, instead of a traceback per test."""

from __future__ import annotations

CLAIM_TESTS = """
import pytest

@pytest.mark.offline
@pytest.mark.claim("T1-SUM")
def test_sum(check):
    check.against("sum", 4.0)

@pytest.mark.offline
@pytest.mark.claim("T1-WRONG")
def test_wrong(check):
    check.against("parts", 2)
"""


def test_an_unwritable_cache_is_one_usage_error_naming_what_to_set(claims_pytester, monkeypatch):
    blocker = claims_pytester.pytester.path / "not a folder"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.delenv("CLAIMS_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(blocker))
    claims_pytester.pytester.makepyfile(CLAIM_TESTS)

    result = claims_pytester.run("-n", "2", subprocess=True)

    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 4, out  # pytest's usage error: no test ran
    assert out.count("cannot be used") == 1, out
    assert f"{blocker}/.cache/claims-suite" in out and "Set CLAIMS_CACHE_DIR" in out
    assert "Traceback" not in out and "PermissionError" not in out and "passed" not in out


def test_a_named_cache_folder_lets_the_same_run_pass(claims_pytester, monkeypatch):
    monkeypatch.setenv("HOME", str(claims_pytester.pytester.path / "missing" / "home"))
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(claims_pytester.pytester.path / "cache dir ä"))
    claims_pytester.pytester.makepyfile(CLAIM_TESTS)

    result = claims_pytester.run()

    result.assert_outcomes(passed=2)
    assert (claims_pytester.pytester.path / "cache dir ä").is_dir()


def test_a_statement_that_contradicts_its_figure_stops_the_run_naming_the_claim(
        claims_pytester):
    """The wording check (claims.catalog.wording) runs where the catalog is loaded: a
    statement that bounds a figure judged as equal is a catalog error, as a bad field is."""
    toml = claims_pytester.pytester.path / "catalog" / "T1.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace("Two plus two is printed as 4.0.",
                                 "Two plus two is printed as at least 4.0."), encoding="utf-8")
    claims_pytester.pytester.makepyfile(CLAIM_TESTS)

    result = claims_pytester.run(subprocess=True)

    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 4, out  # a usage error: no test ran
    assert "claims catalog is invalid" in out and "T1-SUM: statement: figure 'sum': " \
        "printed as at least" in out, out
    assert "passed" not in out
