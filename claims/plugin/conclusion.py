"""After a claim test's body: its check's conclusion, raised as how the test ends.

The check says what it found (:meth:`claims.check.Check.conclude`);
:func:`conclude` keeps that conclusion on the item for the check record (whose
verdict :func:`claims.verdicts.decide` derives from it) and turns it into
pytest's outcome: a refutation fails, a known erratum is an expected failure,
an erratum that now holds or a check that compared nothing fails as an error
of the catalog or the test, a check whose every figure was about another model
or profile is not applicable.
"""

from __future__ import annotations

import pytest

from claims.evidence import NonFiniteMeasurement, non_finite_names, non_finite_problem
from claims.plugin.keys import CHECK, CONCLUSION
from claims.plugin.outcomes import ClaimRefuted, ErratumNowHolds, NothingCompared, not_applicable

__all__ = ["conclude"]


def conclude(item: pytest.Item) -> None:
    """Judge the test's check (a test of no claim passes as it is)."""
    check = item.stash.get(CHECK, None)
    if check is None:
        return
    # NaN or an infinity is the probe failing, not a figure: the test errs (issue 13).
    non_finite = non_finite_names(check.measurements)
    if non_finite:
        raise NonFiniteMeasurement(non_finite_problem(non_finite))
    conclusion = check.conclude()
    item.stash[CONCLUSION] = conclusion
    if conclusion.kind == "refuted":
        raise ClaimRefuted(f"refuted: {conclusion.message}", pytrace=False)
    if conclusion.kind == "known-erratum":
        # As pytest.xfail() raises it, without the traceback (pytrace=False, as for a
        # refutation): the message says what was measured, and pytest's long traceback
        # of each known erratum parsed the source of every frame, the suite's own, a
        # tenth of the main job's test time (issue 51).
        raise pytest.xfail.Exception(f"known erratum: {conclusion.message}", pytrace=False)
    if conclusion.kind == "erratum-holds":
        raise ErratumNowHolds(str(conclusion.message), pytrace=False)
    if conclusion.kind == "nothing-compared":
        raise NothingCompared(str(conclusion.message), pytrace=False)
    if conclusion.kind == "not-applicable":
        # Every figure was about another model or profile: nothing was compared, so
        # the check confirms nothing (a pass would report the claim consistent).
        not_applicable(str(conclusion.message), scope=conclusion.scope)
