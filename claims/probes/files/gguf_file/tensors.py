"""GGUF tensor info records: one tensor's name, dimensions, ggml type and data offset.

A record is a name (a u64 length, then UTF-8 bytes), a u32 dimension count,
that many u64 dimensions (ne[0], the fastest-varying, first), a u32 ggml type
and a u64 offset into the data section. Its data size in bytes follows from
the ggml block sizes (``gguf.GGML_QUANT_SIZES``: Q8_0 packs 32 weights in 34
bytes); nothing of the data itself is read.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

from claims.probes.files.gguf_file.errors import GGUFFormatError, GGUFTensorError
from claims.probes.files.gguf_file.source import Source
from claims.probes.files.gguf_file.values import decode_text, raw_string

__all__ = [
    "MAX_DIMS",
    "MAX_ELEMENTS",
    "MAX_TENSOR_NAME_BYTES",
    "MIN_TENSOR_INFO_BYTES",
    "TensorInfo",
    "read_tensor_info",
    "read_tensor_infos",
]

# Limits llama.cpp's reader imposes; checking them early keeps a hostile record
# from steering the walk.
MAX_TENSOR_NAME_BYTES = 64  # GGML_MAX_NAME
MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_ELEMENTS = 2**63 - 1  # llama.cpp keeps element counts in int64
MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8  # name length, n_dims, ggml type, offset


@dataclass(frozen=True, slots=True)
class TensorInfo:
    """One tensor's info record; ``offset`` is relative to the data section."""

    name: str
    dims: tuple[int, ...]  # GGUF order: ne[0] first
    ggml_type: int
    offset: int
    info_offset: int  # where this record starts in the file
    n_elements: int
    n_bytes: int  # data bytes from ggml block sizes (gguf.GGML_QUANT_SIZES)
    offset_at: int = 0  # where the record's offset field lies in the file

    @property
    def type_name(self) -> str:
        return GGMLQuantizationType(self.ggml_type).name


def read_tensor_info(src: Source, off: int, i: int) -> tuple[TensorInfo, int]:
    """Record ``i``, starting at ``off``, and the offset after it."""
    start = off
    tag = f"tensor[{i}]"
    raw, off = raw_string(
        src, off, f"{tag} name", limit=MAX_TENSOR_NAME_BYTES, too_long=GGUFTensorError
    )
    name = decode_text(src, raw, start + 8, f"{tag} name", GGUFTensorError)
    tag = f"{tag} {name!r}"

    def bad(problem: str, offset: int, part: str) -> GGUFFormatError:
        return src.fail(GGUFTensorError, problem, offset, f"{tag} {part}")

    n_dims = src.u32(off, f"{tag} n_dims")
    if n_dims > MAX_DIMS:
        raise bad(f"n_dims is {n_dims:,}; ggml tensors have at most {MAX_DIMS}", off, "n_dims")
    off += 4
    dims_at = off
    raw_dims = src.read(off, 8 * n_dims, f"{tag} dims")
    dims = tuple(int(d) for d in struct.unpack(f"{src.order}{n_dims}Q", raw_dims))
    n_elements = math.prod(dims)
    if n_elements > MAX_ELEMENTS:
        raise bad(
            f"dims {list(dims)} give {n_elements:,} elements, more than 2^63-1", dims_at, "dims"
        )
    off += 8 * n_dims
    ggml_type = src.u32(off, f"{tag} ggml type")
    try:
        qtype = GGMLQuantizationType(ggml_type)
        block, type_size = GGML_QUANT_SIZES[qtype]
    except (ValueError, KeyError):
        raise bad(f"ggml type {ggml_type} is not a known tensor type", off, "ggml type") from None
    if dims and dims[0] % block:
        raise bad(
            f"first dimension {dims[0]:,} is not a multiple of the {qtype.name} block size {block}",
            dims_at,
            "dims",
        )
    off += 4
    offset_at = off
    offset = src.u64(off, f"{tag} offset")
    off += 8
    n_bytes = n_elements // block * type_size
    return TensorInfo(name, dims, ggml_type, offset, start, n_elements, n_bytes, offset_at), off


def read_tensor_infos(src: Source, off: int, count: int) -> tuple[tuple[TensorInfo, ...], int]:
    """``count`` records from ``off``, in file order, and the offset after them.

    The count has been checked against the bytes left; a repeated tensor name
    is a GGUFTensorError naming the first tensor of that name.
    """
    tensors: list[TensorInfo] = []
    index: dict[str, int] = {}
    for i in range(count):
        info, off = read_tensor_info(src, off, i)
        if (first := index.setdefault(info.name, i)) != i:
            problem = f"duplicate tensor name {info.name!r} (first is tensor {first})"
            raise src.fail(GGUFTensorError, problem, info.info_offset, f"tensor[{i}] name")
        tensors.append(info)
    return tuple(tensors), off
