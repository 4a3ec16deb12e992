"""W1's decode claim measured on a live Ollama server (the ollama tier).

"Decode is limited by memory bandwidth rather than compute" shows in one
request: prefill pushes many prompt tokens through the same weights at once,
so if the arithmetic were the limit, prefill and decode would cost about the
same per token. A decode rate far below the prefill rate on the same model
means each generated token waits for the weights to be read, not for math.
The weight bytes read per second during decode are reported beside it.
"""

from __future__ import annotations

import uuid

import pytest

from claims.probes.live.ollama_api.usage import bounded
from claims.testkit import not_run

pytestmark = pytest.mark.ollama

# The reading of "limited by memory bandwidth" (prefill at least 5x the decode rate per
# token) is a catalog figure of W1-DECODE-BANDWIDTH, read with check.premise.


@pytest.mark.claim("W1-DECODE-BANDWIDTH")
def test_decode_is_bandwidth_bound(live, check):
    from claims.probes.live.timing import ServerDurations

    model = live.model()
    # A fresh nonce keeps the prompt out of Ollama's prompt cache.
    prompt = (
        f"Reference {uuid.uuid4().hex}. "
        + " ".join(
            f"Line {i}: a matrix multiply reads each weight once per batch of tokens."
            for i in range(20)
        )
        + "\nSummarise in one sentence."
    )
    reply = live.generate(
        "long prompt, short answer",
        {"model": model.name, "prompt": prompt, "options": bounded(16)},
    )
    d = ServerDurations.from_final(reply)
    if d.prefill_tokens_per_s is None or d.decode_tokens_per_s is None:
        not_run("the reply lacks prompt_eval or eval timings")
    ratio = d.prefill_tokens_per_s / d.decode_tokens_per_s
    check.observe(
        "prefill",
        round(d.prefill_tokens_per_s, 1),
        unit="tok/s",
        note=f"{d.prompt_eval_count} prompt tokens",
    )
    check.observe("decode", round(d.decode_tokens_per_s, 2), unit="tok/s")
    if model.size:
        check.observe(
            "weight bytes read per second in decode",
            round(model.size * d.decode_tokens_per_s / 1e9, 1),
            unit="GB/s",
            note=f"model size {model.size:,} B x decode tokens/s (every weight read "
            "once per token)",
        )
    params = model.model_info.get("general.parameter_count")
    if isinstance(params, int):
        check.observe(
            "decode arithmetic",
            round(2 * params * d.decode_tokens_per_s / 1e12, 3),
            unit="TFLOP/s",
            note="2 FLOP per parameter per token",
        )
    floor = check.premise("prefill over decode, per token")
    check.measure(
        "prefill over decode, per token",
        round(ratio, 1),
        holds=ratio >= floor,
        unit="x",
        expected=f"at least {floor:g}x: the same weights serve many "
        "prompt tokens at once but only one generated token",
    )
