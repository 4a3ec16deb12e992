"""Q4_0 blocks as ggml stores them: what a block holds, and what a round trip loses.

gguf-py's ``gguf.quants.quantize``/``dequantize`` are the reference numpy port of
ggml's quantizers; they return and accept raw block bytes. To check the
masterclass's description of Q4_0 (one FP16 scale ``d`` and 32 four-bit values
``q`` per block, ``w ≈ d·q``) the bytes have to be split into ``d`` and ``q``,
which gguf-py does only inside ``Q4_0.dequantize_blocks`` without exposing the
two parts; :func:`q4_0_blocks` does that split with numpy views.

Layout of one 18-byte block (ggml ``block_q4_0``): bytes 0–1 the scale as
little-endian IEEE FP16; bytes 2–17 sixteen bytes whose low nibbles are values
0–15 and high nibbles values 16–31 of the block, each stored as ``q + 8``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from claims.probes.errors import InputError

Q4_0_BLOCK = 32
Q4_0_BLOCK_BYTES = 18


@dataclass(frozen=True)
class Q4_0Blocks:
    """Decoded Q4_0 data: per-block scales and per-weight signed 4-bit values.

    ``scales`` has shape (blocks,) and dtype float16 (as stored); ``q`` has
    shape (blocks, 32) and dtype int8, every value in [-8, 7].
    """

    scales: npt.NDArray[np.float16]
    q: npt.NDArray[np.int8]

    def values(self) -> npt.NDArray[np.float32]:
        """Dequantized weights d·q, shape (blocks, 32), float32 (ggml's arithmetic)."""
        return self.scales.astype(np.float32)[:, None] * self.q.astype(np.float32)


def q4_0_quantize(weights: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Raw Q4_0 bytes of float32 weights (length a multiple of 32) via gguf-py."""
    import gguf

    data = np.asarray(weights, dtype=np.float32).reshape(-1)
    if data.size == 0 or data.size % Q4_0_BLOCK:
        raise InputError(f"Q4_0 needs a multiple of {Q4_0_BLOCK} weights, got {data.size}")
    raw: npt.NDArray[np.uint8] = gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q4_0)
    return raw


def q4_0_dequantize(raw: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """gguf-py's reference dequantization of raw Q4_0 bytes, flattened (float32)."""
    import gguf

    out: npt.NDArray[np.float32] = gguf.quants.dequantize(
        np.asarray(raw, dtype=np.uint8).reshape(-1), gguf.GGMLQuantizationType.Q4_0
    )
    return out.reshape(-1)


def q4_0_blocks(raw: npt.ArrayLike) -> Q4_0Blocks:
    """Split raw Q4_0 bytes into scales and signed values (see the module docstring).

    Raises :class:`InputError` when the byte count is not a whole number of blocks.
    """
    data = np.ascontiguousarray(np.asarray(raw, dtype=np.uint8).reshape(-1))
    if data.size == 0 or data.size % Q4_0_BLOCK_BYTES:
        raise InputError(
            f"{data.size} bytes is not a whole number of {Q4_0_BLOCK_BYTES}-byte Q4_0 blocks"
        )
    blocks = data.reshape(-1, Q4_0_BLOCK_BYTES)
    scales = blocks[:, :2].copy().view("<f2").reshape(-1)
    packed = blocks[:, 2:]
    nibbles = np.concatenate([packed & 0x0F, packed >> 4], axis=1)
    q = nibbles.astype(np.int8) - np.int8(8)
    return Q4_0Blocks(scales=scales.astype(np.float16), q=q)
