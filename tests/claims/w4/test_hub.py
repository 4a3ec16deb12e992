"""W4 claims checked against the live Hub at the pinned revision (hub tier)."""

from __future__ import annotations

import pytest

from claims.probes.arithmetic.memory import PRECISION_BITS, gb, gib, weight_bytes_exact
from claims.probes.files import hf_repo
from claims.probes.files.hf_repo.safetensors import HEADER_LENGTH_PREFIX

pytestmark = pytest.mark.hub


@pytest.mark.claim("W4-HUB-PARAMS")
def test_hub_reports_the_parameter_count(check, qwen_hub_listing):
    listing = qwen_hub_listing
    check.against("revision", listing.revision or "<none>")
    check.against("parameters", listing.safetensors_total)
    groups = dict(listing.safetensors_parameters or {})
    check.observe("precision groups", groups)
    check.against("BF16 parameters", groups.get("BF16", 0))
    check.measure(
        "only BF16", sorted(groups), holds=sorted(groups) == ["BF16"], expected="['BF16']"
    )


@pytest.mark.claim("W4-QWEN-EXACT")
def test_formula_matches_the_live_index(check, qwen_hub_listing, qwen_hub_files):
    count = qwen_hub_listing.safetensors_total
    check.observe("Hub parameter count", count)
    exact = weight_bytes_exact(int(count or 0), PRECISION_BITS["bf16"])
    check.against("weight bytes", float(exact), unit="B")
    check.against("weight GB", gb(float(exact)), unit="GB")
    check.against("weight GiB", gib(float(exact)), unit="GiB")
    total = hf_repo.index_total_size(
        qwen_hub_files.index(), source="hub:model.safetensors.index.json"
    )
    check.measure(
        "formula vs live index total_size",
        total - int(exact),
        holds=total == exact,
        expected="0 bytes apart",
        unit="B",
    )


@pytest.mark.claim("W4-INDEX-IS-PAYLOAD")
def test_shards_are_payload_plus_headers(check, qwen_hub_listing, qwen_hub_files):
    total = hf_repo.index_total_size(
        qwen_hub_files.index(), source="hub:model.safetensors.index.json"
    )
    check.against("total_size", total, unit="B")
    layout = hf_repo.fetch_safetensors_layout(hf_repo.REPO_ID, hf_repo.REVISION)
    check.measure(
        "tensor payload from the shard headers",
        layout.data_bytes,
        holds=layout.data_bytes == total,
        expected="equal to total_size",
        unit="B",
    )
    sizes = {f.name: f.size for f in qwen_hub_listing.shards}
    headers = {}
    for shard in layout.shards:
        size = sizes.get(shard.name)
        if size is not None:
            headers[shard.name] = size - shard.data_bytes
    check.observe("shard bytes beyond the payload (8-byte length + JSON header)", headers, unit="B")
    file_total = sum(s for s in sizes.values() if s is not None)
    check.against(
        "shard files larger than total_size",
        len(headers) == len(layout.shards) > 0
        and all(h > HEADER_LENGTH_PREFIX for h in headers.values()),
        note=f"{file_total - total:,} B beyond it: each shard larger than its tensors by its "
        "header",
    )
