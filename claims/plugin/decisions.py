"""A timing decision into a check: its figures, its stated error, its verdict.

Here, in the plugin, because it ends a check the way a test does (:func:`not_run`
is a pytest outcome); :mod:`claims.timing` decides, without pytest, and claim
tests reach this through :mod:`claims.testkit` (``record_decision``).

:func:`record` attaches the decision (every value, every look's interval), records
a planned sample's plan and bound (values, seconds) beside it, and
ends the check as the rule decided: a measurement that holds or fails for a
decided interval, "not run" naming the interval when it straddles the bar. The
chance of refuting a true claim is in the measurement's note and in the
attachment, as the randomness claim states its own.
"""

from __future__ import annotations

from typing import Any

from claims.figures import Interval
from claims.plugin.outcomes import not_run
from claims.timing.rules import Decision

__all__ = ["against_range", "record"]


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
    size_plan = decision.extra.get("size_plan")
    if isinstance(size_plan, dict):
        # A planned sample: its plan and its bound in seconds, beside the verdict.
        check.observe(
            f"{name}: planned sample",
            {k: size_plan.get(k) for k in ("pilot", "required", "planned", "cap",
                                           "planned_items", "planned_s", "bound_s")},
            note=str(size_plan.get("text", "")),
        )
    last = decision.last
    shown: Any = (
        None
        if not last.decided
        else [round(last.lo or 0.0, digits + 1), round(last.hi or 0.0, digits + 1)]
    )
    if decision.outcome == "undecided" and not recorded:
        not_run(f"{name}: {decision.describe()}; a larger --ollama-budget or a quieter "
                "machine decides it")
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


def against_range(
    check: Any,
    name: str,
    values: list[float],
    *,
    model: str,
    note: str,
    samples: str | None = None,
) -> None:
    """Compare the range of repeated runs, [slowest, fastest], with a stated figure.

    A stated "23.4 to 23.5 tok/s" agrees when it overlaps the runs' range, each
    figure with its printed precision (the figures are phi4-on-a-Spark ones,
    compared only for that case by ``check.against``'s model and profile).
    """
    if samples is not None:
        check.attach(samples, values, kind="json")
    if not values:
        not_run(f"{name}: no run reported the value")
    check.against(name, Interval(min(values), max(values)), model=model, note=note)
