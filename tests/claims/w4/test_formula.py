"""W4 weight-memory formula claims."""

from __future__ import annotations

import pytest

from claims.probes.memory import PRECISION_BITS, gb, gib, weight_bytes

pytestmark = pytest.mark.offline

QWEN_PARAMETERS = 3_085_938_688  # W3/W4: the Hub's safetensors total at the pinned revision


@pytest.mark.claim("W4-QWEN-EXACT")
def test_formula_matches_index_total_exactly(check):
    check.source = "recorded"
    n = weight_bytes(QWEN_PARAMETERS, PRECISION_BITS["bf16"])
    check.against("weight bytes", int(n))
    check.against("weight GB", gb(n))
    check.against("weight GiB", gib(n))
