"""The check record a claim test's report carries to the evidence writer.

:func:`check_record` writes, for each report of a claim test that did not
simply pass its setup or teardown, the check's outcome and verdict (decided
here once, by :func:`ending`), its message, tiers and measurements; the record
travels in the report's ``user_properties`` (which pytest-xdist ships from a
worker to the controller) under :data:`~claims.plugin.keys.RECORD_KEY`.
:func:`label_skip` makes pytest's own ``-rs`` line say "not run: <reason>".
"""

from __future__ import annotations

from typing import Any

import pytest

from claims.check import Conclusion, jsonable
from claims.plugin.keys import CHECK, CONCLUSION, SIMULATED
from claims.plugin.markers import claim_ids, item_tiers
from claims.plugin.outcomes import (
    ErratumNowHolds,
    NotApplicable,
    NothingCompared,
    NotRun,
    RequiredButNotRun,
)
from claims.records import PendingCheck
from claims.verdicts import check_verdict

__all__ = ["check_record", "ending", "label_skip"]


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
    rec: dict[str, Any] = {
        "nodeid": item.nodeid,
        "claims": ids,
        "when": report.when,
        "source": check.source if check else "fixture",
        "duration_s": round(float(report.duration), 6),
        "message": _message(report, call),
        "tiers": item_tiers(item),
    }
    exc = call.excinfo.value if call.excinfo is not None else None
    rec.update(ending(report, exc, item.stash.get(CONCLUSION, None), rec["message"]))
    if isinstance(exc, NotApplicable) and exc.scope:
        rec["applies_to"] = exc.scope
    if check is not None:
        rec.update(check.to_json())
    else:
        rec.update(measurements=[], attachments=[], facts={}, notes=[], charts=[])
    fakes = item.config.stash.get(SIMULATED, [])
    if fakes and rec["source"] == "live":
        # Measured through a fake (claims.simulation): never "reproduced" (claims.verdicts).
        rec["simulated"] = True
        # What the check concluded through the fake, kept apart from its verdict: the
        # instrument's own tests read it to see that a recorded machine is judged right.
        rec["simulated_conclusion"] = rec["verdict"]
        if rec["verdict"] == "reproduced":
            rec["verdict"] = check_verdict(rec)
            rec["message"] = (f"simulated: passed through {', '.join(fakes)}; a fake confirms "
                              "nothing about a machine")
    # Plain builtins only: xdist cannot ship a str or float subclass to the controller.
    record: PendingCheck = jsonable(rec)
    return record


def ending(
    report: pytest.TestReport,
    exc: BaseException | None,
    conclusion: Conclusion | None,
    message: str | None,
) -> dict[str, Any]:
    """The check's outcome, verdict and (when it did not pass) why: decided here, once.

    A test that ran to its end carries the :class:`Conclusion` of its check;
    every other ending is decided by what stopped it (a missing prerequisite,
    another profile, a failing assertion, a broken probe).
    """
    if report.passed:
        if conclusion is None:  # a pass without a conclusion compared nothing
            return {"outcome": "passed", "verdict": "error", "failure": "nothing-compared"}
        return {"outcome": "passed", "verdict": conclusion.verdict}
    if report.skipped:
        if getattr(report, "wasxfail", None) is not None:
            if conclusion is not None and conclusion.kind == "known-erratum":
                return {"outcome": "xfailed", "verdict": "known-erratum"}
            # Only a catalogued erratum makes an expected failure a known
            # erratum; an xfail marker or a bare pytest.xfail() decided nothing.
            return {
                "outcome": "xfailed",
                "verdict": "error",
                "failure": "error",
                "message": f"expected failure without a catalogued erratum: {message}",
            }
        if isinstance(exc, NotApplicable):
            return {"outcome": "skipped", "verdict": "not-applicable", "status": "not-applicable"}
        return {"outcome": "skipped", "verdict": "not-run", "status": "not-run"}
    if isinstance(exc, RequiredButNotRun):
        # Certification mode: the missing prerequisite fails the run, and the check
        # stays "not run" (nothing was measured).
        return {"outcome": "failed", "verdict": "not-run", "failure": "not-run"}
    if isinstance(exc, ErratumNowHolds):
        return {"outcome": "failed", "verdict": "error", "failure": "erratum-holds"}
    if isinstance(exc, NothingCompared):
        return {"outcome": "failed", "verdict": "error", "failure": "nothing-compared"}
    if isinstance(exc, (AssertionError, pytest.fail.Exception)) and report.when == "call":
        return {"outcome": "failed", "verdict": "refuted", "failure": "refuted"}
    return {"outcome": "error", "verdict": "error", "failure": "error"}


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
