"""The timing policy of the suite: which plan and which form decide each kind of timing claim.

One place for the sample sizes and the structural bars; the documents' own bars
(5x, 10x, "within 5 %") are catalog figures, read through the check: what each
judges (its ``quantity``) and how it is measured (``procedure``) are the catalog's
too, and whether a bar applies to this model and machine is the check's scope
rule (:meth:`claims.check.Check.applies`), never decided here.

* **Alternated requests of one kind** (decode rate at two contexts): log-ratios
  of adjacent requests, Wilcoxon's signed-rank interval (symmetric by the
  alternation), a pilot of 12 pairs that plans the rest: looks at 20 and 28 pairs,
  read only up to the size the pilot's scatter asks for.
* **Paired values of two kinds** (a cold and a warm request, prefill and
  decode of one request, the server's clock and the client's): the sign test's
  interval of the ratios (no shape assumed: a busy machine's noise is skewed),
  looks at 9 and 15 values.
* **A recorded table** (the document's printed runs): every value, no sampling.

Every plan spends at most :data:`claims.timing.rules.ALPHA` (1 %) on a false
refutation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from claims.timing.rules import AtLeast, AtMost, Form, Plan, Within

if TYPE_CHECKING:
    # A type only: the plugin's options read this module's budget in every pytest run
    # (tests/plugin/test_inert.py), and claims.catalog would load the catalog's loader.
    from claims.catalog.records import StatedFigure

__all__ = [
    "ALTERNATED",
    "COLD_ABOVE_WARM",
    "DEFAULT_BUDGET_S",
    "MAX_CONTENTION",
    "PAIRED",
    "PLAN_SLACK",
    "RECORDED",
    "change_band",
    "clock_band",
    "cross_ratios",
    "figure_form",
    "scoped_bar",
]

# Alternated requests of the same kind: Wilcoxon's signed-rank interval (the alternation
# makes the log-ratios symmetric about their centre, preempted pairs included: either
# request of a pair is as likely to be the one slowed), a planned sample: a pilot of 12
# pairs, then looks at 20 and 28, the 1 % split over all three whether read or not. Three
# quiet runs per real release decided two at 12 (24 tokens a request); an undecided
# pilot's interval plans how many pairs the band needs (claims.timing.planning), at most
# 28, so the claim's time is known after the pilot (the pool is held to it). Before the
# plan, looks at 12, 24 and 36 pairs of 24-token requests took 109 s on a quiet 2-core
# machine (Ollama 0.32.15) and still straddled the band; 64-token requests scatter less
# per pair (claims.timing.pools.CONTEXT_TOKENS). A busy machine's outliers only widen the
# interval (and MAX_CONTENTION bars a refutation there).
ALTERNATED = Plan(looks=(12, 20, 28), kind="signed-rank", log=True, futility=0.5,
                  pilot=True)
# Paired values of two kinds: 9 is the smallest sample whose sign-test interval
# (its whole range) reaches the first look's share, 15 the cap.
PAIRED = Plan(looks=(9, 15), kind="sign", futility=0.5)
# Both stop for futility (claims.timing.rules.futile) at half the narrowing that
# sqrt(n / cap) predicts: generous, because the first look's sign interval is the
# sample's whole range, whose outliers the next look drops. Beside two busy loops on two
# cores (Ollama 0.31.2, gemma3:270m) the contexts' 4096-over-2048 interval after 17 pairs
# was [0.142, 8.96] against a +-5 % band and spent 404 s of the 600 s budget for nothing,
# which left the cold/warm pairs 62 s: a futile sample now stops at its look and leaves
# the seconds to the others. Quiet runs' intervals ([0.959, 1.03] at 24) are far from it.
# The seconds a live tier may spend on its timing samples, shared by all of them
# (claims.timing.budget; --ollama-budget). On a quiet 2-core machine every sample of
# the ollama tier reaches its first look in about 90 s with gemma3:270m; the default
# leaves room for a machine several times slower, or busier, and for the caps.
DEFAULT_BUDGET_S = 600.0
# An alternated equivalence claim is refuted only on a machine whose rates for one
# condition stay within 1.5x between their quartiles (claims.timing.procedures.
# decide_alternation): under heavier contention other work interacts with what the
# conditions change, which is not the runtime's behaviour the claim is about.
MAX_CONTENTION = 1.5
# A planned sample (Plan.pilot) is held to its planned seconds times this: the pilot's
# seconds per item predict the rest, and a machine that slows down by half again stops
# the sample (undecided) instead of running it on to the cap.
PLAN_SLACK = 1.5
# A document's printed table is the population it describes: judged on every value.
RECORDED = Plan(looks=(1,), kind="every value")

# The general form of a cold/warm claim on any model and machine: a cold request
# waits longer than a warm one (cold over warm above 1).
COLD_ABOVE_WARM = AtLeast(1.0, strict=True)


def change_band(percent: float) -> Within:
    """'Does not change' as an equivalence band: a ratio within ±percent of 1."""
    if not 0 < percent < 100:
        raise ValueError(f"a change band must be between 0 and 100 %, got {percent}")
    return Within(1 - percent / 100, 1 + percent / 100)


def figure_form(fig: StatedFigure) -> Form:
    """The timing form a catalog figure states, from its ``form``: at least or at most a
    bound, within a range; a percentage at most is a change band about 1 ("did not
    change decode speed": within ±5 %)."""
    if fig.form == "at-least":
        return AtLeast(fig.bound)
    if fig.form == "at-most":
        return change_band(fig.bound) if fig.unit == "%" else AtMost(fig.bound)
    if fig.form == "range":
        band = fig.expected()
        return Within(band.lo, band.hi)
    raise ValueError(f"figure {fig.name!r} ({fig.form}) is not a timing form")


def clock_band(check: Any, figure: str = "clock agreement") -> Within:
    """The catalog's band for two clocks timing the same tokens (a range figure)."""
    band = check.premise_interval(figure)
    return Within(band.lo, band.hi)


def cross_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Every numerator over every denominator (a recorded table's cold rows over its warm rows).

    Its smallest value is the fastest cold run over the slowest warm one.
    """
    return [float(n) / float(d) for n in numerators for d in denominators if d > 0]


def scoped_bar(
    check: Any, bar_figure: str, *, model: str | None, general: Form, general_text: str
) -> tuple[Form, str]:
    """The form a ratio is held to, and its expected text.

    The catalog's bar (an at-least figure) where the check's scope rule says it
    applies to ``model`` on this run's profile; otherwise ``general``, with the bar
    shown as not judged and why. Which models and machines a bar is stated for is
    the figure's (``model``, ``profile``), never this function's.
    """
    if check.applies(bar_figure, model=model):
        bar = check.premise(bar_figure)
        return AtLeast(bar), f"at least {bar:g}x, the median over pairs (the document's bar)"
    check.not_judged(
        bar_figure,
        f"the document's bar is stated for another model or machine than {model} on the "
        f"{check.profile} profile; judged by the general form: {general_text}",
    )
    return general, f"{general.describe()}, the median over pairs: {general_text}"
