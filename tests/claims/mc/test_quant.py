"""MC quantization claims, checked against gguf-py's ggml block constants."""

from __future__ import annotations

import pytest

from claims.probes.memory import quant_block

pytestmark = pytest.mark.offline


@pytest.mark.claim("MC-Q4_0")
def test_q4_0_block_layout(check):
    block, size = quant_block("Q4_0")
    check.source = "fixture"
    check.against("block size", block)
    check.against("block bytes", size)
    fp16_bytes = block * 2
    check.against("reduction vs FP16", fp16_bytes / size, note=f"{fp16_bytes} B / {size} B")
