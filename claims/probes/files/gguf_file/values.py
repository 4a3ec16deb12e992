"""GGUF metadata values: their types, their encodings, and how they are decoded.

A value is a scalar (fixed-size numbers and bools), a string (a u64 byte
length, then UTF-8 bytes) or an array (a u32 item type, a u64 count, then the
items; items may themselves be arrays). The functions here walk or decode
values at a file offset through a :class:`~.source.Source`, checking every
count and length against the bytes left before using it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
from gguf.constants import GGUFValueType

from claims.probes.files.gguf_file.errors import GGUFFormatError, GGUFTruncatedError, GGUFValueError
from claims.probes.files.gguf_file.source import CHUNK_BYTES, Source

__all__ = [
    "MAX_ARRAY_DEPTH",
    "MAX_STRING_BYTES",
    "SCALAR_FORMATS",
    "SCALAR_SIZES",
    "ArrayInfo",
    "decode_items",
    "decode_text",
    "raw_string",
    "skip_items",
    "skip_strings",
    "thaw",
    "type_name",
    "value_type",
    "walk_strings",
]

# No limit of the format: this reader's own cap on one decoded string (the largest
# real metadata strings, chat templates, are tens of KB), so a lying length inside
# a huge file cannot make it copy gigabytes into memory.
MAX_STRING_BYTES = 64 << 20
# llama.cpp accepts no nested arrays at all; gguf-py writes and reads them. A
# small cap keeps the recursive walk far from Python's recursion limit.
MAX_ARRAY_DEPTH = 16

SCALAR_FORMATS: dict[GGUFValueType, str] = {
    GGUFValueType.UINT8: "B",
    GGUFValueType.INT8: "b",
    GGUFValueType.UINT16: "H",
    GGUFValueType.INT16: "h",
    GGUFValueType.UINT32: "I",
    GGUFValueType.INT32: "i",
    GGUFValueType.FLOAT32: "f",
    GGUFValueType.BOOL: "B",
    GGUFValueType.UINT64: "Q",
    GGUFValueType.INT64: "q",
    GGUFValueType.FLOAT64: "d",
}
SCALAR_SIZES = {t: struct.calcsize("<" + f) for t, f in SCALAR_FORMATS.items()}
# The smallest encoding of one item, used to refuse counts that cannot fit in
# the bytes left before any loop or allocation is sized by them.
MIN_ITEM_BYTES = {**SCALAR_SIZES, GGUFValueType.STRING: 8, GGUFValueType.ARRAY: 12}
_VALUE_TYPE_IDS = {int(t) for t in GGUFValueType}


def type_name(value_type: GGUFValueType) -> str:
    """'uint32', 'string', 'array'... as the GGUF specification spells the types."""
    return value_type.name.lower()


@dataclass(frozen=True, slots=True)
class ArrayInfo:
    """Where an array value lies in the file; its items are decoded only on request."""

    item_type: GGUFValueType
    count: int
    offset: int  # byte offset of the first item
    nbytes: int  # bytes the items occupy
    depth: int  # 1 for a flat array, 2 for an array of arrays, ...
    leaf_type: GGUFValueType  # item type of the innermost arrays (as far as known)


def thaw(items: tuple[Any, ...]) -> list[Any]:
    """A decoded array kept as (nested) tuples, as (nested) lists."""
    return [(thaw(v) if isinstance(v, tuple) else v) for v in items]


# --- single values -------------------------------------------------------------------
def value_type(src: Source, raw: int, offset: int, fieldname: str) -> GGUFValueType:
    """The value type a raw u32 names; an unknown number is a GGUFValueError."""
    if raw not in _VALUE_TYPE_IDS:
        raise src.fail(
            GGUFValueError,
            f"value type {raw} is not a GGUF value type (0-{max(_VALUE_TYPE_IDS)})",
            offset,
            fieldname,
        )
    return GGUFValueType(raw)


def raw_string(
    src: Source,
    offset: int,
    fieldname: str,
    limit: int | None = None,
    too_long: type[GGUFFormatError] = GGUFFormatError,
) -> tuple[bytes, int]:
    """A length-prefixed string's bytes and the offset after it.

    A length over ``limit`` raises ``too_long`` (or truncation when it is also
    more than the file holds) before anything is read.
    """
    length = src.u64(offset, f"{fieldname} length")
    if limit is not None and length > limit:
        raise src.fail(
            too_long if length <= src.size else GGUFTruncatedError,
            f"length {length:,} exceeds the limit of {limit:,} bytes"
            + ("" if length <= src.size else f" and the file's {src.size:,} bytes"),
            offset,
            fieldname,
        )
    src.need(offset + 8, length, f"{fieldname} length", at=offset)
    return src.read(offset + 8, length, fieldname), offset + 8 + length


def decode_text(
    src: Source,
    raw: bytes,
    offset: int,
    fieldname: str,
    cls: type[GGUFFormatError] = GGUFValueError,
) -> str:
    """``raw`` as UTF-8; invalid bytes raise ``cls`` naming the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise src.fail(
            cls,
            f"string is not valid UTF-8 (byte {exc.start} of {len(raw)}: "
            f"{raw[exc.start : exc.start + 4]!r})",
            offset,
            fieldname,
        ) from None


# --- arrays ------------------------------------------------------------------------------
def walk_strings(
    src: Source, offset: int, count: int, fieldname: str, ends: list[int] | None = None
) -> int:
    """The offset after ``count`` length-prefixed strings from ``offset``, with no
    per-item checks; past ``src.size`` when a length runs off the end of the file
    (the walk stops there). ``ends``, when given, receives each string's end offset.

    This is the one loop whose length follows the data (262,144 token strings
    in the Gemma file), so it steps through one window at a time and lets
    ``unpack_from`` find a length field that leaves the window; only then is a
    new window read from that field on.
    """
    unpack = src.struct("Q").unpack_from
    off = offset
    done = 0
    while done < count:
        if off + 8 > src.size:  # no room for the next length field
            return max(off, src.size + 1)
        window, at = src.span(off, 8, f"{fieldname} item {done} length")
        pos = off - at
        i = done
        try:
            if ends is None:
                for i in range(done, count):  # noqa: B007 - read after the loop
                    pos += 8 + unpack(window, pos)[0]
            else:
                for i in range(done, count):  # noqa: B007 - read after the loop
                    pos += 8 + unpack(window, pos)[0]
                    ends.append(at + pos)
            i = count
        except (struct.error, OverflowError):
            pass  # item i's length field is not (wholly) in this window: read on from it
        done = i
        off = at + pos
    return off


def skip_strings(src: Source, offset: int, count: int, fieldname: str) -> int:
    """The offset after ``count`` length-prefixed strings, all inside the file.

    The fast walk does no per-item checks; when it ends past the file, the
    walk is repeated item by item to name the string at fault.
    """
    off = walk_strings(src, offset, count, fieldname)
    if off <= src.size:
        return off
    off = offset
    for i in range(count):
        length = src.u64(off, f"{fieldname} item {i} length")
        src.need(off + 8, length, f"{fieldname} item {i} length", at=off)
        off += 8 + length
    return off  # pragma: no cover - the careful walk raises first


def _check_bools(src: Source, offset: int, count: int, fieldname: str) -> None:
    """Every bool item is 0 or 1; read a window at a time, so a long array costs
    no more memory than one window."""
    pos, end = offset, offset + count
    while pos < end:
        window, at = src.span(pos, min(CHUNK_BYTES, end - pos), f"{fieldname} item")
        n = min(end, at + len(window)) - pos
        bad = np.flatnonzero(np.frombuffer(window, np.uint8, n, pos - at) > 1)
        if bad.size:
            i = pos - offset + int(bad[0])
            raise src.fail(
                GGUFValueError, "bool item is neither 0 nor 1", offset + i, f"{fieldname} item {i}"
            )
        pos += n


def skip_items(
    src: Source, offset: int, item_type: GGUFValueType, count: int, depth: int, fieldname: str
) -> tuple[int, GGUFValueType, int]:
    """The offset after ``count`` items of ``item_type``, the innermost item type
    (of the first items) and the nesting depth below this level (1: flat)."""
    src.check_count(
        offset, count, MIN_ITEM_BYTES[item_type], offset - 8, f"{fieldname} count", "array item"
    )
    size = SCALAR_SIZES.get(item_type)
    if size is not None:
        if item_type is GGUFValueType.BOOL:
            _check_bools(src, offset, count, fieldname)
        return offset + count * size, item_type, 1
    if item_type is GGUFValueType.STRING:
        return skip_strings(src, offset, count, fieldname), item_type, 1
    # An array of arrays: every item carries its own item type and count.
    if depth >= MAX_ARRAY_DEPTH:
        raise src.fail(
            GGUFValueError,
            f"arrays nested more than {MAX_ARRAY_DEPTH} deep (llama.cpp accepts no nesting)",
            offset,
            fieldname,
        )
    off = offset
    leaf = GGUFValueType.ARRAY
    below = 1
    for i in range(count):
        sub = f"{fieldname}[{i}]"
        sub_type = value_type(src, src.u32(off, f"{sub} item type"), off, f"{sub} item type")
        sub_count = src.u64(off + 4, f"{sub} count")
        off, sub_leaf, sub_depth = skip_items(src, off + 12, sub_type, sub_count, depth + 1, sub)
        if i == 0:
            leaf = sub_leaf
        below = max(below, sub_depth + 1)
    return off, leaf, below


def decode_items(
    src: Source, offset: int, item_type: GGUFValueType, count: int, fieldname: str
) -> list[Any]:
    """Decode ``count`` items (already bounds-checked by :func:`skip_items`)."""
    fmt = SCALAR_FORMATS.get(item_type)
    if fmt is not None:
        if not count:
            return []
        dtype = np.dtype(src.order + fmt)  # numpy reads struct's format characters
        window, at = src.span(offset, count * dtype.itemsize, fieldname)
        values = np.frombuffer(window, dtype, count, offset - at).tolist()
        if item_type is GGUFValueType.BOOL:
            return [bool(v) for v in values]
        return list(values)
    out: list[Any] = []
    off = offset
    for i in range(count):
        where = f"{fieldname} item {i}"
        if item_type is GGUFValueType.STRING:
            raw, end = raw_string(src, off, where, MAX_STRING_BYTES, too_long=GGUFValueError)
            out.append(decode_text(src, raw, off, where))
        else:
            sub_type = value_type(src, src.u32(off, fieldname), off, fieldname)
            sub_count = src.u64(off + 4, fieldname)
            end, _, _ = skip_items(src, off + 12, sub_type, sub_count, 1, fieldname)
            out.append(decode_items(src, off + 12, sub_type, sub_count, f"{fieldname}[{i}]"))
        off = end
    return out
