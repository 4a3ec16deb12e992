"""A tier's seconds for timing samples, shared out so that each sample can reach a decision.

A timing claim is decided at its plan's looks (:class:`claims.timing.rules.Plan`):
its first look needs a number of values (9 paired, 12 alternated), and a value
costs what one item of its pool costs on this machine, measured in the run. The
tier has one budget (``--ollama-budget``); every pool draws on it:

* before each item a pool predicts its cost (the mean of its items so far) and
  takes it only if the budget it may use still covers it: no item is taken that
  the budget could be seen not to cover;
* a pool short of its first look must be able to reach that look: when the items
  it still needs, at its measured cost, exceed what it may use, it stops at once
  and says so, before spending the rest;
* what a pool may use is what is left less what the other registered pools still
  need for their own first looks (at their measured cost, or, before they have
  measured any item, at the tier's mean cost per request times their requests per
  item): one pool growing towards its cap never starves another's first look.

The first item of a pool cannot be predicted; it is taken while anything is left.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Budget", "Spend"]


@dataclass
class Spend:
    """One pool's account with the budget: what it needs for its first look, what it spent."""

    name: str
    first_look: int
    requests_per_item: float = 1.0
    item_s: list[float] = field(default_factory=list)
    # Seconds spent on attempts that gave no item (the server stopped giving them).
    wasted_s: float = 0.0
    stopped: str | None = None

    @property
    def items(self) -> int:
        return len(self.item_s)

    @property
    def spent_s(self) -> float:
        return sum(self.item_s) + self.wasted_s

    def cost_s(self) -> float | None:
        """Seconds one more item is expected to take: the median of this pool's items after
        its first (the first may carry a model load the others do not), or the first's."""
        if not self.item_s:
            return None
        rest = sorted(self.item_s[1:]) or self.item_s
        mid = len(rest) // 2
        return rest[mid] if len(rest) % 2 else (rest[mid - 1] + rest[mid]) / 2

    def to_json(self) -> dict[str, object]:
        cost = self.cost_s()
        return {
            "pool": self.name,
            "items": self.items,
            "first_look": self.first_look,
            "spent_s": round(self.spent_s, 1),
            "seconds_per_item": None if cost is None else round(cost, 2),
            "stopped": self.stopped,
        }


class Budget:
    """The seconds a tier may spend on timing samples (None: unbounded), shared by its pools."""

    def __init__(self, total_s: float | None, *, clock: Callable[[], float] = time.monotonic):
        if total_s is not None and total_s <= 0:
            raise ValueError(f"a timing budget must be positive, got {total_s}")
        self.total_s = total_s
        self.clock = clock
        self.accounts: list[Spend] = []

    def register(self, name: str, first_look: int, requests_per_item: float = 1.0) -> Spend:
        """An account for one pool; registered pools reserve their first look's cost."""
        account = Spend(name, first_look, requests_per_item)
        self.accounts.append(account)
        return account

    @property
    def spent_s(self) -> float:
        return sum(a.spent_s for a in self.accounts)

    def request_cost_s(self) -> float | None:
        """The tier's mean seconds per request so far (over every pool's items)."""
        requests = sum(a.items * a.requests_per_item for a in self.accounts)
        return self.spent_s / requests if requests else None

    def _first_look_need_s(self, account: Spend) -> float:
        """What ``account`` still needs for its first look: nothing once it is there, has
        stopped, or has measured a price at which all that is left would not get it there
        (it will be refused, and say so, when it next asks: keeping seconds for it would
        only starve the others)."""
        missing = max(0, account.first_look - account.items)
        if missing == 0 or account.stopped is not None:
            return 0.0
        cost = account.cost_s()
        if cost is not None and self.total_s is not None and (
            missing * cost > self.total_s - self.spent_s
        ):
            return 0.0
        if cost is None:
            per_request = self.request_cost_s()
            cost = 0.0 if per_request is None else per_request * account.requests_per_item
        return missing * cost

    def available_s(self, account: Spend) -> float | None:
        """Seconds ``account`` may still spend: what is left less what the others still need
        for their first looks, each other's reservation at most an equal share of what is
        left (so no estimate, however large, shuts a pool out)."""
        if self.total_s is None:
            return None
        left = self.total_s - self.spent_s
        waiting = [a for a in self.accounts if self._first_look_need_s(a) > 0 or (
            a.items == 0 and a.stopped is None)]
        share = left / max(len(waiting), 1)
        reserved = sum(min(self._first_look_need_s(a), share)
                       for a in self.accounts if a is not account)
        return left - reserved

    def refusal(self, account: Spend) -> str | None:
        """Why ``account`` must not take another item now (None: it may)."""
        available = self.available_s(account)
        if available is None:
            return None
        cost = account.cost_s()
        if cost is None:
            if available <= 0:
                return (
                    f"the tier's timing budget ({self.total_s:g} s) was spent by other "
                    "samples before this one began"
                )
            return None
        missing = account.first_look - account.items
        # One item may carry a model load: the first look is judged out of reach from a
        # second item on, or from the first when all that is left would not reach it.
        left = self.total_s - self.spent_s if self.total_s is not None else available
        if missing > 0 and missing * cost > available and (
            account.items >= 2 or missing * cost > left
        ):
            return (
                f"the budget cannot reach the first look: {missing} more values at "
                f"{cost:.1f} s each need {missing * cost:.0f} s, and {max(available, 0):.0f} s "
                f"of the tier's {self.total_s:g} s are left for this sample"
            )
        if cost > available:
            return (
                f"the next value (about {cost:.1f} s) would overrun the budget: "
                f"{max(available, 0):.0f} s of the tier's {self.total_s:g} s are left for it"
            )
        return None

    def to_json(self) -> dict[str, object]:
        return {
            "total_s": self.total_s,
            "spent_s": round(self.spent_s, 1),
            "pools": [a.to_json() for a in self.accounts],
        }
