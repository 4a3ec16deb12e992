"""W1's decode claim measured on a live Ollama server (the ollama tier).

"Decode is limited by memory bandwidth rather than compute" shows in one
request: prefill pushes many prompt tokens through the same weights at once,
so if the arithmetic were the limit, prefill and decode would cost about the
same per token. A decode rate far below the prefill rate on the same model
means each generated token waits for the weights to be read, not for math.
The weight bytes read per second during decode are reported beside it.
"""

from __future__ import annotations

import pytest

from claims.testkit import not_run

pytestmark = pytest.mark.ollama

# If decode were compute-bound it would run near the prefill rate (the same arithmetic
# per token); the catalog's "prefill over decode, per token" (5x) leaves at least four fifths
# of every decode step to something other than arithmetic, the weight reads. One
# request's ratio is scheduling noise on a shared CPU: the run's shared per-request
# sample (claims.timing.pools, read by MC-PREFILL-DECODE and W2-PREFILL-FASTER too)
# gives one ratio per request, and claims.timing.policy.PAIRED decides their median.


@pytest.mark.claim("W1-DECODE-BANDWIDTH")
def test_decode_is_bandwidth_bound(live, check, ollama_pools):

    from claims.testkit import record_decision as record
    from claims.timing import AtLeast
    from claims.timing.per_request import decide_per_request
    from claims.timing.procedures import prefill_over_decode

    model = live.model()
    pool = ollama_pools.for_quantity("prefill over decode rate")
    bar = check.premise("prefill over decode, per token")
    decision = decide_per_request(pool, prefill_over_decode, AtLeast(bar))
    d = live.first_request(pool).timing.server
    if d.prefill_tokens_per_s is None or d.decode_tokens_per_s is None:
        not_run("the reply lacks prompt_eval or eval timings")
    check.observe(
        "prefill",
        [round(t.timing.server.prefill_tokens_per_s or 0, 1) for t in pool.items],
        unit="tok/s",
        note=f"{d.prompt_eval_count} prompt tokens",
    )
    decode = [t.timing.server.decode_tokens_per_s or 0 for t in pool.items]
    check.observe("decode", [round(x, 2) for x in decode], unit="tok/s")
    best = max(decode)
    if model.size:
        check.observe(
            "weight bytes read per second in decode",
            round(model.size * best / 1e9, 1),
            unit="GB/s",
            note=f"model size {model.size:,} B x the fastest decode tokens/s (every weight "
            "read once per token)",
        )
    params = model.model_info.get("general.parameter_count")
    if isinstance(params, int):
        check.observe(
            "decode arithmetic",
            round(2 * params * best / 1e12, 3),
            unit="TFLOP/s",
            note="2 FLOP per parameter per token, at the fastest decode",
        )
    record(
        check,
        "prefill over decode, per token",
        decision,
        expected=f"at least {bar:g}x, the median over requests: the same weights serve many "
        "prompt tokens at once but only one generated token",
    )
