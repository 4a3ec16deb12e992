"""Verdicts: the one decision of a check's verdict, and the ranking of a claim's checks.

One claim can have several checks (recorded figures, a fixture, a live server).
Each check gets a verdict from how it ended (:func:`decide`); the claim's
verdict is the most serious among them, in this order:

    refuted > error > known-erratum > reproduced > consistent > not-applicable > not-run

so a live refutation is never hidden by a passing recorded check, and a claim
is "reproduced" only when at least one check confirmed it live on this machine.

:func:`decide` is the one place a check's verdict is decided: the plugin
translates how pytest ended a test (a report, its exception, the check's
conclusion, a later teardown error, an interrupt) into an :class:`Ending` and
writes the :class:`Decision` into the check record; reading a stored record
(:func:`check_verdict`) only validates it. In a certification run
(``--claims-require-live``) a claim with live checks gets the verdict of its live
checks alone: what the document recorded cannot stand in for a live check that
did not run or failed. Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

# The words are the evidence's, spelled once in claims.records; Verdict, Outcome,
# Failure and Phase are re-exported for the modules that decide with them.
from claims.records import (
    CheckRecord,
    ClaimRecord,
    ConclusionKind,
    Failure,
    Outcome,
    Phase,
    SkipStatus,
    SourceName,
    Summary,
    Verdict,
)

__all__ = [
    "DESCRIPTIONS",
    "NOT_SELECTED",
    "PRIORITY",
    "VERDICTS",
    "Decision",
    "Ending",
    "Failure",
    "Outcome",
    "Phase",
    "Stop",
    "Verdict",
    "check_verdict",
    "claim_verdict",
    "decide",
    "summarize",
    "through_fake",
]

VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
# Most serious first; "untestable" is a catalog fact, never the verdict of a check.
PRIORITY: tuple[Verdict, ...] = (
    Verdict.REFUTED,
    Verdict.ERROR,
    Verdict.KNOWN_ERRATUM,
    Verdict.REPRODUCED,
    Verdict.CONSISTENT,
    Verdict.NOT_APPLICABLE,
    Verdict.NOT_RUN,
)
# The reason of a claim that no selected test checked (the report's hint keys on it).
NOT_SELECTED = "no test of this claim was selected in this run"
DESCRIPTIONS: dict[str, str] = {
    Verdict.REPRODUCED: "confirmed live on this machine",
    Verdict.CONSISTENT: "confirmed on recorded figures or bundled artifacts only",
    Verdict.REFUTED: "a measurement contradicts the claim",
    Verdict.KNOWN_ERRATUM: "refuted, as the catalog expects (documented erratum)",
    Verdict.NOT_APPLICABLE: "does not apply to this machine profile or model",
    Verdict.NOT_RUN: "not checked in this run (reason given)",
    Verdict.ERROR: "nothing was decided: the probe failed, the test compared nothing, or a "
    "catalogued erratum no longer reproduces",
    Verdict.UNTESTABLE: "a program cannot check it (reason given)",
}

class Stop(StrEnum):
    """What stopped a check before it passed: how the plugin saw the test end."""

    NOT_APPLICABLE = "not-applicable"  # skipped: another machine profile or model
    NOT_RUN = "not-run"  # skipped: a prerequisite is missing (any other skip)
    # pytest's expected failure: a known erratum only when the check concluded one
    EXPECTED_FAILURE = "expected-failure"
    REQUIRED_BUT_NOT_RUN = "required-but-not-run"  # --claims-require-live: a missing prerequisite
    ERRATUM_HOLDS = "erratum-holds"  # a figure a catalogued erratum lists now holds
    NOTHING_COMPARED = "nothing-compared"  # the check judged no measurement
    ASSERTION = "assertion"  # an assertion failed (a refutation when in the test's call)
    ERROR = "error"  # any other exception: the probe or the test broke
    INTERRUPTED = "interrupted"  # Ctrl-C or a signal while the test ran


@dataclass(frozen=True)
class Ending:
    """How one check ended, in neutral terms: what :func:`decide` decides from.

    ``stop`` None: the test passed. ``conclusion`` is the kind of
    :class:`claims.check.Conclusion` the check reached (None when it did not
    reach one); ``fakes`` the fakes the run measured through
    (:mod:`claims.simulation`); ``message`` the one line the report gave;
    ``teardown_error`` the message of a teardown that failed after this ending.
    """

    stop: Stop | None = None
    phase: Phase = "call"
    conclusion: ConclusionKind | None = None
    source: SourceName = "fixture"
    fakes: tuple[str, ...] = ()
    message: str | None = None
    teardown_error: str | None = None


@dataclass(frozen=True)
class Decision:
    """What a check record says of how its check ended: the fields :func:`decide` writes.

    ``message`` is the record's message (the report's own, or what replaces it);
    ``concluded`` is, for a check measured through a fake, what it concluded
    there, kept apart from its verdict (the record's ``simulated_conclusion``).
    """

    outcome: Outcome
    verdict: Verdict
    failure: Failure | None = None
    status: SkipStatus | None = None
    message: str | None = None
    concluded: Verdict | None = None

    def write(self, record: CheckRecord) -> None:
        """Write the decided fields into a check record (failure and status only when set).

        A field the record holds already keeps its place: a record made with the
        report's message gets the decision's message there.
        """
        record["outcome"] = self.outcome
        record["verdict"] = self.verdict
        if self.failure is not None:
            record["failure"] = self.failure
        if self.status is not None:
            record["status"] = self.status
        record["message"] = self.message


# The verdict of each conclusion a check can reach; "holds" depends on the source.
_CONCLUDED: dict[str, Verdict] = {
    "refuted": Verdict.REFUTED,
    "known-erratum": Verdict.KNOWN_ERRATUM,
    "erratum-holds": Verdict.ERROR,
    "nothing-compared": Verdict.ERROR,
    "not-applicable": Verdict.NOT_APPLICABLE,
}
# Endings a later teardown error spoils: pytest counts that error, so the record must;
# a failure or an error stands.
_SPOILED_BY_TEARDOWN: frozenset[str] = frozenset({"passed", "xfailed", "skipped"})


def decide(ending: Ending) -> Decision:
    """The verdict of a check and the record fields that go with it: decided here, once.

    A test that passed is judged by the conclusion its check reached (a
    confirmation is "reproduced" only from a live source, and never through a
    fake); every other ending by what stopped it. A teardown that failed later
    spoils a pass, an expected failure or a skip.
    """
    decision = _ended(ending)
    simulated = bool(ending.fakes) and ending.source == "live"
    if simulated:
        verdict = through_fake(decision.verdict, simulated=True)
        decision = replace(decision, verdict=verdict, concluded=decision.verdict)
        if verdict is not decision.concluded:
            decision = replace(
                decision,
                message=f"simulated: passed through {', '.join(ending.fakes)}; a fake "
                "confirms nothing about a machine",
            )
    if ending.teardown_error is not None and decision.outcome in _SPOILED_BY_TEARDOWN:
        decision = replace(
            decision,
            outcome="error",
            verdict=Verdict.ERROR,
            failure="error",
            message=f"teardown: {ending.teardown_error}",
        )
    return decision


def through_fake(verdict: Verdict, *, simulated: bool) -> Verdict:
    """The verdict of a check that may have measured a fake rather than a machine.

    A fake confirms nothing (claims.simulation): a confirmation through one
    reads "not run"; a refutation or an error stands (the instrument's own
    tests rely on a fake refuting what it should).
    """
    if simulated and verdict is Verdict.REPRODUCED:
        return Verdict.NOT_RUN
    return verdict


def _ended(ending: Ending) -> Decision:
    """The decision before a fake or a teardown is taken into account."""
    message = ending.message
    stop = ending.stop
    if stop is None:
        if ending.conclusion is None:  # a pass without a conclusion compared nothing
            return Decision("passed", Verdict.ERROR, failure="nothing-compared", message=message)
        if ending.conclusion == "holds":
            confirmed = Verdict.REPRODUCED if ending.source == "live" else Verdict.CONSISTENT
            return Decision("passed", confirmed, message=message)
        return Decision("passed", _CONCLUDED[ending.conclusion], message=message)
    if stop is Stop.EXPECTED_FAILURE:
        if ending.conclusion == "known-erratum":
            return Decision("xfailed", Verdict.KNOWN_ERRATUM, message=message)
        # Only a catalogued erratum makes an expected failure a known erratum; an
        # xfail marker or a bare pytest.xfail() decided nothing.
        return Decision(
            "xfailed",
            Verdict.ERROR,
            failure="error",
            message=f"expected failure without a catalogued erratum: {message}",
        )
    if stop is Stop.NOT_APPLICABLE:
        return Decision("skipped", Verdict.NOT_APPLICABLE, status="not-applicable", message=message)
    if stop is Stop.NOT_RUN:
        return Decision("skipped", Verdict.NOT_RUN, status="not-run", message=message)
    if stop is Stop.REQUIRED_BUT_NOT_RUN:
        # Certification mode: the missing prerequisite fails the run, and the check
        # stays "not run" (nothing was measured).
        return Decision("failed", Verdict.NOT_RUN, failure="not-run", message=message)
    if stop is Stop.ERRATUM_HOLDS:
        return Decision("failed", Verdict.ERROR, failure="erratum-holds", message=message)
    if stop is Stop.NOTHING_COMPARED:
        return Decision("failed", Verdict.ERROR, failure="nothing-compared", message=message)
    if stop is Stop.ASSERTION and ending.phase == "call":
        return Decision("failed", Verdict.REFUTED, failure="refuted", message=message)
    if stop is Stop.INTERRUPTED:
        # Stopped before it decided anything: not run, and why (the checks it did not
        # reach are not run too; the finished ones keep their verdicts).
        return Decision("skipped", Verdict.NOT_RUN, failure="interrupted", status="not-run",
                        message=message)
    # Any other exception, or an assertion in a fixture: the probe or the test broke.
    return Decision("error", Verdict.ERROR, failure="error", message=message)


def check_verdict(check: Mapping[str, Any]) -> Verdict:
    """Verdict of one check record (as stored in evidence.json): validated, not decided.

    The record carries the verdict :func:`decide` wrote; a record without a
    valid one (hand-edited, or from a version that did not write it) decided
    nothing. A record of a live check through a fake that still reads
    "reproduced" (written before the rule) gets the rule of :func:`through_fake`.
    """
    verdict = check.get("verdict")
    if verdict not in PRIORITY:
        return Verdict.ERROR
    return through_fake(Verdict(verdict), simulated=bool(check.get("simulated")))


def claim_verdict(
    testable: bool,
    untestable_reason: str | None,
    checks: Iterable[Mapping[str, Any]],
    *,
    certification: bool = False,
) -> tuple[Verdict, str | None]:
    """The claim's verdict and a one-line reason, from all of its checks.

    ``certification``: the run demanded live checks (--claims-require-live); a claim
    that has any is judged by them alone.
    """
    if not testable:
        return Verdict.UNTESTABLE, untestable_reason
    checks = list(checks)
    if not checks:
        return Verdict.NOT_RUN, NOT_SELECTED
    if certification:
        live = [c for c in checks if c.get("source") == "live"]
        checks = live or checks
    ranked = sorted(checks, key=lambda c: PRIORITY.index(check_verdict(c)))
    top = ranked[0]
    verdict = check_verdict(top)
    reason = None if verdict in (Verdict.REPRODUCED, Verdict.CONSISTENT) else top.get("message")
    if verdict is Verdict.NOT_RUN and len(ranked) > 1:
        # Several skipped checks: keep the distinct reasons, they tell the user what to enable.
        reasons = sorted(
            {c.get("message") or "" for c in ranked if check_verdict(c) is Verdict.NOT_RUN} - {""}
        )
        reason = " | ".join(reasons) if reasons else reason
    return verdict, _one_line(reason)


def _one_line(text: str | None, limit: int = 400) -> str | None:
    if text is None:
        return None
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def summarize(claims: Iterable[ClaimRecord]) -> Summary:
    """Counts per verdict overall and per document (the evidence 'summary')."""
    by_verdict: dict[str, int] = {v: 0 for v in VERDICTS}
    by_document: dict[str, dict[str, int]] = {}
    for claim in claims:
        v = claim["verdict"]
        by_verdict[v] = by_verdict.get(v, 0) + 1
        doc = by_document.setdefault(claim["document"], {k: 0 for k in VERDICTS})
        doc[v] = doc.get(v, 0) + 1
    return {"by_verdict": by_verdict, "by_document": by_document}
