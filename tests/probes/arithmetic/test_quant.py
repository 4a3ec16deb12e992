"""Q4_0 round trip through gguf.quants, with Hypothesis: the block rule and its error bound."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from claims.probes.arithmetic.quant import (
    Q4_0_BLOCK,
    Q4_0_BLOCK_BYTES,
    q4_0_blocks,
    q4_0_dequantize,
    q4_0_quantize,
)
from claims.probes.errors import InputError

# fp16's largest finite value is 65504, so |d| = max/8 stays finite for |w| < 8 * 65504;
# the bound below needs d in fp16's normal range or its absolute subnormal step.
finite = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False, width=32)
blocks = st.integers(min_value=1, max_value=4).flatmap(
    lambda n: hnp.arrays(np.float32, (n, Q4_0_BLOCK), elements=finite)
)

FP16_REL = 2.0**-11  # half an ulp, relative, in fp16's normal range
FP16_SUBNORMAL_HALF_STEP = 2.0**-25


def _expected_scale(w: np.ndarray) -> np.ndarray:
    """ggml's rule: d = (the element with the largest magnitude, sign kept) / -8."""
    idx = np.abs(w).argmax(axis=1)
    return w[np.arange(w.shape[0]), idx] / np.float32(-8)


@settings(max_examples=150, deadline=None)
@given(blocks)
def test_q4_0_layout_scale_and_error_bound(w: np.ndarray) -> None:
    raw = q4_0_quantize(w)
    assert raw.size == w.shape[0] * Q4_0_BLOCK_BYTES
    dec = q4_0_blocks(raw)
    d = _expected_scale(w)
    # The scale is stored as fp16 of max / -8.
    np.testing.assert_array_equal(dec.scales, d.astype(np.float16))
    assert dec.q.min() >= -8 and dec.q.max() <= 7
    # The largest-magnitude element lands on q = -8 whenever the block is not all zero.
    idx = np.abs(w).argmax(axis=1)
    nonzero = d != 0
    assert np.all(dec.q[np.arange(w.shape[0]), idx][nonzero] == -8)
    # Our split agrees with gguf-py's own dequantization.
    np.testing.assert_array_equal(dec.values().reshape(-1), q4_0_dequantize(raw))
    # Error bound per element: half a step, a whole step where q was clipped to 7,
    # plus what storing d in fp16 costs (|q| <= 8 times d's rounding).
    d_abs = np.abs(d)[:, None].astype(np.float64)
    t = np.divide(w, d[:, None], out=np.zeros_like(w), where=d[:, None] != 0).astype(np.float64)
    steps = np.where(t > 7.5, 1.0, 0.5)
    fp16_err = np.maximum(d_abs * FP16_REL, FP16_SUBNORMAL_HALF_STEP)
    slack = 1e-6 * np.abs(w).max(axis=1, keepdims=True)  # float32 arithmetic inside the quantizer
    err = np.abs(dec.values().astype(np.float64) - w.astype(np.float64))
    assert np.all(err <= steps * d_abs + 8 * fp16_err + slack)


def test_all_zero_block_round_trips_exactly() -> None:
    w = np.zeros(Q4_0_BLOCK, dtype=np.float32)
    raw = q4_0_quantize(w)
    np.testing.assert_array_equal(q4_0_dequantize(raw), w)


def test_negative_extreme_maps_to_minus_eight() -> None:
    w = np.linspace(-8.0, 3.0, Q4_0_BLOCK, dtype=np.float32)  # extreme is -8.0
    dec = q4_0_blocks(q4_0_quantize(w))
    assert float(dec.scales[0]) == 1.0  # -8 / -8
    assert dec.q[0, 0] == -8


@pytest.mark.parametrize("n", [0, 31, 33])
def test_quantize_rejects_partial_blocks(n: int) -> None:
    with pytest.raises(InputError, match="multiple of 32"):
        q4_0_quantize(np.zeros(n, dtype=np.float32))


@pytest.mark.parametrize("n", [0, 17, 19])
def test_blocks_reject_partial_bytes(n: int) -> None:
    with pytest.raises(InputError, match="whole number"):
        q4_0_blocks(np.zeros(n, dtype=np.uint8))
