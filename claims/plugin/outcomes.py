"""How a claim test ends when it does not simply pass.

* :func:`not_run` – a prerequisite is missing (no server, no model, no GPU, an
  opt-in flag not given). Reported "not run" with the reason; under
  ``--claims-require-live`` it fails instead, so a certification cannot pass by skipping.
* :func:`not_applicable` – the claim or figure is about another machine profile
  or model. Reported "not applicable"; never a failure.
* :class:`ClaimRefuted` – measurements contradict the claim (an assertion failure).
* :class:`ErratumNowHolds` – a figure a catalogued erratum lists now holds.
* :class:`NothingCompared` – the test compared nothing: an error of the test.

The exception says how the test ended (:mod:`claims.plugin.conclusion` raises
the one matching the check's conclusion); :func:`claims.plugin.check_record.ending`
names it as a :class:`claims.verdicts.Stop`, and the verdict is decided from
that, once, by :func:`claims.verdicts.decide`.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

from claims.records import StatedFor

# The bases are pytest's public names for its outcomes (pytest.skip.Exception is what
# pytest.skip() raises): a subclass is reported as pytest's own skip or failure. pytest
# types them as attributes of a function, which mypy does not take for a base class,
# hence the ignores; the classes are checked by the plugin's tests instead.

__all__ = [
    "ClaimRefuted",
    "ErratumNowHolds",
    "NotApplicable",
    "NotRun",
    "NothingCompared",
    "RequiredButNotRun",
    "needs_flag",
    "not_applicable",
    "not_run",
]


class NotRun(pytest.skip.Exception):  # type: ignore[misc,name-defined]
    """A prerequisite of the check is missing on this machine or in this run."""


class NotApplicable(pytest.skip.Exception):  # type: ignore[misc,name-defined]
    """The check does not apply to this machine profile or model.

    ``scope`` says what it applies to ({"profile": "dgx-spark"}, {"model": "phi4"}),
    when known, so the report can tell the user how to run it.
    """

    def __init__(
        self, msg: str, pytrace: bool = False, scope: StatedFor | None = None
    ) -> None:
        super().__init__(msg, pytrace=pytrace)
        self.scope: StatedFor = scope.copy() if scope else {}


class RequiredButNotRun(pytest.fail.Exception):  # type: ignore[misc,name-defined]
    """--claims-require-live: a check that would be skipped for a missing prerequisite."""


class ClaimRefuted(pytest.fail.Exception):  # type: ignore[misc,name-defined]
    """Measurements contradict the claim (shown without a traceback: the figures say it all)."""


class ErratumNowHolds(pytest.fail.Exception):  # type: ignore[misc,name-defined]
    """A figure the catalog lists as a known erratum now holds: update the catalog."""


class NothingCompared(pytest.fail.Exception):  # type: ignore[misc,name-defined]
    """The test recorded no measurement judged against a statement: it cannot fail."""


def not_run(reason: str) -> NoReturn:
    """End the check as "not run" with a reason that says what would run it."""
    raise NotRun(reason, pytrace=False)


def not_applicable(reason: str, scope: StatedFor | None = None) -> NoReturn:
    """End the check as "not applicable" (another profile or model, named in ``scope``)."""
    raise NotApplicable(reason, pytrace=False, scope=scope)


def needs_flag(enabled: bool, flag: str, what: str) -> None:
    """Not-run unless the user opted in: nothing changes a live server by surprise."""
    if not enabled:
        not_run(f"{what} changes the server's state; pass {flag} to allow it")
