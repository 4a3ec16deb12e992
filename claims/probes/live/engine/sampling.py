"""llama.cpp's repeat-penalty sampler, measured on hand-made logits (no model needed).

* :func:`apply_penalties` - logits after llama.cpp's penalties sampler has
  seen a token history (token id = list index).
* :func:`penalty_window` - how many of the most recent tokens that sampler
  remembers (tokens), found by experiment rather than read from a default.
"""

from __future__ import annotations

import ctypes

from claims.probes.errors import ProbeError
from claims.probes.live.engine.runtime import llama_cpp_module

__all__ = ["apply_penalties", "penalty_window"]


def apply_penalties(
    logits: list[float],
    history: list[int],
    *,
    last_n: int,
    repeat: float,
    frequency: float = 0.0,
    presence: float = 0.0,
) -> list[float]:
    """Logits after llama.cpp's own penalties sampler has seen ``history``.

    Runs ``llama_sampler_init_penalties`` on hand-made logits (token id =
    index), so no model is needed: what is measured is the sampler's rule,
    exactly as generation applies it.
    """
    lib = llama_cpp_module()
    n = len(logits)
    sampler = lib.llama_sampler_init_penalties(n, last_n, repeat, frequency, presence)
    if not sampler:
        raise ProbeError("llama.cpp refused the penalty sampler parameters")
    try:
        for token in history:
            lib.llama_sampler_accept(sampler, token)
        data = (lib.llama_token_data * n)(
            *(lib.llama_token_data(i, float(v), 0.0) for i, v in enumerate(logits))
        )
        cur = lib.llama_token_data_array(data, n, -1, False)
        lib.llama_sampler_apply(sampler, ctypes.byref(cur))
        # Samplers may reorder the array; read back by token id.
        out = [0.0] * n
        for i in range(int(cur.size)):
            item = cur.data[i]
            out[int(item.id)] = float(item.logit)
        return out
    finally:
        lib.llama_sampler_free(sampler)


def penalty_window(last_n: int, *, repeat: float = 2.0, probe_up_to: int = 512) -> int:
    """How many of the most recent tokens the penalties sampler remembers, by experiment.

    Token 0 is seen once, then ``k`` other tokens; the window is the largest
    ``k + 1`` for which token 0 is still penalized (0 when it never is).
    """
    fillers = list(range(1, probe_up_to + 1))
    logits = [1.0] * (probe_up_to + 1)

    def penalized(k: int) -> bool:
        return apply_penalties(logits, [0, *fillers[:k]], last_n=last_n, repeat=repeat)[0] != 1.0

    if not penalized(0):
        return 0
    lo, hi = 0, probe_up_to  # penalized(lo) holds; find the last k that is penalized
    if penalized(hi):
        return hi + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if penalized(mid):
            lo = mid
        else:
            hi = mid
    return lo + 1
