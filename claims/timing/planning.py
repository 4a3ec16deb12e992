"""Sample sizes planned from a pilot: how many values a timing claim's interval needs.

A sequential plan (:class:`claims.timing.rules.Plan`) reads its interval at a fixed
ladder of sizes, the last one its cap. With ``pilot`` set, the first look (the pilot)
also plans the rest: from the pilot's interval, whose width is the noise of its
values measured at the error rate each look is allowed, :func:`plan_size` predicts
how many values the interval needs to clear the bar nearest its centre, and the
sample stops at the first look of the ladder at or past that number (the cap if the
prediction is beyond it). The maximum is therefore known before any value past the
pilot is drawn, and the caller turns it into seconds
(:func:`claims.timing.procedures.decide_pool`, from the seconds an item of the pilot
took).

Only the sample size depends on the prediction, never the verdict: every look is
still read with the distribution-free interval, at a size fixed in advance on the
ladder, and the error rate is split across every look of the ladder whether it is
read or not, so choosing which looks to read (stopping early, stopping at the plan)
cannot raise the chance of refuting a true claim above the plan's alpha.

The prediction: an interval for the centre of n values narrows as ``1 / sqrt(n)``,
so ``n`` values give about ``h * sqrt(pilot / n)`` on each side where the pilot's
gave ``h``, and clear a bar at distance ``m`` from the centre from
``n = pilot * (h / m) ** 2`` on. A pilot's exact interval of a dozen values is wider
than that law's limit (it is the small-sample interval), so the prediction errs
towards more values; it is read from the interval rather than from a scatter
statistic because the interval uses every value (a median absolute deviation of 12
values is off by a third either way: simulated at 6 % scatter, it planned too few
values in three pilots of eight).
The scatter the interval implies (the standard deviation of normal values that
would give it) is reported beside it, in the interval's scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

__all__ = ["VARIANCE_FACTOR", "SizePlan", "plan_size"]

# The asymptotic variance of each interval's centre relative to the sample mean's, for
# normal values (the inverse of its efficiency): Hodges-Lehmann pi / 3, the median pi / 2.
# Used only to report the scatter an interval implies.
VARIANCE_FACTOR: dict[str, float] = {"signed-rank": math.pi / 3, "sign": math.pi / 2}


@dataclass(frozen=True)
class SizePlan:
    """The sample size a pilot planned, every length on the interval's scale (``scale``:
    "log" for ratios, whose interval is taken of their logarithms, else "linear").

    ``pilot``: values the plan was made from; ``centre``: their interval's centre;
    ``half_width``: half its width; ``scatter``: the standard deviation of one value
    that such an interval implies for normal values (reported, not used); ``margin``:
    the distance from the centre to the nearest bar; ``required``: the values the
    interval is predicted to need to clear it (None: no number would, the centre is on
    a bar); ``planned``: the look the sample stops at (the first of the ladder past
    the pilot and at or past ``required``, the cap beyond it); ``cap``: the ladder's
    last look.
    """

    pilot: int
    centre: float
    half_width: float
    scatter: float
    margin: float
    required: int | None
    planned: int
    cap: int
    scale: Literal["log", "linear"] = "linear"

    @property
    def at_bound(self) -> bool:
        """Whether the noise asks for more values than the cap allows."""
        return self.required is None or self.required > self.cap

    def describe(self) -> str:
        """One phrase: the plan and why (for a note or a not-run reason)."""
        of = " of the log-ratios" if self.scale == "log" else ""
        need = ("no number of values would (the centre is on the bar)"
                if self.required is None else f"about {self.required} values would")
        bound = " (the bound)" if self.at_bound else ""
        return (
            f"planned {self.planned} values{bound} from a pilot of {self.pilot}: its "
            f"interval's half-width {self.half_width:.3g}{of} (a scatter of "
            f"{self.scatter:.3g} a value) against {self.margin:.3g} from its centre to the "
            f"nearest bar, which {need} clear"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "pilot": self.pilot,
            "scale": self.scale,
            "centre": self.centre,
            "half_width": self.half_width,
            "scatter": self.scatter,
            "margin": self.margin,
            "required": self.required,
            "planned": self.planned,
            "cap": self.cap,
            "at_bound": self.at_bound,
        }


def plan_size(
    pilot: int,
    *,
    centre: float,
    lo: float,
    hi: float,
    bars: Sequence[float],
    looks: Sequence[int],
    miss_each_side: float,
    kind: str,
    scale: Literal["log", "linear"] = "linear",
) -> SizePlan:
    """The planned sample size for the rest of a sequential sample, from its pilot.

    ``pilot``: how many values the pilot read; ``centre``, ``lo``, ``hi``: its
    interval, and ``bars``: the form's bars, all on the interval's scale; ``looks``:
    the plan's ladder; ``miss_each_side``: each look's share of the error rate, per
    side (for the implied scatter); ``kind``: "signed-rank" or "sign".
    """
    if not looks or not bars:
        raise ValueError("a size plan needs the ladder of looks and at least one bar")
    factor = VARIANCE_FACTOR.get(kind)
    if factor is None:
        raise ValueError(f"no size plan for {kind!r} intervals")
    if not lo <= centre <= hi or pilot < 1:
        raise ValueError(f"not a pilot's interval: {pilot} values, [{lo}, {hi}] about {centre}")
    half = (hi - lo) / 2
    z = NormalDist().inv_cdf(1 - miss_each_side)
    scatter = half * math.sqrt(pilot / factor) / z
    margin = min(abs(centre - b) for b in bars)
    required = None if margin <= 0 else max(1, math.ceil(pilot * (half / margin) ** 2))
    cap = looks[-1]
    # The pilot was read and left the claim undecided: the plan reads at least one more
    # look, however few values the prediction asks for.
    after = [n for n in looks if n > pilot] or [cap]
    planned = cap if required is None else next((n for n in after if n >= required), cap)
    return SizePlan(pilot=pilot, centre=centre, half_width=half, scatter=scatter,
                    margin=margin, required=required, planned=planned, cap=cap, scale=scale)
