"""Claims on the run's shared per-request sample, decided one way.

Several timing claims read the same sample of single streamed requests
(:mod:`claims.timing.pools`, "requests"; the engine tier's generations likewise):
prefill over decode rate, the server's decode rate over the client's. Each gives
one ratio per request and is decided alike, here, so that none of them restates
the plan, the unit or the busy-machine guard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from claims.timing.policy import MAX_CONTENTION, PAIRED
from claims.timing.procedures import SamplePool, decide_pool, decode_rate
from claims.timing.rules import Decision, Form

__all__ = ["decide_per_request"]

S = TypeVar("S")


def decide_per_request(
    pool: SamplePool[S],
    value: Callable[[S], float | None],
    form: Form,
    *,
    decode: Callable[[Any], float | None] = decode_rate,
) -> Decision:
    """One ratio per request of the shared sample (``value``, unit "x"), decided by
    :data:`~claims.timing.policy.PAIRED`; a refutation also needs the requests' decode
    rates (``decode``, tokens/s: by default the Ollama server's clock) to vary at most
    :data:`~claims.timing.policy.MAX_CONTENTION`-fold between their quartiles (a busy
    machine costs the verdict, never flips it)."""
    return decide_pool(pool, value, form, PAIRED, unit="x",
                       rates=lambda item: (decode(item), None),
                       max_contention=MAX_CONTENTION)
