"""The claims plugin's behaviour, tested through real pytest runs (pytester)."""

from __future__ import annotations

import pytest

from claims.evidence import validate
from claims.tiers import TIERS
from claims.verdicts import Verdict

PASSING_OFFLINE = """
import pytest

pytestmark = pytest.mark.offline

@pytest.mark.claim("T1-SUM")
def test_sum(check):
    check.against("sum", 2 + 2)
"""

OLLAMA_TEST = """
import pytest

@pytest.mark.ollama
@pytest.mark.claim("T1-SERVER")
def test_server(check):
    check.measure("answered", True, holds=True, expected="an answer")
"""


def test_markers_are_registered_and_strict(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offlin
        def test_typo():
            pass
        """
    )
    result = claims_pytester.run()
    result.stdout.fnmatch_lines(["*'offlin' not found in `markers` configuration option*"])
    assert result.ret != 0


def test_marker_help_lists_every_tier(claims_pytester):
    result = claims_pytester.run("--markers")
    for tier in (*TIERS.names(), "claim(id, source=None)"):
        result.stdout.fnmatch_lines([f"@pytest.mark.{tier}:*"])


def test_passing_offline_claim_is_consistent(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    result = claims_pytester.run()
    result.assert_outcomes(passed=1)
    claim = claims_pytester.claim("T1-SUM")
    assert claim["verdict"] == "consistent"
    (check,) = claim["checks"]
    assert check["source"] == "fixture"
    (m,) = check["measurements"]
    assert m["measured"] == 4 and m["stated"] == 4.0 and m["holds"] is True
    assert m["tolerance"] == "±0.05 (printed precision)"


def test_refuting_measurement_fails_and_is_reported_refuted(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_sum(check):
            check.against("sum", 4.2)
            check.measure("still recorded after the failure", 1, holds=True, expected="1")
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*refuted: sum: measured 4.2, stated 4.0*"])
    claim = claims_pytester.claim("T1-SUM")
    assert claim["verdict"] == "refuted"
    assert len(claim["checks"][0]["measurements"]) == 2  # soft assertion: both kept


def test_known_erratum_is_xfailed_not_failed(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-WRONG")
        def test_wrong(check):
            check.against("sum", 1 + 1)
            check.against("parts", 2)
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(xfailed=1)
    assert result.ret == 0
    claim = claims_pytester.claim("T1-WRONG")
    assert claim["verdict"] == "known-erratum"
    assert claim["reason"] == "1 + 1 is 2, not 2.2."


def test_erratum_that_starts_to_hold_fails_strictly(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-WRONG")
        def test_wrong(check):
            check.against("sum", 2.2)
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*T1-WRONG: catalogued as a known erratum, but sum now holds*"])
    # The evidence agrees with the failed test: not "consistent", an error to act on.
    claim = claims_pytester.claim("T1-WRONG")
    assert claim["verdict"] == "error"
    assert claim["checks"][0]["verdict"] == "error"
    assert "sum now holds" in claim["reason"]


def test_an_erratum_corrected_in_part_fails_strictly_naming_the_figure(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-TABLE")
        def test_table(check):
            check.against("1 + 1", 3)   # this cell now holds (a corrected document)
            check.against("2 + 2", 4)   # this one is still the known mistake
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=1)
    assert result.ret == 1
    claim = claims_pytester.claim("T1-TABLE")
    assert claim["verdict"] == "error"
    assert "1 + 1 now holds" in claim["reason"] and "2 + 2 now" not in claim["reason"]


def test_a_claim_test_that_compares_nothing_is_an_error(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.offline

        @pytest.mark.claim("T1-SUM")
        def test_only_observes(check):
            check.observe("context", 4)

        @pytest.mark.claim("T1-WRONG")
        def test_records_nothing(check):
            pass
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*the test compared nothing*"])
    for cid in ("T1-SUM", "T1-WRONG"):
        claim = claims_pytester.claim(cid)
        assert claim["verdict"] == "error"
        assert claim["checks"][0]["outcome"] == "failed"


def test_unexpected_failure_in_an_erratum_claim_is_a_refutation(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-WRONG")
        def test_wrong(check):
            check.against("sum", 2)      # expected to fail: the erratum
            check.against("parts", 3)    # not expected to fail
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=1)
    assert claims_pytester.claim("T1-WRONG")["verdict"] == "refuted"


def test_missing_server_skips_with_a_precise_reason(claims_pytester):
    claims_pytester.pytester.makepyfile(OLLAMA_TEST)
    result = claims_pytester.run("-m", "ollama", "-rs")
    result.assert_outcomes(skipped=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*no Ollama server at http://127.0.0.1:*(connection refused)*"])
    claim = claims_pytester.claim("T1-SERVER")
    assert claim["verdict"] == "not-run"
    assert "no Ollama server" in claim["reason"]


def test_require_live_turns_missing_prerequisites_into_failures(claims_pytester):
    claims_pytester.pytester.makepyfile(OLLAMA_TEST)
    result = claims_pytester.run("-m", "ollama", "--claims-require-live")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*--claims-require-live: not run: no Ollama server at*"])
    claim = claims_pytester.claim("T1-SERVER")
    assert claim["verdict"] == "not-run"
    assert claim["checks"][0]["outcome"] == "failed"


RECORDED_AND_LIVE = """
import pytest

@pytest.mark.offline
@pytest.mark.claim("T1-SERVER", source="recorded")
def test_recorded(check):
    check.measure("the document's server answered", True, holds=True, expected="an answer")

@pytest.mark.ollama
@pytest.mark.claim("T1-SERVER")
def test_live(check):
    check.measure("answered", True, holds=True, expected="an answer")
"""


DECLARED_SOURCES = """
import pytest

pytestmark = pytest.mark.offline

@pytest.fixture
def from_this_machine(check):
    check.declare_source("live")

@pytest.mark.claim("T1-SUM", source="recorded")
def test_marked(check):
    check.against("sum", 4.0)

@pytest.mark.claim("T1-SERVER")
def test_declared_by_a_fixture(check, from_this_machine):
    check.measure("answered", True, holds=True, expected="an answer")
"""


def test_the_source_is_declared_on_the_marker_or_by_a_fixture(claims_pytester):
    claims_pytester.pytester.makepyfile(DECLARED_SOURCES)
    result = claims_pytester.run()
    result.assert_outcomes(passed=2)
    (marked,) = claims_pytester.claim("T1-SUM")["checks"]
    assert marked["source"] == "recorded" and marked["verdict"] == "consistent"
    (declared,) = claims_pytester.claim("T1-SERVER")["checks"]
    assert declared["source"] == "live" and declared["verdict"] == "reproduced"


def test_the_source_cannot_be_assigned_in_the_test_body(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.offline

        @pytest.mark.claim("T1-SUM")
        def test_assigned(check):
            check.source = "recorded"
            check.against("sum", 4.0)

        @pytest.mark.claim("T1-SERVER")
        def test_declared_in_the_body(check):
            check.declare_source("recorded")
            check.measure("answered", True, holds=True, expected="an answer")
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*check.source is declared, not assigned*"])
    result.stdout.fnmatch_lines(["*the source is declared before the test body runs*"])
    for cid in ("T1-SUM", "T1-SERVER"):
        (rec,) = claims_pytester.claim(cid)["checks"]
        assert rec["verdict"] == "error" and rec["source"] == "fixture"


def test_a_wrong_source_declaration_fails_naming_it(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.offline

        @pytest.mark.claim("T1-SUM", source="Recorded")
        def test_typo(check):
            check.against("sum", 4.0)

        @pytest.mark.claim("T1-SERVER", source="recorded")
        @pytest.mark.claim("T1-TABLE", source="live")
        def test_two_sources(check):
            check.measure("answered", True, holds=True, expected="an answer")

        @pytest.mark.claim("T1-WRONG", sorce="recorded")
        def test_unknown_keyword(check):
            check.against("parts", 2)
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(errors=3)
    result.stdout.fnmatch_lines([
        "*claim(source='Recorded'): the source is one of recorded, fixture, live*",
    ])
    result.stdout.fnmatch_lines(["*claim markers declare different sources*"])
    result.stdout.fnmatch_lines(["*@pytest.mark.claim takes only source=, not sorce*"])


def test_a_certification_run_shows_the_live_outcome_not_the_recorded_one(claims_pytester):
    claims_pytester.pytester.makepyfile(RECORDED_AND_LIVE)
    result = claims_pytester.run("-m", "offline or ollama")
    assert result.ret == 0
    assert claims_pytester.claim("T1-SERVER")["verdict"] == "consistent"
    result = claims_pytester.run("-m", "offline or ollama", "--claims-require-live")
    assert result.ret == 1
    claim = claims_pytester.claim("T1-SERVER")
    assert claim["verdict"] == "not-run"  # not the recorded "consistent" beside exit 1
    assert "no Ollama server" in claim["reason"]


def test_not_run_raised_inside_a_test_obeys_require_live(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest
        from claims.plugin.outcomes import needs_flag

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_needs_opt_in(check, claims_settings):
            needs_flag(claims_settings.allow_unload, "--ollama-allow-unload", "unloading the model")
        """
    )
    result = claims_pytester.run("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*pass --ollama-allow-unload to allow it*"])
    result = claims_pytester.run("--claims-require-live")
    result.assert_outcomes(failed=1)


def test_profile_claims_are_not_applicable_elsewhere(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SPARK")
        def test_spark(check):
            raise AssertionError("must not run on a generic machine")
        """
    )
    result = claims_pytester.run("--claims-require-live")
    result.assert_outcomes(skipped=1)
    assert result.ret == 0
    claim = claims_pytester.claim("T1-SPARK")
    assert claim["verdict"] == "not-applicable"
    assert "dgx-spark" in claim["reason"]


def test_a_check_whose_figures_are_all_for_another_model_is_not_applicable(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SERVER")
        def test_rate(check):
            check.against("rate", 99.0, model="gemma3")
            check.observe("context only", 1)
        """
    )
    result = claims_pytester.run("--claims-require-live")
    result.assert_outcomes(skipped=1)
    assert result.ret == 0
    claim = claims_pytester.claim("T1-SERVER")
    assert claim["verdict"] == "not-applicable"
    assert claim["reason"] == "figure stated for phi4; model under test is gemma3"
    assert len(claim["checks"][0]["measurements"]) == 2  # kept for the report


def test_a_compared_figure_beside_a_not_applicable_one_decides(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SERVER")
        def test_rate(check):
            check.against("rate", 99.0, model="gemma3")
            check.measure("general form", 2, holds=True, expected="answers")
        """
    )
    claims_pytester.run().assert_outcomes(passed=1)
    assert claims_pytester.claim("T1-SERVER")["verdict"] == "consistent"


def test_an_xfail_without_a_catalogued_erratum_is_not_a_known_erratum(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        @pytest.mark.xfail(reason="flaky probe", strict=True)
        def test_marked(check):
            raise AssertionError("nothing measured")

        @pytest.mark.offline
        @pytest.mark.claim("T1-WRONG")
        def test_bare_xfail(check):
            pytest.xfail("gave up before measuring")
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(xfailed=2)
    for claim_id in ("T1-SUM", "T1-WRONG"):
        claim = claims_pytester.claim(claim_id)
        assert claim["verdict"] == "error", claim_id
        assert "without a catalogued erratum" in claim["reason"]
    html = (claims_pytester.pytester.path / "reports" / "report.html").read_text("utf-8")
    assert "failed as the erratum expects" not in html
    assert "expected to fail, with no catalogued erratum" in html


def test_a_teardown_error_spoils_a_known_erratum_and_a_skip(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.fixture
        def broken_teardown():
            yield
            raise OSError("could not clean up")

        @pytest.mark.offline
        @pytest.mark.claim("T1-WRONG")
        def test_wrong(check, broken_teardown):
            check.against("sum", 2)

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_skipped(check, broken_teardown):
            pytest.skip("nothing to do")
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(xfailed=1, skipped=1, errors=2)
    for claim_id in ("T1-SUM", "T1-WRONG"):
        claim = claims_pytester.claim(claim_id)
        assert claim["verdict"] == "error", claim_id
        assert claim["reason"] == "teardown: OSError: could not clean up"


def test_a_teardown_error_leaves_a_refutation_standing(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.fixture
        def broken_teardown():
            yield
            raise OSError("could not clean up")

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_sum(check, broken_teardown):
            check.against("sum", 4.2)
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=1, errors=1)
    (check,) = claims_pytester.claim("T1-SUM")["checks"]
    assert (check["outcome"], check["verdict"]) == ("failed", Verdict.REFUTED)
    assert check["failure"] == "refuted"
    assert check["message"] == "refuted: sum: measured 4.2, stated 4.0"


def test_not_run_reason_is_the_reason_alone(claims_pytester):
    claims_pytester.pytester.makepyfile(OLLAMA_TEST)
    claims_pytester.run("-m", "ollama")
    (check,) = claims_pytester.claim("T1-SERVER")["checks"]
    assert check["message"].startswith("no Ollama server at http://127.0.0.1:")


def test_claim_option_selects_by_id(claims_pytester):
    claims_pytester.pytester.makepyfile(
        PASSING_OFFLINE
        + """
@pytest.mark.claim("T1-WRONG")
def test_other(check):
    check.against("sum", 2)
"""
    )
    result = claims_pytester.run("--claim", "T1-SUM")
    result.assert_outcomes(passed=1, deselected=1)


def test_unknown_claim_option_is_a_usage_error(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    result = claims_pytester.run("--claim", "T1-NOPE")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--claim: unknown claim id(s) T1-NOPE*"])


def test_a_misspelt_claim_option_suggests_the_nearest_id(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    result = claims_pytester.run("--claim", "T1-SUN")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*unknown claim id(s) T1-SUN (did you mean 'T1-SUM'?)*"])


def test_unknown_claim_marker_is_an_error_naming_the_id(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-TYPO")
        def test_x(check):
            pass
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*unknown claim id 'T1-TYPO'*"])


def test_tier_must_be_listed_for_the_claim(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.gpu
        @pytest.mark.claim("T1-SUM")
        def test_x(check):
            pass
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*tier(s) gpu not listed for claim T1-SUM*"])


def test_claim_test_needs_a_tier_marker(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.claim("T1-SUM")
        def test_x(check):
            pass
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*a claim test needs a tier marker*"])


def test_untestable_claims_are_reported_with_their_reason(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    claims_pytester.run()
    claim = claims_pytester.claim("T1-OPINION")
    assert claim["verdict"] == "untestable"
    assert claim["reason"] == "an opinion"


def test_evidence_validates_and_counts_every_claim(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    claims_pytester.run()
    evidence = claims_pytester.evidence()
    assert validate(evidence) == []
    assert evidence["run"]["complete"] is True
    assert evidence["run"]["markexpr"] == ""
    assert len(evidence["claims"]) == 7
    assert sum(evidence["summary"]["by_verdict"].values()) == 7
    assert (
        evidence["summary"]["by_verdict"]["not-run"] == 5
    )  # no test of T1-WRONG, T1-SERVER, T1-SPARK, T1-TABLE, T1-ENGINE
    machine = evidence["run"]["machine"]
    assert machine["memory_bytes"] > 0 and machine["python"]


def test_html_report_is_written_as_one_file(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    result = claims_pytester.run()
    result.stdout.fnmatch_lines(["*verdicts: 1 consistent*", "*report:*report.html"])
    html = (claims_pytester.pytester.path / "reports" / "report.html").read_text("utf-8")
    assert "T1-SUM" in html and "<script src" not in html and "<link" not in html


@pytest.mark.slow
def test_evidence_is_collected_under_xdist(claims_pytester):
    body = "\n".join(
        f"""
@pytest.mark.claim("T1-SUM")
def test_sum_{i}(check):
    check.against("sum", 4)
"""
        for i in range(6)
    )
    claims_pytester.pytester.makepyfile("import pytest\npytestmark = pytest.mark.offline\n" + body)
    result = claims_pytester.run("-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=6)
    claim = claims_pytester.claim("T1-SUM")
    assert claim["verdict"] == "consistent"
    assert len(claim["checks"]) == 6
    assert all(c["measurements"][0]["holds"] for c in claim["checks"])
    assert validate(claims_pytester.evidence()) == []


@pytest.mark.slow
def test_builtin_subclasses_in_a_record_survive_xdist(claims_pytester):
    # execnet serializes exact types only: torch.__version__ (a str subclass) or a
    # numpy float in a record used to crash the worker and end the whole run.
    claims_pytester.pytester.makepyfile(
        """
        import enum
        import numpy as np
        import pytest

        class Version(str):
            pass

        class Count(enum.IntEnum):
            TWO = 2

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_sum(check):
            check.fact("torch", Version("2.13.0+cpu"))
            check.against("sum", np.float64(4.0))
            check.measure(Version("count"), Count.TWO, holds=True, expected="2")
            check.observe("numpy", np.float64(0.5), note=Version("context"))
        """
    )
    result = claims_pytester.run("-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    (check,) = claims_pytester.claim("T1-SUM")["checks"]
    assert check["facts"]["torch"] == "2.13.0+cpu"
    assert [m["measured"] for m in check["measurements"]] == [4.0, 2, 0.5]
    assert validate(claims_pytester.evidence()) == []


@pytest.mark.slow
def test_interrupted_run_leaves_valid_incomplete_evidence(claims_pytester):
    claims_pytester.pytester.makepyfile(
        PASSING_OFFLINE
        + """
@pytest.mark.claim("T1-WRONG")
def test_interrupt(check):
    raise KeyboardInterrupt
"""
    )
    # In a subprocess: an in-process KeyboardInterrupt would stop this session too.
    result = claims_pytester.run(subprocess=True)
    assert result.ret == 2
    evidence = claims_pytester.evidence()
    assert validate(evidence) == []
    assert evidence["run"]["complete"] is False
    assert claims_pytester.claim("T1-SUM")["verdict"] == "consistent"


def test_stop_on_first_failure_is_an_incomplete_run(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest
        pytestmark = pytest.mark.offline

        @pytest.mark.claim("T1-SUM")
        def test_a(check):
            check.against("sum", 5)

        @pytest.mark.claim("T1-SUM")
        def test_b(check):
            check.against("sum", 4)
        """
    )
    claims_pytester.run("-x")
    assert claims_pytester.evidence()["run"]["complete"] is False


def test_probe_exception_is_an_error_verdict(claims_pytester):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_sum(check):
            raise OSError("disk on fire")
        """
    )
    result = claims_pytester.run()
    result.assert_outcomes(failed=1)
    claim = claims_pytester.claim("T1-SUM")
    assert claim["verdict"] == "error"
    assert "OSError: disk on fire" in claim["reason"]


@pytest.mark.slow
def test_offline_tests_cannot_reach_beyond_loopback(claims_pytester):
    # The real connect is replaced by a recorder first, so that even a broken
    # guard could not send a packet anywhere.
    claims_pytester.pytester.makeconftest(
        """
        import pytest_socket

        ATTEMPTS = []

        def _record(sock, *args):
            ATTEMPTS.append(args)
            raise ConnectionRefusedError("recorded, not sent")

        pytest_socket._true_connect = _record
        """
    )
    claims_pytester.pytester.makepyfile(
        """
        import socket
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_reaches_out(check):
            socket.create_connection(("192.0.2.1", 80), timeout=1)

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_loopback_is_allowed(check):
            with pytest.raises(ConnectionRefusedError, match="recorded, not sent"):
                socket.create_connection(("127.0.0.1", 9), timeout=1)
            check.against("sum", 4)
        """
    )
    # In a subprocess: the conftest above replaces pytest_socket's real connect,
    # which must not leak into this session.
    result = claims_pytester.run(subprocess=True)
    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(["*SocketConnectBlockedError*192.0.2.1*"])


def test_no_claims_report_writes_nothing(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    claims_pytester.run("--no-claims-report")
    assert not claims_pytester.evidence_path.exists()


def test_a_timeout_that_is_not_a_positive_number_is_a_usage_error(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    for value in ("-1", "0", "nan", "soon"):
        result = claims_pytester.run(f"--ollama-timeout={value}")
        assert result.ret == 4, value
        result.stderr.fnmatch_lines(["*argument --ollama-timeout:*"])
