"""claims.audit.judge: a figure is sensitive when its claim's verdict moves, not a check's."""

from __future__ import annotations

from claims.audit.judge import Baseline, claim_verdicts, judge
from claims.audit.plan import FigureResult

from ._records import record


def result(claim: str, before: str) -> FigureResult:
    return FigureResult(claim=claim, figure="x", stated="1", before=before)


def test_a_check_that_changes_under_a_verdict_that_stays_is_not_counted():
    # A refuted claim with a second, passing check: perturbing the figure refutes that check
    # too. One more refuted check, the same refuted claim: not sensitive.
    base = Baseline.of({"a": record("C", "refuted"), "b": record("C", "consistent")})
    res = result("C", "refuted")
    assert judge(res, base, {"a": record("C", "refuted"), "b": record("C", "refuted")}) is False
    assert res.changed_checks == ["b"]
    assert res.after == "refuted" and res.changed_claims == []


def test_a_known_erratum_that_stays_one_is_not_counted():
    base = Baseline.of({"t": record("KV", "known-erratum")})
    res = result("KV", "known-erratum")
    rerun = {"t": record("KV", "known-erratum", message="other figures")}
    assert judge(res, base, rerun) is False and res.after == "known-erratum"


def test_the_claims_own_verdict_moving_is_sensitive():
    base = Baseline.of({"t": record("C", "consistent")})
    res = result("C", "consistent")
    assert judge(res, base, {"t": record("C", "refuted", message="too slow")}) is True
    assert res.after == "refuted" and res.after_reason == "too slow"
    assert res.changed_claims == ["C consistent -> refuted"]


def test_another_claim_that_moves_is_named_but_not_counted():
    # The figure is a premise of another claim's test: that claim moves, its own does not.
    base = Baseline.of({"own": record("KV", "known-erratum"), "q": record("Q", "consistent")})
    res = result("KV", "known-erratum")
    rerun = {"own": record("KV", "known-erratum"), "q": record("Q", "refuted")}
    assert judge(res, base, rerun) is False
    assert res.changed_checks == ["q"] and res.changed_claims == ["Q consistent -> refuted"]
    # A later perturbation that moves nothing keeps the record of the earlier one.
    judge(res, base, {"own": record("KV", "known-erratum"), "q": record("Q", "consistent")})
    assert res.changed_checks == [] and res.changed_claims == ["Q consistent -> refuted"]


def test_a_claim_of_which_one_test_reran_is_judged_on_all_of_its_tests():
    # Only the premise reader "q1" reran; Q's other test "q2" is refuted in the baseline, so
    # Q stays refuted whatever q1 does (a subset of its tests would say "consistent").
    base = Baseline.of(
        {
            "own": record("KV", "consistent"),
            "q1": record("Q", "refuted"),
            "q2": record("Q", "refuted"),
        }
    )
    res = result("KV", "consistent")
    judge(res, base, {"own": record("KV", "consistent"), "q1": record("Q", "consistent")})
    assert res.changed_claims == []


def test_claim_verdicts_rank_the_checks_of_each_claim():
    records = {
        "a": record("C", "consistent"),
        "b": record("C", "known-erratum"),
        "c": record("D", "?"),
    }
    assert claim_verdicts(records) == {"C": "known-erratum", "D": "error"}
