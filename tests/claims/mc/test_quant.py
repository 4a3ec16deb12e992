"""MC quantization claims, checked with gguf-py: ggml block constants and real quantized buffers.

Sizes are measured on buffers gguf.quants actually produces where that is
possible, and on GGML_QUANT_SIZES otherwise. The masterclass's table uses
profile names (Q4_K_M); they are compared with the ggml block type each is
named after (Q4_K), which is what a "bits per weight" column can mean.
"""

from __future__ import annotations

import gguf
import numpy as np
import pytest

from claims.probes.arithmetic.memory import GB, bits_per_weight, profile_block_type, quant_block
from claims.probes.arithmetic.quant import q4_0_blocks, q4_0_dequantize, q4_0_quantize
from claims.testkit import Interval

pytestmark = pytest.mark.offline

SEED = 20260719
NOMINAL = {"8B": 8_000_000_000, "70B": 70_000_000_000}
# The table's precision names -> a ggml type name.
TABLE_TYPES = {"FP16": "F16"}


def _blocks(n_blocks: int = 256) -> np.ndarray:
    """Seeded weight-like blocks: Gaussian with a few outliers, both signs of extreme."""
    rng = np.random.default_rng(SEED)
    w = rng.normal(0.0, 0.02, size=(n_blocks, 32)).astype(np.float32)
    w[::7, 3] *= 40  # outliers decide the scale in some blocks
    return w


def _table_bits(catalog, name: str) -> Interval:
    text = catalog.get("MC-QUANT-BITS").figure(name).text
    assert text is not None
    return Interval.stated(text)


@pytest.mark.claim("MC-Q4_0")
def test_q4_0_block_layout(check):
    block, size = quant_block("Q4_0")
    check.against("block size", block, note="gguf GGML_QUANT_SIZES[Q4_0]")
    w = _blocks()
    raw = q4_0_quantize(w)
    per_block = raw.size / w.shape[0]
    check.against(
        "block bytes",
        per_block,
        unit="B",
        note=f"{raw.size} B from gguf.quants for {w.shape[0]} blocks",
    )
    check.measure(
        "constant agrees with the buffer",
        [size, per_block],
        holds=size == per_block,
        expected="GGML_QUANT_SIZES bytes = bytes produced per block",
    )
    fp16_bytes = w.astype(np.float16).nbytes
    check.against(
        "reduction vs FP16",
        fp16_bytes / raw.size,
        unit="x",
        note=f"{fp16_bytes} B as FP16 / {raw.size} B as Q4_0",
    )
    dec = q4_0_blocks(raw)
    d = np.abs(dec.scales.astype(np.float64))
    err = np.abs(dec.values().astype(np.float64) - w)
    ratio = float((err / d[:, None]).max())
    check.observe(
        "largest round-trip error, in units of |d|",
        round(ratio, 4),
        note="bounded by 0.5, or 1 where a value clips at q = 7"
        " (see tests/probes/arithmetic/test_quant.py)",
    )


@pytest.mark.claim("MC-Q4_0-SCALE")
def test_q4_0_scale_rule(check):
    w = _blocks()
    dec = q4_0_blocks(q4_0_quantize(w))
    rows = np.arange(w.shape[0])
    extreme = w[rows, np.abs(w).argmax(axis=1)]
    divisors = extreme / dec.scales.astype(np.float64)
    worst = float(divisors[np.abs(divisors + 8).argmax()])
    check.against(
        "scale divisor", worst, note="signed extreme / stored d, worst block (d is fp16-rounded)"
    )
    # The divisor -8 is the bottom of the signed 4-bit range [-8, 7] q must stay in.
    low = round(check.premise("scale divisor"))
    check.measure(
        "ggml's q range (gguf.quants)",
        [int(dec.q.min()), int(dec.q.max())],
        holds=bool(dec.q.min() >= low and dec.q.max() <= -low - 1),
        expected=f"within [{low}, {-low - 1}]",
    )
    # The answer's procedure as written: M = max |w|, d = M / -8, q = round(w / d).
    m = np.abs(w).max(axis=1, keepdims=True)
    q_literal = np.round(w / (m / -8))
    negative = int((extreme < 0).sum())
    check.observe(
        "blocks whose largest-magnitude weight is negative", negative, note=f"of {w.shape[0]}"
    )
    check.against(
        "q range",
        [str(int(q_literal.min())), str(int(q_literal.max()))],
        note="the answer's rule with M = max|w| taken as written",
    )


@pytest.mark.claim("MC-QUANT-BITS")
def test_bits_per_weight_by_type(check, catalog):
    for fig in catalog.get("MC-QUANT-BITS").stated:
        block_type = profile_block_type(TABLE_TYPES.get(fig.name, fig.name))
        block, size = quant_block(block_type)
        check.against(
            fig.name,
            float(bits_per_weight(block_type)),
            note=f"{block_type}: {size} B per {block} weights",
        )


@pytest.mark.claim("MC-QUANT-SIZES", source="recorded")
def test_weight_sizes_follow_the_tables_bits(check, catalog):
    # One column of the table recomputed from another: the figures are the document's.
    for fig in catalog.get("MC-QUANT-SIZES").stated:
        model, profile = fig.name.split(" ", 1)
        params = NOMINAL[model]
        table_bits = _table_bits(catalog, profile)
        check.against(
            fig.name,
            table_bits * params / 8 / GB,
            unit="GB",
            note=f"{params:.0e} params x {table_bits} bits (the table's) / 8",
        )
        block_type = profile_block_type(TABLE_TYPES.get(profile, profile))
        ggml_gb = float(bits_per_weight(block_type)) * params / 8 / GB
        check.observe(
            f"{fig.name} at {block_type}'s {float(bits_per_weight(block_type))} bits",
            round(ggml_gb, 3),
            unit="GB",
        )


@pytest.mark.claim("MC-QUANT-SAVINGS", source="recorded")
def test_savings_versus_16_bits(check):
    # The stated widths (4, 5, 8 bits against 16) are the document's; ggml's real block
    # sizes are only observed beside them.
    source = check.premise("width quantized from")
    for bits in (float(b) for b in check.premise_values("widths quantized to")):
        check.against("saving", (1 - bits / source) * 100, unit="%",
                      note=f"{bits:g} bits instead of {source:g}")
    for block_type in ("Q8_0", "Q5_K", "Q4_K"):
        real = float(bits_per_weight(block_type))
        check.observe(
            f"saving with {block_type} ({real} bits)", round((1 - real / source) * 100, 3),
            unit="%",
        )


@pytest.mark.claim("MC-FP16-VS-Q8")
def test_fp16_moves_about_twice_the_bytes_of_q8_0(check):
    w = _blocks().reshape(-1)
    fp16 = gguf.quants.quantize(w, gguf.GGMLQuantizationType.F16)
    q8 = gguf.quants.quantize(w, gguf.GGMLQuantizationType.Q8_0)
    check.against(
        "bandwidth ratio",
        fp16.nbytes / q8.nbytes,
        unit="x",
        note=f"{fp16.nbytes} B as F16 / {q8.nbytes} B as Q8_0 for {w.size} weights",
    )
    check.against("Q8_0 bytes per parameter", q8.nbytes / w.size, unit="B")
    check.against("FP16 bytes per parameter", fp16.nbytes / w.size, unit="B")
    check.observe(
        "exact ratio from block sizes", float(bits_per_weight("F16") / bits_per_weight("Q8_0"))
    )


@pytest.mark.claim("MC-Q4_0-BLOCK-PARTS")
def test_q4_0_block_parts(check):
    """Q7's three byte counts, from ggml's constants and one real buffer's layout."""
    block, size = quant_block("Q4_0")
    _, half = quant_block("F16")  # one FP16 value's bytes: the scale's type, and FP16's
    check.against("FP16 block bytes", block * half, unit="B",
                  note=f"{block} weights × {half} B (GGML_QUANT_SIZES[F16])")
    check.against("scale bytes", half, unit="B", note="ggml stores a Q4_0 block's scale as FP16")
    check.against("4-bit code bytes", size - half, unit="B",
                  note=f"GGML_QUANT_SIZES[Q4_0] {size} B less the {half}-byte scale")
    # The layout, not just the sizes: each block's leading FP16 is the scale that its
    # dequantised weights are whole multiples of, and the codes fit the bits that the rest
    # of the block gives each weight.
    w = _blocks()
    raw = q4_0_quantize(w).reshape(w.shape[0], size)
    scales = raw[:, :half].copy().view(np.float16).astype(np.float32)
    codes = q4_0_dequantize(raw).reshape(w.shape[0], block) / scales
    levels = 2 ** ((size - half) * 8 // block)
    lo, hi = float(codes.min()), float(codes.max())
    whole = bool(np.allclose(codes, np.round(codes), atol=1e-3))
    check.measure("dequantised weights over the leading FP16", [lo, hi],
                  holds=whole and hi - lo < levels,
                  expected=f"whole numbers spanning fewer than {levels} values")
