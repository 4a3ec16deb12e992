"""How a claim test ends when it does not simply pass.

* :func:`not_run` – a prerequisite is missing (no server, no model, no GPU, an
  opt-in flag not given). Reported "not run" with the reason; under
  ``--require-live`` it fails instead, so a certification cannot pass by skipping.
* :func:`not_applicable` – the claim or figure is about another machine profile
  or model. Reported "not applicable"; never a failure.
* :class:`ClaimRefuted` – measurements contradict the claim (an assertion failure).
* :class:`ErratumNowHolds` – a catalogued erratum no longer reproduces.
"""

from __future__ import annotations

from typing import NoReturn

from _pytest.outcomes import Failed, Skipped

__all__ = [
    "ClaimRefuted",
    "ErratumNowHolds",
    "NotApplicable",
    "NotRun",
    "RequiredButNotRun",
    "needs_flag",
    "not_applicable",
    "not_run",
]


class NotRun(Skipped):
    """A prerequisite of the check is missing on this machine or in this run."""


class NotApplicable(Skipped):
    """The check does not apply to this machine profile or model."""


class RequiredButNotRun(Failed):
    """--require-live: a check that would be skipped for a missing prerequisite."""


class ClaimRefuted(Failed):
    """Measurements contradict the claim (shown without a traceback: the figures say it all)."""


class ErratumNowHolds(Failed):
    """A claim the catalog lists as a known erratum now holds: update the catalog."""


def not_run(reason: str) -> NoReturn:
    """End the check as "not run" with a reason that says what would run it."""
    raise NotRun(reason, pytrace=False)


def not_applicable(reason: str) -> NoReturn:
    """End the check as "not applicable" (another profile or model)."""
    raise NotApplicable(reason, pytrace=False)


def needs_flag(enabled: bool, flag: str, what: str) -> None:
    """Not-run unless the user opted in: nothing changes a live server by surprise."""
    if not enabled:
        not_run(f"{what} changes the server's state; pass {flag} to allow it")
