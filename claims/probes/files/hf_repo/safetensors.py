"""Safetensors headers of a repository's shards, as the Hub returns them (a few kilobytes
per shard, fetched by :mod:`.hub`): tensors, bytes of data, parameter counts per dtype.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claims.probes.files.hf_repo.listing import _int_or_none

# The safetensors format: a file starts with its JSON header's length, a little-endian
# unsigned 64-bit integer (8 bytes), then the header, then the tensor payload.
HEADER_LENGTH_PREFIX = 8


@dataclass(frozen=True)
class ShardLayout:
    """One safetensors shard as its header describes it.

    ``data_bytes`` is where the last tensor's data ends, counted from the end
    of the header: the shard's tensor payload in bytes. The file is larger by
    8 (the header-length prefix) plus the JSON header itself.
    """

    name: str
    tensors: int
    data_bytes: int
    parameters: Mapping[str, int]


@dataclass(frozen=True)
class SafetensorsLayout:
    """All shards of a safetensors checkpoint: tensors, payload bytes, parameters per dtype."""

    weight_map_entries: int
    total_size: int | None
    shards: tuple[ShardLayout, ...]

    @property
    def tensors(self) -> int:
        return sum(s.tensors for s in self.shards)

    @property
    def data_bytes(self) -> int:
        return sum(s.data_bytes for s in self.shards)

    @property
    def parameters(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for shard in self.shards:
            for dtype, n in shard.parameters.items():
                out[dtype] = out.get(dtype, 0) + n
        return out


def layout_from_metadata(meta: Any) -> SafetensorsLayout:
    """Turn huggingface_hub's ``SafetensorsRepoMetadata`` into a layout."""
    shards = []
    for name, fmeta in sorted((getattr(meta, "files_metadata", None) or {}).items()):
        tensors = getattr(fmeta, "tensors", None) or {}
        ends = [int(t.data_offsets[1]) for t in tensors.values()]
        shards.append(
            ShardLayout(
                name=str(name),
                tensors=len(tensors),
                data_bytes=max(ends, default=0),
                parameters={
                    str(k): int(v)
                    for k, v in (getattr(fmeta, "parameter_count", None) or {}).items()
                },
            )
        )
    metadata = getattr(meta, "metadata", None) or {}
    total = metadata.get("total_size") if isinstance(metadata, Mapping) else None
    if isinstance(total, str) and total.isdigit():
        total = int(total)
    return SafetensorsLayout(
        weight_map_entries=len(getattr(meta, "weight_map", None) or {}),
        total_size=_int_or_none(total),
        shards=tuple(shards),
    )


