"""MC's KV-cache formula against the KV cache llama.cpp actually allocates.

The formula (2 x layers x KV heads x head size x context x bytes per element)
is evaluated from the engine model's own GGUF metadata, read by the file probe,
and compared with the sizes llama.cpp reports when it creates a context, for
two context sizes. Models with sliding-window attention (Gemma 3: five of
every six layers attend over 512 tokens only) are sized two ways by llama.cpp:
with full-size window caches (``swa_full``, the C API's default) every layer
holds the whole context and the formula applies as written; with window-sized
caches (llama.cpp's command-line tools' default) those layers keep only the
window plus one micro-batch, and the formula must count them apart. Both are
measured, with both the naive and the window-aware figures in the evidence.
"""

from __future__ import annotations

import numpy as np
import pytest

from claims.testkit import equal

pytestmark = pytest.mark.engine

CONTEXTS = (2048, 8192)  # two sizes, both past Gemma 3's 512-token window


@pytest.mark.claim("MC-KV-FORMULA")
def test_kv_cache_allocation_matches_the_formula(check, engine_facts, engine_header):
    from claims.probes.live.engine import KVShape, element_bytes

    engine = engine_facts
    shape = KVShape.from_header(engine_header)
    check.observe("layers", shape.layers)
    check.observe("KV heads per layer", sorted(set(shape.kv_heads)))
    check.observe("key / value length", [shape.key_length, shape.value_length])
    check.observe("sliding window", shape.sliding_window, unit="tokens")
    check.observe(
        "window layers / global layers",
        [shape.window_layers, shape.global_layers],
        note=shape.swa_source,
    )
    charts: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    for n_ctx in CONTEXTS:
        for swa_full in (True, False):
            alloc = engine.kv_cache_allocation(n_ctx, swa_full=swa_full)
            check.attach(f"llama.cpp log, n_ctx {n_ctx}, swa_full {swa_full}", "\n".join(alloc.log))
            types = {p.k_type for p in alloc.parts} | {p.v_type for p in alloc.parts}
            if len(types) != 1:
                check.measure(
                    "KV element types",
                    sorted(types),
                    holds=False,
                    expected="one element type for K and V",
                )
                continue
            bpe = element_bytes(types.pop())
            if n_ctx == CONTEXTS[0] and swa_full and shape.key_length == shape.value_length:
                k_mib = sum(p.k_mib for p in alloc.parts)
                check.against(
                    "K and V factor",
                    round(alloc.total_mib / k_mib, 6),
                    note="(K + V) / K as llama.cpp allocates them",
                )
            naive = shape.naive_bytes(alloc.n_ctx, bpe)
            aware = shape.swa_aware_bytes(alloc.n_ctx, alloc.n_ubatch, bpe)
            where = (
                f"n_ctx {alloc.n_ctx}, {'full-size' if swa_full else 'window-sized'} window caches"
            )
            measured_mib = round(alloc.total_mib, 2)
            check.observe(
                f"allocated KV ({where})",
                measured_mib,
                unit="MiB",
                note=", ".join(
                    f"{p.cells} cells x {p.layers} layers = {p.size_mib:.2f} MiB"
                    for p in alloc.parts
                ),
            )
            check.observe(f"naive formula ({where})", round(naive / 2**20, 4), unit="MiB")
            if aware is not None and not swa_full:
                check.observe(
                    f"window-aware formula ({where})", round(aware / 2**20, 4), unit="MiB"
                )
            # With full-size caches (or no window at all) the formula as written must match.
            as_written = swa_full or shape.sliding_window is None
            expected = naive if as_written else aware
            label = "formula as written" if as_written else "window-aware formula"
            if expected is None:
                # Not knowing which layers slide is our gap, not the formula's fault.
                check.observe(
                    f"window-aware formula ({where})",
                    None,
                    note=f"not computed: {shape.swa_source}",
                )
                continue
            check.measure(
                f"allocated = {label} ({where})",
                measured_mib,
                unit="MiB",
                holds=alloc.agrees_with(expected),
                expected=f"{expected / 2**20:.4f} MiB (llama.cpp prints 2 decimals: ±0.005 MiB)",
            )
            charts[swa_full].append(
                {
                    "context": alloc.n_ctx,
                    "measured_bytes": alloc.total_mib * 2**20,
                    "formula_bytes": expected,
                }
            )
            if not swa_full and shape.swa_layers is not None:
                cells = sorted((p.cells, p.layers) for p in alloc.parts)
                wanted = sorted(
                    [(alloc.n_ctx, shape.global_layers)]
                    + (
                        [(shape.swa_cells(alloc.n_ctx, alloc.n_ubatch), shape.window_layers)]
                        if shape.window_layers
                        else []
                    )
                )
                check.measure(
                    f"(cells, layers) per cache ({where})",
                    cells,
                    holds=cells == wanted,
                    expected=str(wanted),
                )
                check.observe(
                    f"naive formula overstates ({where})",
                    round(naive / (alloc.total_mib * 2**20), 3),
                    unit="x",
                )
    full = charts[True]
    if len(full) == 2:
        growth = full[1]["measured_bytes"] / full[0]["measured_bytes"]
        context_growth = full[1]["context"] / full[0]["context"]
        check.observe("allocation growth with context (full-size caches)", round(growth, 4),
                      unit="x", note=f"contexts {full[0]['context']} -> {full[1]['context']}")
        check.against("cache growth over context growth", growth / context_growth,
                      note="linear in the context")
    window = charts[False]
    if len(window) == 2:
        check.observe(
            "allocation growth with context (window-sized caches)",
            round(window[1]["measured_bytes"] / window[0]["measured_bytes"], 4),
            unit="x",
            note="window layers stay at their window; only global layers grow",
        )
    check.chart("kv_growth", charts[True], title="KV cache, full-size window caches vs formula")
    check.chart(
        "kv_growth", charts[False], title="KV cache, window-sized caches vs window-aware formula"
    )


@pytest.mark.claim("MC-PREFILL-DECODE")
def test_prefill_is_batched_and_faster_than_one_token_decode(
    check, engine_facts, engine_prefill_runs
):
    from claims.testkit import record_decision as record
    from claims.timing import AtLeast
    from claims.timing.per_request import decide_per_request

    engine = engine_facts
    runs = list(engine_prefill_runs.items)
    # The run with the fastest prompt processing; rates below are each phase's best.
    run = max(runs, key=lambda g: g.perf.prompt_tokens_per_s or 0.0)
    perf = run.perf
    # llama.cpp books multi-token decode calls as prompt processing and
    # single-token calls as generation, so the counters show how each phase ran.
    equal(
        check,
        "prompt tokens processed in multi-token batches",
        perf.prompt_tokens,
        run.prompt_tokens,
        expected=f"all {run.prompt_tokens} (batch size {engine.n_batch})",
    )
    check.measure(
        "generated tokens decoded one at a time",
        perf.eval_tokens,
        holds=perf.eval_tokens in (run.completion_tokens - 1, run.completion_tokens),
        expected=f"{run.completion_tokens - 1}: each generated token but the last, fed back alone",
    )
    prefill = max((g.perf.prompt_tokens_per_s or 0.0) for g in runs) or None
    decode = max((g.perf.eval_tokens_per_s or 0.0) for g in runs) or None
    if prefill is None or decode is None:
        check.measure("rates", None, holds=False, expected="both phases timed by llama.cpp")
        return
    check.observe(
        "prefill rate (best of runs)",
        round(prefill, 2),
        unit="tokens/s",
        note="the answer's 'hundreds to thousands' names no model or hardware; not compared",
    )
    check.observe("decode rate (best of runs)", round(decode, 2), unit="tokens/s")
    # If each decoded token reads every weight once, this is the weight traffic it implies.
    check.observe(
        "weight bytes read per second at the decode rate",
        round(engine.tensor_bytes * decode / 1e9, 2),
        unit="GB/s",
        note=f"{engine.tensor_bytes:,} B of tensors x decode rate",
    )
    bar = check.premise("far slower bar")
    decision = decide_per_request(engine_prefill_runs, lambda g: g.perf.prefill_over_decode,
                                  AtLeast(bar), decode=lambda g: g.perf.eval_tokens_per_s)
    check.attach("generations", [g.to_json() for g in engine_prefill_runs.items], kind="json")
    record(check, "prefill over decode rate per token, per run", decision,
           expected=f"decode far slower per token: prefill more than {bar:g}x its rate, "
           "the median over runs")


@pytest.mark.claim("MC-REPEAT-PENALTY")
def test_repeat_penalty_rule_in_llama_cpps_sampler(check):
    import inspect

    import llama_cpp

    from claims.probes.live.engine import apply_penalties, penalty_window

    check.fact("engine", f"llama-cpp-python {llama_cpp.__version__}")
    penalty = check.premise("example penalty")  # Q14's 1.15
    # Token ids are list positions: 0 and 1 were seen (1 three times), 2 and 3 were not.
    logits = [2.0, -2.0, 3.0, -3.0]
    history = [0, 1, 1, 1]
    after = apply_penalties(logits, history, last_n=64, repeat=penalty)
    check.attach(
        f"logits before / after, history [0, 1, 1, 1], repeat_penalty {penalty:g}",
        {"before": logits, "after": after},
        kind="json",
    )
    # llama.cpp computes in float32: the rule's results, computed the same way, are exact.
    divided = float(np.float32(logits[0]) / np.float32(penalty))
    multiplied = float(np.float32(logits[1]) * np.float32(penalty))
    check.against(
        "positive logit divided",
        after[0] == divided,
        note=f"seen token, logit {logits[0]} -> {after[0]:.6g}; divided: {divided:.6g}",
    )
    check.against(
        "negative logit multiplied",
        after[1] == multiplied,
        note=f"seen token, logit {logits[1]} -> {after[1]:.6g}; multiplied once despite 3 "
        f"occurrences: {multiplied:.6g}",
    )
    check.measure(
        "unseen tokens", after[2:], holds=after[2:] == logits[2:], expected=str(logits[2:])
    )
    default_n = inspect.signature(llama_cpp.Llama.__init__).parameters["last_n_tokens_size"].default
    check.observe(
        "llama-cpp-python's default history (last_n_tokens_size)", default_n, unit="tokens"
    )
    window = penalty_window(int(default_n))
    check.against(
        "history window",
        window,
        unit="tokens",
        note="measured: a token stays penalized for this many most recent tokens",
    )


@pytest.mark.claim("MC-REPEAT-PENALTY-OFF")
def test_repeat_penalty_values_in_llama_cpps_sampler(check):
    from claims.probes.live.engine import apply_penalties

    # Token ids are list positions: 0 and 1 were seen, 2 was not (a control).
    logits = [2.0, -2.0, 3.0]
    history = [0, 1]
    off, raised = check.premise("penalty off"), check.premise("mitigation penalty")
    at_off = apply_penalties(logits, history, last_n=64, repeat=off)
    check.measure(f"logits {logits}, history {history}, repeat_penalty {off:g}", at_off,
                  holds=at_off == logits, expected="unchanged (the penalty off)")
    at_raised = apply_penalties(logits, history, last_n=64, repeat=raised)
    check.measure(f"seen tokens' logits at repeat_penalty {raised:g}", at_raised[:2],
                  holds=all(a < b for a, b in zip(at_raised[:2], logits[:2], strict=True)),
                  expected=f"each lower than {logits[:2]}")
    check.measure("the unseen token's logit", at_raised[2], holds=at_raised[2] == logits[2],
                  expected=f"{logits[2]:g} (untouched)")
