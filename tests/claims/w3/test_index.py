"""W3 claims about the safetensors index, checked on the printed figures."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.offline

# The index's metadata block as the post prints it (model.safetensors.index.json).
PRINTED_TOTAL_SIZE = 6171877376
BF16_BYTES = 2


@pytest.mark.claim("W3-INDEX-TOTAL")
def test_index_total_is_two_bytes_per_parameter(check):
    check.source = "recorded"
    check.against("total_size", PRINTED_TOTAL_SIZE)
    params, rem = divmod(PRINTED_TOTAL_SIZE, BF16_BYTES)
    check.measure("remainder of total_size / 2", rem, holds=rem == 0, expected="0 (whole BF16 values)")
    check.against("parameters", params)
