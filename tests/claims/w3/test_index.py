"""W3 claims about the safetensors index: its total, and what the shape says about its entries."""

from __future__ import annotations

import pytest

from claims.probes.arithmetic.memory import tensor_count_from_config
from claims.probes.files.hf_repo import index_total_size, index_weight_map
from claims.testkit import Interval

BF16_BYTES = 2
INDEX = "model.safetensors.index.json"


@pytest.mark.claim("W3-INDEX-TOTAL")
def test_index_total_is_two_bytes_per_parameter(check, qwen_files):
    total = index_total_size(qwen_files.snapshot.index(), source=qwen_files.name(INDEX))
    check.against("total_size", total, unit="B", note=qwen_files.name(INDEX))
    params, rem = divmod(total, BF16_BYTES)
    check.measure(
        "remainder of total_size / 2", rem, holds=rem == 0, expected="0 (whole BF16 values)"
    )
    check.against("parameters", params, note="total_size / 2 bytes per BF16 value")


@pytest.mark.claim("W3-SHARDS", source="recorded")
@pytest.mark.offline
def test_index_entries_and_shard_sizes_from_the_printed_figures(check, qwen_snapshot, catalog):
    """Offline half of W3-SHARDS: what the post's own figures and config.json imply."""
    config = qwen_snapshot.config()
    check.against(
        "weight_map entries",
        tensor_count_from_config(config, source="config.json"),
        note="one tensor per weight and bias of the config's shape, tied head",
    )
    check.observe(
        "weight_map entries printed",
        len(index_weight_map(qwen_snapshot.index())),
        note="the post prints two of them",
    )
    claim = catalog.get("W3-SHARDS")
    shards = Interval.stated(claim.figure("shard 1 size").text or "") + Interval.stated(
        claim.figure("shard 2 size").text or ""
    )
    payload_gb = index_total_size(qwen_snapshot.index()) / 1e9
    # A shard is its tensor payload plus a JSON header of some tens of kilobytes,
    # far below the printed precision, so the printed sizes must add up to the total.
    check.measure(
        "shard sizes vs index total",
        f"{shards} GB vs {payload_gb:.4f} GB",
        holds=shards.contains(payload_gb),
        expected="the sum of the printed shard sizes admits the index total",
    )
