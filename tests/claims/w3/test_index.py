"""W3 claims about the safetensors index: its total, and what the shape says about its entries."""

from __future__ import annotations

import pytest

from claims.probes.arithmetic.memory import tensor_count_from_config
from claims.probes.files.hf_repo import index_total_size, index_weight_map
from claims.probes.machine.torch_cuda import import_torch
from claims.testkit import Interval, PrerequisiteMissing

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
    check.against("parameters in billions", params, unit="params")
    try:
        torch = import_torch()
    except PrerequisiteMissing as exc:  # not installed, or installed and raising on import
        check.not_judged("bytes per parameter", f"{exc}: no torch to size a BF16 element")
    else:
        check.against("bytes per parameter", torch.empty(0, dtype=torch.bfloat16).element_size(),
                      unit="B", note="torch: one bfloat16 element")


@pytest.mark.claim("W3-SHARDS", source="recorded")
@pytest.mark.offline
def test_index_entries_and_shard_sizes_from_the_printed_figures(check, qwen_snapshot, recorded):
    """Offline half of W3-SHARDS: the post's own figures (fixtures/recorded/W3.json, and
    the file list the snapshot records from the post) and what config.json implies."""
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
    tab = recorded("W3")["files_tab"]
    check.against("weight_map entries", int(tab["weight_map_entries"]),
                  note="as the post states it")
    check.against("file count", int(tab["file_count"]), note="as the post states it")
    check.against("total size", _gb(tab["total_size"]), note="as the post states it")
    printed = {name: _gb(size) for name, size in tab["shard_sizes"].items()}
    shard_1, shard_2 = (printed[f"model-0000{i}-of-00002.safetensors"] for i in (1, 2))
    check.against("shard 1 size", shard_1, note="as the post prints it")
    check.against("shard 2 size", shard_2, note="as the post prints it")
    # The post's file list: the names it groups the twelve files under (recorded), and the
    # same list as the snapshot keeps it; both judged against the catalog's list.
    check.against("files", sorted(tab["files"]), unordered=True, note="the post's grouping")
    listed = qwen_snapshot.stated("files")["values"]
    check.against("files", list(listed), unordered=True, note="snapshot.json stated_not_printed")
    check.measure("file count vs files named", len(tab["files"]),
                  holds=len(tab["files"]) == int(tab["file_count"]),
                  expected=f"{tab['file_count']} (the stated count)")
    shards = shard_1 + shard_2
    payload_gb = index_total_size(qwen_snapshot.index()) / 1e9
    # A shard is its tensor payload plus a JSON header of some tens of kilobytes,
    # far below the printed precision, so the printed sizes must add up to the total.
    check.measure(
        "shard sizes vs index total",
        f"{shards} GB vs {payload_gb:.4f} GB",
        holds=shards.contains(payload_gb),
        expected="the sum of the printed shard sizes admits the index total",
    )


def _gb(printed: str) -> Interval:
    """'2.2 GB' as printed: the interval its last digit admits, in GB."""
    value, _, unit = printed.partition(" ")
    if unit != "GB":
        raise ValueError(f"expected a size in GB, got {printed!r}")
    return Interval.stated(value)
