"""claims.verdicts: per-check verdicts and their aggregation per claim."""

from __future__ import annotations

import pytest

from claims.verdicts import PRIORITY, check_verdict, claim_verdict, summarize


def rec(verdict, source="fixture", **extra):
    return {"verdict": verdict, "source": source, **extra}


def test_a_check_record_carries_its_verdict():
    for verdict in PRIORITY:
        assert check_verdict(rec(verdict)) == verdict


@pytest.mark.parametrize(
    "record",
    [
        {"outcome": "passed", "source": "live"},  # no verdict written: decided nothing
        rec("untestable"),  # a claim's verdict, never a check's
        rec("confirmed"),
    ],
)
def test_a_record_without_a_valid_verdict_is_an_error(record):
    assert check_verdict(record) == "error"


def test_a_live_refutation_is_never_hidden_by_a_recorded_pass():
    checks = [rec("consistent", "recorded"), rec("refuted", "live", message="no")]
    assert claim_verdict(True, None, checks) == ("refuted", "no")


def test_reproduced_needs_a_live_check():
    assert claim_verdict(True, None, [rec("consistent", "recorded")])[0] == "consistent"
    assert (
        claim_verdict(True, None, [rec("consistent", "recorded"), rec("reproduced", "live")])[0]
        == "reproduced"
    )


def test_errata_outrank_confirmations():
    checks = [rec("reproduced", "live"), rec("known-erratum")]
    assert claim_verdict(True, None, checks)[0] == "known-erratum"


def test_claims_without_checks_are_not_run_and_untestable_keep_their_reason():
    assert claim_verdict(True, None, []) == (
        "not-run",
        "no test of this claim was selected in this run",
    )
    assert claim_verdict(False, "an opinion", []) == ("untestable", "an opinion")


def test_not_run_reasons_are_combined():
    checks = [
        rec("not-run", message="no server"),
        rec("not-run", message="no GPU"),
    ]
    assert claim_verdict(True, None, checks) == ("not-run", "no GPU | no server")


def test_a_certification_run_shows_what_the_live_check_showed():
    checks = [rec("consistent", "recorded"), rec("not-run", "live", message="no server")]
    assert claim_verdict(True, None, checks) == ("consistent", None)
    assert claim_verdict(True, None, checks, certification=True) == ("not-run", "no server")
    failed = [rec("consistent", "recorded"), rec("error", "live", message="probe broke")]
    assert claim_verdict(True, None, failed, certification=True) == ("error", "probe broke")
    # A claim with no live check keeps its offline verdict in a certification run.
    assert claim_verdict(True, None, checks[:1], certification=True)[0] == "consistent"


def test_an_erratum_that_now_holds_keeps_its_reason():
    checks = [rec("error", message="MC-X: catalogued as a known erratum, but a now holds")]
    assert claim_verdict(True, None, checks) == (
        "error",
        "MC-X: catalogued as a known erratum, but a now holds",
    )


def test_priority_is_a_total_order_of_the_run_verdicts():
    assert PRIORITY[0] == "refuted" and "untestable" not in PRIORITY


def test_summary_counts_per_document():
    claims = [
        {"verdict": "consistent", "document": "W1"},
        {"verdict": "refuted", "document": "W2"},
        {"verdict": "consistent", "document": "W2"},
    ]
    summary = summarize(claims)
    assert summary["by_verdict"]["consistent"] == 2
    assert summary["by_document"]["W2"]["refuted"] == 1


def test_a_check_through_a_fake_is_never_reproduced():
    fake = rec("reproduced", "live", simulated=True, message="simulated: passed through fake CUDA")
    assert check_verdict(fake) == "not-run"
    assert check_verdict(rec("refuted", "live", simulated=True)) == "refuted"
    verdict, reason = claim_verdict(True, None, [fake])
    assert verdict == "not-run" and reason.startswith("simulated:")
    assert claim_verdict(True, None, [fake, rec("consistent", "recorded")])[0] == "consistent"
