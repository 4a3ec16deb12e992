"""The check record a claim test's report carries to the evidence writer.

:func:`check_record` writes, for each report of a claim test that did not
simply pass its setup or teardown, the check's outcome and verdict, its
message, tiers and measurements; the record travels in the report's
``user_properties`` (which pytest-xdist ships from a worker to the controller)
under :data:`~claims.plugin.keys.RECORD_KEY`. It decides nothing itself:
:func:`ending` says in :class:`claims.verdicts.Ending`'s terms how pytest ended
the test, and the record gets what :func:`claims.verdicts.decide` makes of it.
:func:`after_teardown` lays a teardown's record over the earlier one (the writer
and the audit keep records alike). :func:`label_skip` makes pytest's own ``-rs``
line say "not run: <reason>".
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from claims.check import Check, Conclusion, Source, jsonable
from claims.plugin.keys import CHECK, CONCLUSION, ENDING, SIMULATED
from claims.plugin.markers import claim_ids, item_tiers
from claims.plugin.outcomes import (
    ErratumNowHolds,
    NotApplicable,
    NothingCompared,
    NotRun,
    RequiredButNotRun,
)
from claims.records import PendingCheck
from claims.verdicts import Decision, Ending, Stop, decide

__all__ = ["after_teardown", "check_record", "ending", "label_skip", "with_check"]


def check_record(
    item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[None]
) -> PendingCheck | None:
    """The record of this report of a claim test (None: not a claim test, or nothing ended)."""
    ids = claim_ids(item)
    if not ids:
        return None
    if report.when in ("setup", "teardown") and report.passed:
        return None
    check = item.stash.get(CHECK, None)
    source: Source = check.source if check else "fixture"
    message = _message(report, call)
    exc = call.excinfo.value if call.excinfo is not None else None
    fakes: list[str] = item.config.stash.get(SIMULATED, [])
    earlier = item.stash.get(ENDING, None)
    if report.when == "teardown" and earlier is not None:
        # The check ended before this teardown, which did not pass: it is judged as it
        # ended, and the teardown may spoil that (decide's teardown_error).
        end = replace(earlier, teardown_error=str(message))
    else:
        end = ending(
            report,
            exc,
            item.stash.get(CONCLUSION, None),
            source=source,
            message=message,
            fakes=tuple(fakes),
        )
        item.stash[ENDING] = end
    decision = decide(end)
    rec: PendingCheck = {
        "nodeid": item.nodeid,
        "claims": ids,
        "when": report.when,
        "source": source,
        "duration_s": round(float(report.duration), 6),
        "message": message,
        "tiers": item_tiers(item),
        "outcome": decision.outcome,
        "verdict": decision.verdict,
        "measurements": [],  # the check's own, with the rest it recorded (with_check)
    }
    # A record needs its outcome and verdict from the start; write() adds failure and
    # status where decided, and the decision's message in place of the report's.
    decision.write(rec)
    if isinstance(exc, NotApplicable) and exc.scope:
        rec["applies_to"] = exc.scope
    # Plain builtins only: xdist cannot ship a str or float subclass to the controller.
    record: PendingCheck = jsonable(with_check(rec, check, decision))
    return record


def with_check(rec: PendingCheck, check: Check | None, decision: Decision) -> PendingCheck:
    """``rec`` (its decided fields written) with what its check recorded (nothing: no check).

    A check :func:`decide` found measured through a fake is marked ``simulated``.
    """
    if check is None:
        rec["measurements"] = []
        rec["attachments"] = []
        rec["facts"] = {}
        rec["notes"] = []
        rec["charts"] = []
    else:
        recorded = check.to_json()
        rec["measurements"] = recorded["measurements"]
        rec["attachments"] = recorded["attachments"]
        rec["facts"] = recorded["facts"]
        rec["notes"] = recorded["notes"]
        rec["charts"] = recorded["charts"]
        rec["premises"] = recorded["premises"]
    if decision.concluded is not None:
        # Measured through a fake (claims.simulation). What the check concluded there is
        # kept apart from its verdict: the instrument's own tests read it to see that a
        # recorded machine is judged right.
        rec["simulated"] = True
        rec["simulated_conclusion"] = decision.concluded
    return rec


def after_teardown(earlier: PendingCheck, teardown: PendingCheck) -> None:
    """Lay the record of a teardown that did not pass over the check's earlier record.

    The teardown's record was decided with the earlier ending (``decide``'s
    ``teardown_error``): it spoils a pass, and an earlier failure stands in it. It
    carries over the fields that say how the check ended (:meth:`Decision.write`'s).
    """
    earlier["outcome"] = teardown["outcome"]
    earlier["verdict"] = teardown["verdict"]
    if "failure" in teardown:
        earlier["failure"] = teardown["failure"]
    if "status" in teardown:
        earlier["status"] = teardown["status"]
    if "message" in teardown:
        earlier["message"] = teardown["message"]


def ending(
    report: pytest.TestReport,
    exc: BaseException | None,
    conclusion: Conclusion | None,
    *,
    source: Source,
    message: str | None,
    fakes: tuple[str, ...] = (),
) -> Ending:
    """How pytest ended this test, in the terms :func:`claims.verdicts.decide` decides from.

    A test that ran to its end carries the :class:`Conclusion` of its check;
    every other ending is named by what stopped it (a missing prerequisite,
    another profile, an expected failure, a failing assertion, a broken probe).
    """
    return Ending(
        stop=_stop(report, exc),
        phase=report.when,
        conclusion=conclusion.kind if conclusion is not None else None,
        source=source,
        fakes=fakes,
        message=message,
    )


def _stop(report: pytest.TestReport, exc: BaseException | None) -> Stop | None:
    """What stopped the test (None: it passed)."""
    if report.passed:
        return None
    if report.skipped:
        if getattr(report, "wasxfail", None) is not None:
            return Stop.EXPECTED_FAILURE
        return Stop.NOT_APPLICABLE if isinstance(exc, NotApplicable) else Stop.NOT_RUN
    # The subclasses of pytest.fail.Exception first: each names its own ending.
    if isinstance(exc, RequiredButNotRun):
        return Stop.REQUIRED_BUT_NOT_RUN
    if isinstance(exc, ErratumNowHolds):
        return Stop.ERRATUM_HOLDS
    if isinstance(exc, NothingCompared):
        return Stop.NOTHING_COMPARED
    if isinstance(exc, (AssertionError, pytest.fail.Exception)):
        return Stop.ASSERTION
    return Stop.ERROR


def _message(report: pytest.TestReport, call: pytest.CallInfo[None]) -> str | None:
    """One line saying why the test did not pass (None when it passed)."""
    if report.skipped:
        wasxfail = getattr(report, "wasxfail", None)
        if wasxfail:
            return str(wasxfail)
        skip = call.excinfo.value if call.excinfo is not None else None
        if isinstance(skip, pytest.skip.Exception):
            # The reason itself: pytest's text would start with the class path
            # ("claims.plugin.outcomes.NotRun: ...") for our subclasses.
            return str(skip.msg)
        longrepr = report.longrepr
        if isinstance(longrepr, tuple) and len(longrepr) == 3:
            return str(longrepr[2]).removeprefix("Skipped: ")
        return str(longrepr)
    if call.excinfo is not None:
        value = call.excinfo.value
        text = getattr(value, "msg", None) or str(value) or call.excinfo.typename
        if isinstance(value, pytest.fail.Exception):
            return str(text)
        return f"{call.excinfo.typename}: {text}"
    return None


def label_skip(report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
    """Let pytest's -rs line say "not run: <reason>" at the test's own location.

    pytest would print the class path of our Skipped subclasses
    ("claims.plugin.outcomes.NotRun: ...") at the line in outcomes.py that raised.
    """
    exc = call.excinfo.value if call.excinfo is not None else None
    if not report.skipped or not isinstance(exc, (NotRun, NotApplicable)):
        return
    if not isinstance(report.longrepr, tuple) or len(report.longrepr) != 3:
        return
    label = "not applicable" if isinstance(exc, NotApplicable) else "not run"
    fspath, lineno, _domain = report.location  # 0-based line of the test itself
    report.longrepr = (fspath, (lineno or 0) + 1, f"{label}: {exc.msg}")
