"""The timing policy of the suite: which plan and which form decide each kind of timing claim.

One place for the sample sizes and the structural bars; the documents' own bars
(5x, 10x, "within 5 %") are catalog figures, read by the tests through
``check.premise()`` and passed in here.

* **Alternated requests of one kind** (decode rate at two contexts): log-ratios
  of adjacent requests, Wilcoxon's signed-rank interval (symmetric by the
  alternation), looks at 12, 24 and 36 pairs.
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
from typing import Any

from claims.probes.files.ollama_store.names import model_matches
from claims.profiles import DGX_SPARK
from claims.timing.rules import AtLeast, Plan, Within

__all__ = [
    "ALTERNATED",
    "ALTERNATED_BUDGET_S",
    "CLOCK_AGREEMENT",
    "COLD_ABOVE_WARM",
    "MAX_CONTENTION",
    "PAIRED",
    "PAIRED_BUDGET_S",
    "RECORDED",
    "change_band",
    "cold_over_warm_form",
    "cross_ratios",
]

# Alternated requests of the same kind: Wilcoxon's signed-rank interval (the alternation
# makes the log-ratios symmetric about their centre, preempted pairs included: either
# request of a pair is as likely to be the one slowed) at 12 pairs, 24, then 36. Three
# quiet runs per real release decided two at 12; the third read centres of 0.986 and
# 1.03 whose 20-pair sign interval ([0.931, 1.02]) could not fit a ±5 % band: at about
# 4 % scatter per pair, 36 pairs give the ±2 % the band needs. A busy machine's
# outliers only widen the interval (and MAX_CONTENTION bars a refutation there).
ALTERNATED = Plan(looks=(12, 24, 36), kind="signed-rank", log=True)
# Paired values of two kinds: 9 is the smallest sample whose sign-test interval
# (its whole range) reaches the first look's share, 15 the cap.
PAIRED = Plan(looks=(9, 15), kind="sign")
# Seconds each benchmark may spend growing its sample: on a quiet 2-core machine the
# alternated benchmark's first look takes about 40 s (each pair reloads the model once
# for its other num_ctx), its cap about 120 s, and the cold pairs' first look about 25 s;
# a machine too busy to reach a decision within these gets "not run", in bounded time.
ALTERNATED_BUDGET_S = 160.0
PAIRED_BUDGET_S = 45.0
# An alternated equivalence claim is refuted only on a machine whose rates for one
# condition stay within 1.5x between their quartiles (claims.timing.procedures.
# decide_alternation): under heavier contention other work interacts with what the
# conditions change, which is not the runtime's behaviour the claim is about.
MAX_CONTENTION = 1.5
# A document's printed table is the population it describes: judged on every value.
RECORDED = Plan(looks=(1,), kind="every value")

# The general form of a cold/warm claim on any model and machine: a cold request
# waits longer than a warm one (cold over warm above 1).
COLD_ABOVE_WARM = AtLeast(1.0, strict=True)
# Two clocks timing the same tokens agree within a quarter either way on a log
# scale; a wrong unit is off by a factor of 1,000.
CLOCK_AGREEMENT = Within(0.8, 1.25)


def change_band(percent: float) -> Within:
    """'Does not change' as an equivalence band: a ratio within ±percent of 1."""
    if not 0 < percent < 100:
        raise ValueError(f"a change band must be between 0 and 100 %, got {percent}")
    return Within(1 - percent / 100, 1 + percent / 100)


def cross_ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Every numerator over every denominator (a recorded table's cold rows over its warm rows).

    Its smallest value is the fastest cold run over the slowest warm one.
    """
    return [float(n) / float(d) for n in numerators for d in denominators if d > 0]


def cold_over_warm_form(
    check: Any, model: str, bar_figure: str, *, what: str
) -> tuple[AtLeast, str]:
    """The form a cold-over-warm ratio is held to, and its expected text.

    The post's bar (catalog figure ``bar_figure``, for phi4 on a Spark) only for that
    case; any other model or machine is held to the general form, cold above warm
    (:data:`COLD_ABOVE_WARM`), and the bar is shown as not judged, with why.
    """
    if model_matches("phi4", model) and check.profile == DGX_SPARK.name:
        bar = check.premise(bar_figure)
        return AtLeast(bar), f"at least {bar:g}x, the median over pairs (the post's bar for " \
            "phi4 on a Spark)"
    check.not_judged(
        bar_figure,
        f"the post's bar is for phi4 on the Spark; {model} on the {check.profile} profile is "
        "judged by the general form, cold over warm above 1",
    )
    return COLD_ABOVE_WARM, f"above 1, the median over pairs: {what}"
