"""claims.verdicts: per-check verdicts and their aggregation per claim."""

from __future__ import annotations

import pytest

from claims.verdicts import PRIORITY, check_verdict, claim_verdict, summarize


def rec(outcome, source="fixture", **extra):
    return {"outcome": outcome, "source": source, **extra}


@pytest.mark.parametrize(
    ("record", "verdict"),
    [
        (rec("passed", "live"), "reproduced"),
        (rec("passed", "recorded"), "consistent"),
        (rec("passed", "fixture"), "consistent"),
        (rec("xfailed"), "known-erratum"),
        (rec("xfailed", failure="error"), "error"),  # an xfail no catalogued erratum explains
        (rec("skipped", status="not-applicable"), "not-applicable"),
        (rec("skipped", status="not-run"), "not-run"),
        (rec("failed", failure="refuted"), "refuted"),
        (rec("failed", failure="not-run"), "not-run"),
        (rec("failed", "live", failure="erratum-holds"), "reproduced"),
        (rec("error", failure="error"), "error"),
    ],
)
def test_check_verdicts(record, verdict):
    assert check_verdict(record) == verdict


def test_a_live_refutation_is_never_hidden_by_a_recorded_pass():
    checks = [rec("passed", "recorded"), rec("failed", "live", failure="refuted", message="no")]
    assert claim_verdict(True, None, checks) == ("refuted", "no")


def test_reproduced_needs_a_live_check():
    assert claim_verdict(True, None, [rec("passed", "recorded")])[0] == "consistent"
    assert (
        claim_verdict(True, None, [rec("passed", "recorded"), rec("passed", "live")])[0]
        == "reproduced"
    )


def test_errata_outrank_confirmations():
    assert claim_verdict(True, None, [rec("passed", "live"), rec("xfailed")])[0] == "known-erratum"


def test_claims_without_checks_are_not_run_and_untestable_keep_their_reason():
    assert claim_verdict(True, None, []) == (
        "not-run",
        "no test of this claim was selected in this run",
    )
    assert claim_verdict(False, "an opinion", []) == ("untestable", "an opinion")


def test_not_run_reasons_are_combined():
    checks = [
        rec("skipped", status="not-run", message="no server"),
        rec("skipped", status="not-run", message="no GPU"),
    ]
    assert claim_verdict(True, None, checks) == ("not-run", "no GPU | no server")


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
