"""MC memory arithmetic: the KV-cache formula and table, parallel slots, 16-bit 70B weights.

The masterclass prints MB and GB; they are compared as printed (decimal, the
units' SI meaning) and the binary readings (MiB, GiB) are kept beside them in
the evidence, because the KV table is right in one unit for some rows and in
neither for others (see the catalog's erratum).
"""

from __future__ import annotations

import numpy as np
import pytest

from claims.probes.arithmetic.memory import (
    GB,
    GIB,
    kv_cache_bytes,
    quant_block,
    serving_memory_bytes,
    weight_bytes_exact,
)
from claims.testkit import Check, convert

pytestmark = pytest.mark.offline

MIB = 1024**2
# The units the document prints its KV table in, as it names them (decimal).
UNIT_BYTES = {"MB": 10**6, "GB": GB}


def llama3_8b(check: Check) -> dict[str, int]:
    """Llama 3 8B's shape as section 2.4 states it (MC-KV-TABLE's premises, from the catalog)."""
    return {
        "layers": int(check.premise("layers", claim="MC-KV-TABLE")),
        "kv_heads": int(check.premise("KV heads", claim="MC-KV-TABLE")),
        "head_dim": int(check.premise("head dim", claim="MC-KV-TABLE")),
    }


def _explicit_cache_bytes(layers: int, kv_heads: int, head_dim: int, ctx: int, dtype: type) -> int:
    """Bytes of a cache laid out as decoders keep it: one K and one V tensor per layer."""
    total = 0
    for _ in range(layers):
        k = np.zeros((kv_heads, ctx, head_dim), dtype=dtype)
        v = np.zeros((kv_heads, ctx, head_dim), dtype=dtype)
        total += k.nbytes + v.nbytes
    return total


@pytest.mark.claim("MC-KV-FORMULA")
def test_formula_counts_a_k_and_a_v_tensor_per_layer(check):
    shapes = [(2, 1, 8, 16), (4, 2, 16, 64), (3, 4, 32, 100), (1, 8, 128, 256)]
    factors, mismatches = [], []
    for layers, kv_heads, head_dim, ctx in shapes:
        real = _explicit_cache_bytes(layers, kv_heads, head_dim, ctx, np.float16)
        formula = kv_cache_bytes(layers, kv_heads, head_dim, ctx, 2)
        factors.append(real / (layers * kv_heads * head_dim * ctx * 2))
        if real != formula:
            mismatches.append((layers, kv_heads, head_dim, ctx, real, formula))
    check.against(
        "K and V factor",
        max(factors, key=lambda f: abs(f - 2)),
        note="cache bytes / (layers x KV heads x head dim x ctx x 2 B), worst of 4 shapes",
    )
    check.measure(
        "formula = bytes of explicit fp16 K/V tensors",
        len(shapes) - len(mismatches),
        holds=not mismatches,
        expected=f"all {len(shapes)} shapes",
        note=str(mismatches or ""),
    )
    doubled = [
        kv_cache_bytes(32, 8, 128, c * 2) / kv_cache_bytes(32, 8, 128, c) for c in (512, 2048, 8192)
    ]
    for c, ratio in zip((512, 2048, 8192), doubled, strict=True):
        check.against("cache growth over context growth", ratio / 2,
                      note=f"num_ctx {c} -> {2 * c}: doubling num_ctx doubles the cache")


@pytest.mark.claim("MC-KV-TABLE", source="recorded")
def test_llama3_8b_kv_table(check, recorded):
    # The table is arithmetic on the document's own premises (Llama 3 8B's shape as
    # 2.4 states it): no artifact is measured, so the evidence is the recorded figures.
    block, size = quant_block("F16")
    check.against("bytes per element", size / block, unit="B", note="gguf GGML_QUANT_SIZES[F16]")
    check.note(
        "layers, KV heads and head dim are the table's premises (Llama 3 8B); "
        "the gated meta-llama config is read under MC-LAYER-COUNTS (hub tier)"
    )
    shape = llama3_8b(check)
    # The shape the table rests on, as 2.4 prints it (fixtures/recorded/MC.json): the
    # premises above are the catalog's, so they are held to the transcription here,
    # within the claim (a changed head dim must change this claim's verdict).
    table = recorded("MC")["kv_table"]
    for figure, key in (("layers", "layers"), ("KV heads", "kv_heads"), ("head dim", "head_dim")):
        check.against(figure, int(table[key]), note=f"2.4 as printed ({table['model']})")
    per_token = kv_cache_bytes(context=1, **shape)
    check.observe("bytes per token", int(per_token), unit="B")
    for ctx in (2048, 8192, 32768, 131072):
        n = kv_cache_bytes(context=ctx, **shape)
        check.against(f"KV at {ctx}", n, unit="B", note=f"{int(n):,} B")
        binary = f"{n / MIB:,.0f} MiB" if n < GIB else f"{n / GIB:.2f} GiB"
        check.observe(f"KV at {ctx} in binary units", binary)
    # The document's own values beside the formula's: the erratum is between the two.
    printed = {int(r["num_ctx"]): float(r["kv"]) * UNIT_BYTES[r["unit"]] for r in table["rows"]}
    check.chart(
        "kv_growth",
        [
            {"context": c, "formula_bytes": kv_cache_bytes(context=c, **shape),
             "stated_bytes": printed.get(c)}
            for c in (2048, 8192, 32768, 131072)
        ],
        title="Llama 3 8B KV cache (f16)",
    )


@pytest.mark.claim("MC-KV-32K-OVER-4GB", source="recorded")  # arithmetic on the document's figures
def test_32k_context_needs_over_4_gb(check):
    context = round(check.premise("num_ctx"))
    n = kv_cache_bytes(context=context, **llama3_8b(check))
    check.against("KV cache", n, unit="B", note=f"Llama 3 8B at num_ctx {context:,}")
    check.observe(
        "the same in GiB",
        n / GIB,
        unit="GiB",
        note="exactly 4 GiB: 'over 4' holds only in decimal GB",
    )


@pytest.mark.claim("MC-PARALLEL-KV", source="recorded")  # arithmetic on the document's figures
def test_parallel_slots_add_a_cache_each(check, recorded):
    weights = check.premise("weights") * GB  # the answer's premises
    per_slot = check.premise("KV per slot") * GB
    # The slot counts of the answer's three rows, as transcribed where it prints them.
    for slots in (int(row["n"]) for row in recorded("MC")["parallel_slots"]["rows"]):
        check.against(
            f"total N={slots}",
            serving_memory_bytes(weights, per_slot, slots),
            unit="B",
            note=f"{weights / GB:g} GB + {slots} x {per_slot / GB:g} GB",
        )
    real_slot = kv_cache_bytes(context=8192, **llama3_8b(check))
    check.observe(
        "Llama 3 8B KV per slot at 8K (formula)",
        round(real_slot / GB, 3),
        unit="GB",
        note="1.07 GB = 1 GiB; with it N=8 is 13.6 GB",
    )


@pytest.mark.claim("MC-70B-FP16", source="recorded")  # arithmetic on the document's figures
def test_70b_sixteen_bit_weights(check):
    params = round(convert(check.premise("parameters"), "B params", "params"))
    n = weight_bytes_exact(params, 16)
    check.against("16-bit weights", float(n), unit="B", note=f"{params:,} parameters x 2 B")
    gpu = convert(check.premise("GPU memory"), "GB", "B")
    check.against("weights over GPU memory", float(n) / gpu,
                  note=f"more than one {gpu / GB:g} GB GPU, within two (weights only)")


@pytest.mark.claim("MC-KV-BASE-WEIGHTS", source="recorded")
def test_fp16_8b_base_weights(check, recorded):
    """2.4's example model is an 8B at FP16; its weights are parameters × 2 bytes. The
    paragraph adds the 131,072-token cache to 'the model's base 5 GB weight tensor'."""
    table = recorded("MC")["kv_table"]
    size = table["model"].rsplit(" ", 1)[-1]  # "Llama 3 8B" -> "8B"
    check.against("parameters", _billions(size), unit="B params",
                  note=f"{table['model']} as printed")
    params = check.premise("parameters") * 1e9
    element = check.premise("bytes per element", claim="MC-KV-TABLE")
    check.note(f"precision as printed: {table['precision']}")
    weights = params * element
    check.against("base weights", weights, unit="B", note=f"{params:.3g} × {element:g} B")
    check.observe("8.03B parameters (Llama 3 8B's exact count) at FP16",
                  round(8.03e9 * element / GB, 1), unit="GB")


def _billions(text: str) -> float:
    """'8B' (a parameter count as a model name prints it) as 8.0 billion."""
    if not text.endswith("B"):
        raise AssertionError(f"not a parameter count in billions: {text!r}")
    return float(text[:-1])
