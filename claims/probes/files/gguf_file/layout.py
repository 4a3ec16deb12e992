"""Where GGUF tensor data lies: the alignment, and each tensor's place in the file.

The data section starts at the end of the header rounded up to the alignment
(``general.alignment``, a uint32 power of two, else 32); each tensor's offset
is relative to it and must be a multiple of the alignment. These checks use
the tensor info records only: no tensor data is read.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

from gguf.constants import GGUF_DEFAULT_ALIGNMENT, GGUFValueType

from claims.probes.files.gguf_file.errors import (
    GGUFFormatError,
    GGUFLayoutError,
    GGUFTruncatedError,
)
from claims.probes.files.gguf_file.metadata import MetadataField
from claims.probes.files.gguf_file.source import Source

if TYPE_CHECKING:
    from claims.probes.files.gguf_file.view import HeaderView

__all__ = ["Problem", "alignment_of", "layout_problems", "layout_summary"]

# One placement problem: (error class, problem, file offset, field), raised as
# ``cls(problem, offset=..., field=...)`` or kept as text in header.layout_problems.
Problem = tuple[type[GGUFFormatError], str, int, str]


def alignment_of(src: Source, fields: dict[str, MetadataField]) -> int:
    """The data alignment in bytes: general.alignment, checked, or the default 32."""
    fld = fields.get("general.alignment")
    if fld is None:
        return GGUF_DEFAULT_ALIGNMENT
    if fld.type is not GGUFValueType.UINT32:
        raise src.fail(
            GGUFLayoutError,
            f"general.alignment has type {fld.type_name}; it must be uint32",
            fld.offset,
            "general.alignment",
        )
    alignment = int(fld.scalar)  # type: ignore[arg-type]
    if alignment == 0 or alignment & (alignment - 1):
        raise src.fail(
            GGUFLayoutError,
            f"alignment {alignment} is not a non-zero power of two",
            fld.value_offset,
            "general.alignment",
        )
    return alignment


def layout_problems(header: HeaderView) -> list[Problem]:
    """Tensor placement problems: misaligned data, data outside the file, overlaps."""
    problems: list[Problem] = []
    if not header.tensors:
        return problems
    size = header.file_size
    base = header.data_offset
    for i, t in enumerate(header.tensors):
        what = f"tensor[{i}] {t.name!r} offset"
        if t.offset % header.alignment:
            problems.append(
                (
                    GGUFLayoutError,
                    f"data offset {t.offset:,} is not a multiple of the alignment "
                    f"{header.alignment}",
                    t.offset_at,
                    what,
                )
            )
        start = base + t.offset
        end = start + t.n_bytes
        # Data outside the file is reported as truncation whether the file was
        # cut short or the offset lies: from the bytes alone the two look alike.
        if start > size or (start == size and t.n_bytes):
            problems.append(
                (
                    GGUFTruncatedError,
                    f"data starts at file offset {start:,}, past the end of the file "
                    f"({size:,} bytes): the file is truncated or the offset is wrong",
                    t.offset_at,
                    what,
                )
            )
        elif end > size:
            problems.append(
                (
                    GGUFTruncatedError,
                    f"data [{start:,}, {end:,}) runs {end - size:,} bytes past the end of the "
                    f"file ({size:,} bytes): tensor data is truncated",
                    t.offset_at,
                    what,
                )
            )
    ordered = sorted(range(len(header.tensors)), key=lambda j: header.tensors[j].offset)
    for a, b in pairwise(ordered):
        ta, tb = header.tensors[a], header.tensors[b]
        if ta.offset + ta.n_bytes > tb.offset:
            problems.append(
                (
                    GGUFLayoutError,
                    f"data overlaps tensor[{a}] {ta.name!r} "
                    f"([{ta.offset:,}, {ta.offset + ta.n_bytes:,}) vs [{tb.offset:,}, ...))",
                    tb.offset_at,
                    f"tensor[{b}] {tb.name!r} offset",
                )
            )
    return problems


def layout_summary(header: HeaderView) -> dict[str, Any]:
    """Alignment and placement facts, measured from the tensor infos (offsets in bytes)."""
    base = header.data_offset
    misaligned = [t.name for t in header.tensors if t.offset % header.alignment]
    outside = [t.name for t in header.tensors if base + t.offset + t.n_bytes > header.file_size]
    running = 0
    contiguous = True
    for t in header.tensors:  # llama.cpp additionally wants each tensor right after the last
        if t.offset != running:
            contiguous = False
        running += t.n_bytes + (-t.n_bytes % header.alignment)
    return {
        "alignment": header.alignment,
        "alignment_from": "general.alignment"
        if "general.alignment" in header.fields
        else "default",
        "data_offset": header.data_offset,
        "data_offset_aligned": header.data_offset % header.alignment == 0,
        "misaligned_tensors": misaligned,
        "tensors_outside_file": outside,
        "contiguous_in_order": contiguous,
        "problems": list(header.layout_problems),
    }
