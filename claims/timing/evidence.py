"""A timing decision into a check: its figures, its stated error, its verdict.

:func:`record` attaches the decision (every value, every look's interval) and
ends the check as the rule decided: a measurement that holds or fails for a
decided interval, "not run" naming the interval when it straddles the bar. The
chance of refuting a true claim is in the measurement's note and in the
attachment, as the randomness claim states its own.
"""

from __future__ import annotations

from typing import Any

from claims.plugin.outcomes import not_run
from claims.timing.rules import Decision

__all__ = ["record"]


def record(
    check: Any,
    name: str,
    decision: Decision,
    *,
    expected: str,
    digits: int = 3,
    recorded: bool = False,
) -> bool:
    """Record ``decision`` as the measurement ``name``; undecided live -> not run.

    ``recorded``: the values are a document's table, not a sample; an undecided
    table does not support the claim, so the measurement fails (as before).
    """
    check.attach(f"{name}: timing rule", decision.to_json(), kind="json")
    last = decision.last
    shown: Any = (
        None
        if not last.decided
        else [round(last.lo or 0.0, digits + 1), round(last.hi or 0.0, digits + 1)]
    )
    if decision.outcome == "undecided" and not recorded:
        not_run(f"{name}: {decision.describe()}; rerun on a quieter machine to decide it")
    note = decision.describe()
    return bool(
        check.measure(
            name,
            shown,
            holds=decision.holds is True,
            unit=decision.unit or None,
            expected=expected,
            note=note,
        )
    )
