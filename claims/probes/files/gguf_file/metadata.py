"""GGUF metadata key/value pairs: the record of one pair and how it is read.

A pair is a key (a u64 length, then UTF-8 bytes), a u32 value type and the
value (see :mod:`.values`). Scalars and strings are decoded while the header is
read; arrays up to ``EAGER_ARRAY_ITEMS`` items too, longer ones are recorded as
an :class:`~.values.ArrayInfo` and decoded on request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gguf.constants import GGUFValueType

from claims.probes.files.gguf_file.errors import GGUFKeyError, GGUFTruncatedError, GGUFValueError
from claims.probes.files.gguf_file.source import Source
from claims.probes.files.gguf_file.values import (
    MAX_STRING_BYTES,
    SCALAR_FORMATS,
    SCALAR_SIZES,
    ArrayInfo,
    decode_items,
    decode_text,
    raw_string,
    skip_items,
    type_name,
    value_type,
)

__all__ = [
    "EAGER_ARRAY_ITEMS",
    "MAX_KEY_BYTES",
    "MIN_KV_BYTES",
    "MetadataField",
    "read_kv",
    "read_metadata",
]

MAX_KEY_BYTES = 65_535  # GGUF specification: "keys ... must be at most 2^16-1 bytes long"
# Arrays up to this many items are decoded while the header is read; longer
# ones are recorded as (type, count, offset) and decoded on request.
EAGER_ARRAY_ITEMS = 64
MIN_KV_BYTES = 8 + 1 + 4 + 1  # key length, a 1-byte key, value type, a 1-byte value


@dataclass(frozen=True, slots=True)
class MetadataField:
    """One metadata key/value pair as stored."""

    key: str
    type: GGUFValueType
    offset: int  # where the key's length field starts
    value_offset: int  # where the value starts (after its type field)
    nbytes: int  # bytes of the value
    scalar: int | float | bool | str | None = None  # set for non-array types
    array: ArrayInfo | None = None  # set for arrays
    eager: tuple[Any, ...] | None = None  # a short array's items, decoded while reading

    @property
    def type_name(self) -> str:
        if self.array is not None:
            return f"array[{type_name(self.array.item_type)}]"
        return type_name(self.type)


def _read_key(src: Source, off: int, tag: str) -> tuple[str, int]:
    """Key ``tag`` at ``off`` and the offset after it."""
    length = src.u64(off, f"{tag} key length")
    if length == 0:
        raise src.fail(GGUFKeyError, "key is empty", off, f"{tag} key")
    if length > MAX_KEY_BYTES:
        beyond = length > src.size
        raise src.fail(
            GGUFTruncatedError if beyond else GGUFKeyError,
            f"key length {length:,} exceeds the GGUF limit of {MAX_KEY_BYTES:,} bytes"
            + (f" and the file's {src.size:,} bytes" if beyond else ""),
            off,
            f"{tag} key length",
        )
    src.need(off + 8, length, f"{tag} key length", at=off)
    raw = src.read(off + 8, length, f"{tag} key")
    try:
        key = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise src.fail(
            GGUFKeyError,
            f"key is not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 4]!r}); "
            f"key bytes {raw[:40]!r}",
            off + 8,
            f"{tag} key",
        ) from None
    return key, off + 8 + length


def read_kv(src: Source, off: int, i: int) -> tuple[MetadataField, int]:
    """Pair ``i``, whose key length field starts at ``off``, and the offset after it."""
    start = off
    key, off = _read_key(src, off, f"kv[{i}]")
    tag = f"kv[{i}] {key!r}"
    vtype = value_type(src, src.u32(off, f"{tag} value type"), off, f"{tag} value type")
    off += 4
    value_offset = off
    if vtype is GGUFValueType.ARRAY:
        item_type = value_type(src, src.u32(off, f"{tag} item type"), off, f"{tag} item type")
        count = src.u64(off + 4, f"{tag} count")
        first = off + 12
        end, leaf, depth = skip_items(src, first, item_type, count, 1, tag)
        info = ArrayInfo(item_type, count, first, end - first, depth, leaf)
        eager = None
        if count <= EAGER_ARRAY_ITEMS:
            eager = tuple(decode_items(src, first, item_type, count, tag))
        return MetadataField(
            key, vtype, start, value_offset, end - value_offset, array=info, eager=eager
        ), end
    if vtype is GGUFValueType.STRING:
        raw_value, end = raw_string(
            src, off, f"{tag} value", MAX_STRING_BYTES, too_long=GGUFValueError
        )
        text = decode_text(src, raw_value, off, f"{tag} value")
        return MetadataField(key, vtype, start, value_offset, end - off, scalar=text), end
    value = src.scalar(off, SCALAR_FORMATS[vtype], f"{tag} value")
    if vtype is GGUFValueType.BOOL:
        if value > 1:
            raise src.fail(
                GGUFValueError, f"bool value is {value}, neither 0 nor 1", off, f"{tag} value"
            )
        value = bool(value)
    size = SCALAR_SIZES[vtype]
    return MetadataField(key, vtype, start, value_offset, size, scalar=value), off + size


def read_metadata(src: Source, off: int, count: int) -> tuple[dict[str, MetadataField], int]:
    """``count`` pairs from ``off`` by key, in file order, and the offset after them.

    The count has been checked against the bytes left; a repeated key is a
    GGUFKeyError naming both places.
    """
    fields: dict[str, MetadataField] = {}
    for i in range(count):
        fld, off = read_kv(src, off, i)
        if (prior := fields.setdefault(fld.key, fld)) is not fld:
            problem = f"duplicate key {fld.key!r} (first at offset {prior.offset})"
            raise src.fail(GGUFKeyError, problem, fld.offset, f"kv[{i}] key")
    return fields, off
