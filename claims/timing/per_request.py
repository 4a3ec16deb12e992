"""Claims on the run's shared per-request sample, decided one way.

Several timing claims read the same sample of single streamed requests
(:mod:`claims.timing.pools`, "requests"): prefill over decode rate, the server's
decode rate over the client's. Each gives one ratio per request and is decided
alike, here, so that none of them restates the plan, the unit or the busy-machine
guard.
"""

from __future__ import annotations

from collections.abc import Callable

from claims.timing.policy import MAX_CONTENTION, PAIRED
from claims.timing.procedures import SamplePool, Timed, decide_pool, decode_rate
from claims.timing.rules import Decision, Form

__all__ = ["decide_per_request"]


def _decode_rates(item: Timed) -> tuple[float | None, None]:
    """A request's decode rate (tokens/s, server clock): how busy the machine was."""
    return decode_rate(item), None


def decide_per_request(
    pool: SamplePool[Timed], value: Callable[[Timed], float | None], form: Form
) -> Decision:
    """One ratio per request of the shared sample (``value``, unit "x"), decided by
    :data:`~claims.timing.policy.PAIRED`; a refutation also needs the requests' decode
    rates to vary at most :data:`~claims.timing.policy.MAX_CONTENTION`-fold between
    their quartiles (a busy machine costs the verdict, never flips it)."""
    return decide_pool(pool, value, form, PAIRED, unit="x", rates=_decode_rates,
                       max_contention=MAX_CONTENTION)
