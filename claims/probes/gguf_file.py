"""GGUF files: header facts read without touching tensor data.

A GGUF file is a fixed 24-byte preamble (magic ``GGUF``, version, tensor
count, metadata count), the metadata key/value pairs, one info record per
tensor (name, dimensions, ggml type, offset), padding up to the alignment,
and then the tensor data. :func:`read_header` walks everything up to the data
section and nothing after it, so its cost follows the size of the header and
not the size of the file: a 25 GB file with the same header reads as fast as a
250 MB one.

Why not ``gguf.GGUFReader``: it is the reference and the tests use it as the
cross-check, but it builds one numpy view per metadata item (262,144 token
strings cost it about 9 s on the Gemma 3 270M file, measured in
tests/probes/test_gguf_speed.py) and it does not bound its reads: on hostile
files it fails with IndexError or RecursionError, loops forever, or accepts the
file silently (tests/probes/test_gguf_hostile.py keeps the observations). This
reader records large arrays as (type, count, offset) and materialises them only
on request, checks every count and length against the bytes left in the file
before using it, and reports a malformed file as one :class:`GGUFFormatError`
naming the file, the byte offset, the field and the problem.

Numbers: offsets and sizes are in bytes; ``dims`` are in GGUF order (ne[0],
the fastest-varying dimension, first); bits per parameter are file or tensor
bytes x 8 / parameter count.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
from gguf.constants import (
    GGML_QUANT_SIZES,
    GGUF_DEFAULT_ALIGNMENT,
    GGMLQuantizationType,
    GGUFValueType,
    LlamaFileType,
)

from claims.probes.errors import InputError

__all__ = [
    "GGUF_MAGIC",
    "ArrayInfo",
    "GGUFArray",
    "GGUFFormatError",
    "GGUFHeader",
    "GGUFKeyError",
    "GGUFLayoutError",
    "GGUFNotGGUFError",
    "GGUFTensorError",
    "GGUFTruncatedError",
    "GGUFValueError",
    "GGUFVersionError",
    "MetadataField",
    "TensorInfo",
    "TokenizerInfo",
    "inspect",
    "read_header",
    "read_magic",
]

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
PREAMBLE_BYTES = 24  # magic u32, version u32, tensor_count u64, kv_count u64

# Limits the GGUF specification (ggml/docs/gguf.md) and llama.cpp's reader impose;
# checking them early keeps a hostile header from steering the walk.
MAX_KEY_BYTES = 65_535  # "keys ... must be at most 2^16-1 bytes long"
MAX_TENSOR_NAME_BYTES = 64  # GGML_MAX_NAME
MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_ELEMENTS = 2**63 - 1  # llama.cpp keeps element counts in int64
# No limit of the format: this reader's own cap on one decoded string (the largest
# real metadata strings, chat templates, are tens of KB), so a lying length inside
# a huge file cannot make it copy gigabytes into memory.
MAX_STRING_BYTES = 64 << 20
# llama.cpp accepts no nested arrays at all; gguf-py writes and reads them. A
# small cap keeps the recursive walk far from Python's recursion limit.
MAX_ARRAY_DEPTH = 16
# Arrays up to this many items are decoded while the header is read; longer
# ones are recorded as (type, count, offset) and decoded on request.
EAGER_ARRAY_ITEMS = 64

_SCALAR_FORMATS: dict[GGUFValueType, str] = {
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
_SCALAR_SIZES = {t: struct.calcsize("<" + f) for t, f in _SCALAR_FORMATS.items()}
_NUMPY_CODES = {
    GGUFValueType.UINT8: "u1",
    GGUFValueType.INT8: "i1",
    GGUFValueType.UINT16: "u2",
    GGUFValueType.INT16: "i2",
    GGUFValueType.UINT32: "u4",
    GGUFValueType.INT32: "i4",
    GGUFValueType.FLOAT32: "f4",
    GGUFValueType.BOOL: "u1",
    GGUFValueType.UINT64: "u8",
    GGUFValueType.INT64: "i8",
    GGUFValueType.FLOAT64: "f8",
}
# The smallest encoding of one item, used to refuse counts that cannot fit in
# the bytes left before any loop or allocation is sized by them.
_MIN_ITEM_BYTES = {**_SCALAR_SIZES, GGUFValueType.STRING: 8, GGUFValueType.ARRAY: 12}
_MIN_KV_BYTES = 8 + 1 + 4 + 1  # key length, a 1-byte key, value type, a 1-byte value
_MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8  # name length, n_dims, ggml type, offset
_VALUE_TYPE_IDS = {int(t) for t in GGUFValueType}


# --- errors --------------------------------------------------------------------
class GGUFFormatError(InputError):
    """The file is not a well-formed GGUF; the message names file, offset and field."""


class GGUFNotGGUFError(GGUFFormatError):
    """The file does not start with the magic bytes ``GGUF``."""


class GGUFVersionError(GGUFFormatError):
    """A GGUF version this reader does not handle (only 2 and 3 exist in use)."""


class GGUFTruncatedError(GGUFFormatError):
    """A field, count, length or tensor's data runs past the end of the file.

    The file was cut short or the number lies; from the bytes alone the two
    look alike, so both are reported as truncation.
    """


class GGUFValueError(GGUFFormatError):
    """A metadata value that cannot be decoded: unknown type, bad bool, bad UTF-8, deep nesting."""


class GGUFKeyError(GGUFFormatError):
    """A metadata key that is empty, too long, not UTF-8, or repeated."""


class GGUFTensorError(GGUFFormatError):
    """A tensor info record with an unknown ggml type, bad dimensions or a repeated name."""


class GGUFLayoutError(GGUFFormatError):
    """A bad general.alignment, or tensor data misaligned or overlapping."""


# --- records -------------------------------------------------------------------
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


@dataclass(frozen=True)
class TokenizerInfo:
    """The tokenizer fields a GGUF carries (tokenizer.ggml.* and tokenizer.chat_template)."""

    model: str | None
    pre: str | None
    token_count: int | None
    special_ids: dict[str, int]
    has_chat_template: bool
    chat_template_bytes: int | None
    keys: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "pre": self.pre,
            "token_count": self.token_count,
            "special_ids": dict(self.special_ids),
            "has_chat_template": self.has_chat_template,
            "chat_template_bytes": self.chat_template_bytes,
            "keys": list(self.keys),
        }


# --- reading ---------------------------------------------------------------------
class _Walker:
    """A bounds-checked cursor over the mapped file (one per read)."""

    def __init__(self, buf: mmap.mmap | bytes, size: int, path: str, order: str) -> None:
        self.buf = buf
        self.size = size
        self.path = path
        self.order = order
        self._structs: dict[str, struct.Struct] = {}

    def fail(
        self, cls: type[GGUFFormatError], problem: str, offset: int, fieldname: str
    ) -> GGUFFormatError:
        return cls(problem, path=self.path, offset=offset, field=fieldname)

    def need(self, offset: int, nbytes: int, fieldname: str, at: int | None = None) -> None:
        """Bytes [offset, offset + nbytes) must lie in the file; ``at`` is the
        offset to report when it differs (the length field that asked for them)."""
        if nbytes > self.size - offset:
            left = max(0, self.size - offset)
            where = "" if at is None else f" from offset {offset:,}"
            raise self.fail(
                GGUFTruncatedError,
                f"needs {nbytes:,} bytes{where} but only {left:,} remain before the end of the "
                f"file ({self.size:,} bytes)",
                offset if at is None else at,
                fieldname,
            )

    def _struct(self, fmt: str) -> struct.Struct:
        s = self._structs.get(fmt)
        if s is None:
            s = self._structs[fmt] = struct.Struct(self.order + fmt)
        return s

    def scalar(self, offset: int, fmt: str, fieldname: str) -> Any:
        s = self._struct(fmt)
        self.need(offset, s.size, fieldname)
        return s.unpack_from(self.buf, offset)[0]

    def u32(self, offset: int, fieldname: str) -> int:
        return int(self.scalar(offset, "I", fieldname))

    def u64(self, offset: int, fieldname: str) -> int:
        return int(self.scalar(offset, "Q", fieldname))

    def raw_string(
        self,
        offset: int,
        fieldname: str,
        limit: int | None = None,
        too_long: type[GGUFFormatError] = GGUFFormatError,
    ) -> tuple[bytes, int]:
        """A length-prefixed string's bytes and the offset after it."""
        length = self.u64(offset, f"{fieldname} length")
        if limit is not None and length > limit:
            raise self.fail(
                too_long if length <= self.size else GGUFTruncatedError,
                f"length {length:,} exceeds the limit of {limit:,} bytes"
                + ("" if length <= self.size else f" and the file's {self.size:,} bytes"),
                offset,
                fieldname,
            )
        self.need(offset + 8, length, f"{fieldname} length", at=offset)
        return bytes(self.buf[offset + 8 : offset + 8 + length]), offset + 8 + length

    def check_count(
        self, start: int, count: int, min_item: int, at: int, fieldname: str, what: str
    ) -> None:
        """Refuse a count whose items, from ``start``, cannot fit in the bytes left.

        Checked before any loop or allocation is sized by the count; ``at`` is
        where the count itself is stored (the offset the error reports).
        """
        left = max(0, self.size - start)
        if count * min_item > left:
            raise self.fail(
                GGUFTruncatedError,
                f"{what} count {count:,} needs at least {count * min_item:,} bytes but only "
                f"{left:,} remain after offset {start:,} (file is {self.size:,} bytes)",
                at,
                fieldname,
            )

    def value_type(self, raw: int, offset: int, fieldname: str) -> GGUFValueType:
        if raw not in _VALUE_TYPE_IDS:
            raise self.fail(
                GGUFValueError,
                f"value type {raw} is not a GGUF value type (0-{max(_VALUE_TYPE_IDS)})",
                offset,
                fieldname,
            )
        return GGUFValueType(raw)

    # -- arrays ---------------------------------------------------------------------
    def skip_strings(self, offset: int, count: int, fieldname: str) -> int:
        """The offset after ``count`` length-prefixed strings.

        This is the one loop whose length follows the data (262,144 token
        strings in the Gemma file), so the fast path does no per-item checks:
        a length running past the end makes the next unpack fail or leaves the
        cursor beyond the file, and only then is the walk repeated item by item
        to name the string at fault.
        """
        unpack = self._struct("Q").unpack_from
        buf = self.buf
        off = offset
        try:
            for _ in range(count):
                off += 8 + unpack(buf, off)[0]
        except (struct.error, OverflowError):  # an offset past the buffer (or past 2^63)
            off = self.size + 1
        if off <= self.size:
            return off
        off = offset
        for i in range(count):
            length = self.u64(off, f"{fieldname} item {i} length")
            self.need(off + 8, length, f"{fieldname} item {i} length", at=off)
            off += 8 + length
        return off  # pragma: no cover - the careful walk raises first

    def skip_items(
        self, offset: int, item_type: GGUFValueType, count: int, depth: int, fieldname: str
    ) -> tuple[int, GGUFValueType, int]:
        """The offset after ``count`` items of ``item_type``, the innermost item type
        (of the first items) and the nesting depth below this level (1: flat)."""
        self.check_count(
            offset,
            count,
            _MIN_ITEM_BYTES[item_type],
            offset - 8,
            f"{fieldname} count",
            "array item",
        )
        size = _SCALAR_SIZES.get(item_type)
        if size is not None:
            end = offset + count * size
            if item_type is GGUFValueType.BOOL and count:
                bad = np.flatnonzero(np.frombuffer(self.buf, np.uint8, count, offset) > 1)
                if bad.size:
                    i = int(bad[0])
                    raise self.fail(
                        GGUFValueError,
                        "bool item is neither 0 nor 1",
                        offset + i,
                        f"{fieldname} item {i}",
                    )
            return end, item_type, 1
        if item_type is GGUFValueType.STRING:
            return self.skip_strings(offset, count, fieldname), item_type, 1
        # An array of arrays: every item carries its own item type and count.
        if depth >= MAX_ARRAY_DEPTH:
            raise self.fail(
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
            sub_type = self.value_type(self.u32(off, f"{sub} item type"), off, f"{sub} item type")
            sub_count = self.u64(off + 4, f"{sub} count")
            off, sub_leaf, sub_depth = self.skip_items(
                off + 12, sub_type, sub_count, depth + 1, sub
            )
            if i == 0:
                leaf = sub_leaf
            below = max(below, sub_depth + 1)
        return off, leaf, below

    def decode_items(
        self, offset: int, item_type: GGUFValueType, count: int, fieldname: str
    ) -> list[Any]:
        """Decode ``count`` items (already bounds-checked by :meth:`skip_items`)."""
        code = _NUMPY_CODES.get(item_type)
        if code is not None:
            dtype = np.dtype(self.order + code)
            values = np.frombuffer(self.buf, dtype, count, offset).tolist()
            if item_type is GGUFValueType.BOOL:
                return [bool(v) for v in values]
            return list(values)
        out: list[Any] = []
        off = offset
        for i in range(count):
            if item_type is GGUFValueType.STRING:
                raw, end = self.raw_string(
                    off, f"{fieldname} item {i}", MAX_STRING_BYTES, too_long=GGUFValueError
                )
                out.append(self.text(raw, off, f"{fieldname} item {i}"))
            else:
                sub_type = GGUFValueType(self.u32(off, fieldname))
                sub_count = self.u64(off + 4, fieldname)
                end, _, _ = self.skip_items(off + 12, sub_type, sub_count, 1, fieldname)
                out.append(self.decode_items(off + 12, sub_type, sub_count, f"{fieldname}[{i}]"))
            off = end
        return out

    def text(
        self, raw: bytes, offset: int, fieldname: str, cls: type[GGUFFormatError] = GGUFValueError
    ) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(
                cls,
                f"string is not valid UTF-8 (byte {exc.start} of {len(raw)}: "
                f"{raw[exc.start : exc.start + 4]!r})",
                offset,
                fieldname,
            ) from None


def _open_regular(path: Path) -> tuple[int, os.stat_result]:
    """Open a regular file for reading; anything else (folder, FIFO, device) is refused.

    O_NONBLOCK keeps open() of a FIFO from waiting for a writer; it changes
    nothing for regular files. The type is checked on the open descriptor, so
    the file cannot be swapped between check and use.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise InputError(f"cannot open: {exc.strerror}", path=str(path)) from None
    try:
        st = os.fstat(fd)
    except OSError as exc:  # pragma: no cover - fstat on an open fd rarely fails
        os.close(fd)
        raise InputError(f"cannot stat: {exc.strerror}", path=str(path)) from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise InputError("not a regular file", path=str(path))
    return fd, st


def read_header(path: Path | str, *, verify_layout: bool = True) -> GGUFHeader:
    """Read a GGUF file's header: everything before the tensor data, nothing after.

    Raises a :class:`GGUFFormatError` subclass for a malformed file and
    :class:`~claims.probes.errors.InputError` for one that cannot be read. With
    ``verify_layout=False`` tensor placement problems (misaligned, overlapping or
    out-of-file data) are collected in ``header.layout_problems`` instead of
    raised, so a caller can measure them itself.
    """
    p = Path(path)
    fd, st = _open_regular(p)
    try:
        size = st.st_size
        if size < PREAMBLE_BYTES:
            try:
                head = os.read(fd, PREAMBLE_BYTES)
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror}", path=str(p)) from None
            return _parse(head, len(head), p, st, verify_layout)
        # A read-only mapping: only the header's pages are ever touched, so the
        # cost does not grow with the tensor data behind them. (As with any
        # mapping, a file truncated by another process while it is read ends
        # the process with SIGBUS; gguf.GGUFReader's np.memmap shares that.)
        try:
            mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot map the file: {exc}", path=str(p)) from None
        with mm:
            return _parse(mm, size, p, st, verify_layout)
    finally:
        os.close(fd)


def _parse(
    buf: mmap.mmap | bytes, size: int, path: Path, st: os.stat_result, verify_layout: bool
) -> GGUFHeader:
    spath = str(path)
    if size < 4 or bytes(buf[:4]) != GGUF_MAGIC:
        if size < 4:
            raise GGUFTruncatedError(
                f"file has {size} bytes, fewer than the 4-byte magic",
                path=spath,
                offset=0,
                field="magic",
            )
        raise GGUFNotGGUFError(
            f"magic is {bytes(buf[:4])!r} ({bytes(buf[:4]).hex(' ')}), not b'GGUF' (47 47 55 46)",
            path=spath,
            offset=0,
            field="magic",
        )
    w = _Walker(buf, size, spath, "<")
    raw_version = w.u32(4, "version")
    order: Literal["little", "big"] = "little"
    version = raw_version
    # gguf-py's rule: a version whose low 16 bits read as zero was written in the
    # other byte order (versions are small numbers).
    if raw_version & 0xFFFF == 0:
        order = "big"
        version = struct.unpack(">I", struct.pack("<I", raw_version))[0]
        w.order = ">"
        w._structs.clear()
    if version not in SUPPORTED_VERSIONS:
        hint = " (version 1 used 32-bit counts and is obsolete)" if version == 1 else ""
        raise GGUFVersionError(
            f"GGUF version {version} ({order}-endian) is not supported; this reader handles "
            f"versions {', '.join(map(str, SUPPORTED_VERSIONS))}{hint}",
            path=spath,
            offset=4,
            field="version",
        )
    tensor_count = w.u64(8, "tensor_count")
    kv_count = w.u64(16, "kv_count")
    off = PREAMBLE_BYTES
    w.check_count(off, kv_count, _MIN_KV_BYTES, 16, "kv_count", "metadata")
    w.check_count(off, tensor_count, _MIN_TENSOR_INFO_BYTES, 8, "tensor_count", "tensor")

    fields: dict[str, MetadataField] = {}
    for i in range(kv_count):
        fld, off = _read_kv(w, off, i)
        prior = fields.get(fld.key)
        if prior is not None:
            raise GGUFKeyError(
                f"duplicate key {fld.key!r} (first at offset {prior.offset})",
                path=spath,
                offset=fld.offset,
                field=f"kv[{i}] key",
            )
        fields[fld.key] = fld
    # Checked again now that the metadata's size is known.
    w.check_count(off, tensor_count, _MIN_TENSOR_INFO_BYTES, 8, "tensor_count", "tensor")

    alignment = GGUF_DEFAULT_ALIGNMENT
    align_field = fields.get("general.alignment")
    if align_field is not None:
        if align_field.type is not GGUFValueType.UINT32:
            raise GGUFLayoutError(
                f"general.alignment has type {align_field.type_name}; it must be uint32",
                path=spath,
                offset=align_field.offset,
                field="general.alignment",
            )
        alignment = int(align_field.scalar)  # type: ignore[arg-type]
        if alignment == 0 or alignment & (alignment - 1):
            raise GGUFLayoutError(
                f"alignment {alignment} is not a non-zero power of two",
                path=spath,
                offset=align_field.value_offset,
                field="general.alignment",
            )

    tensors: list[TensorInfo] = []
    names: dict[str, int] = {}
    for i in range(tensor_count):
        info, off = _read_tensor_info(w, off, i)
        if info.name in names:
            raise GGUFTensorError(
                f"duplicate tensor name {info.name!r} (first is tensor {names[info.name]})",
                path=spath,
                offset=info.info_offset,
                field=f"tensor[{i}] name",
            )
        names[info.name] = i
        tensors.append(info)

    header_end = off
    data_offset = header_end + (-header_end % alignment)
    header = GGUFHeader(
        path=path,
        file_size=size,
        mtime_ns=st.st_mtime_ns,
        byte_order=order,
        version=version,
        tensor_count=tensor_count,
        kv_count=kv_count,
        fields=fields,
        tensors=tuple(tensors),
        alignment=alignment,
        header_end=header_end,
        data_offset=data_offset,
    )
    problems = _layout_problems(header)
    if problems and verify_layout:
        cls, problem, where, what = problems[0]
        raise cls(problem, path=spath, offset=where, field=what)
    header.layout_problems.extend(
        f"offset {where}, {what}: {problem}" for _, problem, where, what in problems
    )
    return header


def _read_kv(w: _Walker, off: int, i: int) -> tuple[MetadataField, int]:
    start = off
    tag = f"kv[{i}]"
    length = w.u64(off, f"{tag} key length")
    if length == 0:
        raise GGUFKeyError("key is empty", path=w.path, offset=off, field=f"{tag} key")
    if length > MAX_KEY_BYTES:
        cls = GGUFKeyError if length <= w.size else GGUFTruncatedError
        raise cls(
            f"key length {length:,} exceeds the GGUF limit of {MAX_KEY_BYTES:,} bytes"
            + ("" if length <= w.size else f" and the file's {w.size:,} bytes"),
            path=w.path,
            offset=off,
            field=f"{tag} key length",
        )
    w.need(off + 8, length, f"{tag} key length", at=off)
    raw = bytes(w.buf[off + 8 : off + 8 + length])
    try:
        key = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GGUFKeyError(
            f"key is not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 4]!r}); "
            f"key bytes {raw[:40]!r}",
            path=w.path,
            offset=off + 8,
            field=f"{tag} key",
        ) from None
    off += 8 + length
    tag = f"{tag} {key!r}"
    vtype = w.value_type(w.u32(off, f"{tag} value type"), off, f"{tag} value type")
    off += 4
    value_offset = off
    if vtype is GGUFValueType.ARRAY:
        item_type = w.value_type(w.u32(off, f"{tag} item type"), off, f"{tag} item type")
        count = w.u64(off + 4, f"{tag} count")
        first = off + 12
        end, leaf, depth = w.skip_items(first, item_type, count, 1, tag)
        info = ArrayInfo(item_type, count, first, end - first, depth, leaf)
        eager = None
        if count <= EAGER_ARRAY_ITEMS:
            eager = tuple(w.decode_items(first, item_type, count, tag))
        return MetadataField(
            key, vtype, start, value_offset, end - value_offset, array=info, eager=eager
        ), end
    if vtype is GGUFValueType.STRING:
        raw_value, end = w.raw_string(
            off, f"{tag} value", MAX_STRING_BYTES, too_long=GGUFValueError
        )
        text = w.text(raw_value, off, f"{tag} value")
        return MetadataField(key, vtype, start, value_offset, end - off, scalar=text), end
    fmt = _SCALAR_FORMATS[vtype]
    value = w.scalar(off, fmt, f"{tag} value")
    if vtype is GGUFValueType.BOOL:
        if value > 1:
            raise GGUFValueError(
                f"bool value is {value}, neither 0 nor 1",
                path=w.path,
                offset=off,
                field=f"{tag} value",
            )
        value = bool(value)
    size = _SCALAR_SIZES[vtype]
    return MetadataField(key, vtype, start, value_offset, size, scalar=value), off + size


def _read_tensor_info(w: _Walker, off: int, i: int) -> tuple[TensorInfo, int]:
    start = off
    tag = f"tensor[{i}]"
    raw, off = w.raw_string(
        off, f"{tag} name", limit=MAX_TENSOR_NAME_BYTES, too_long=GGUFTensorError
    )
    name = w.text(raw, start + 8, f"{tag} name", GGUFTensorError)
    tag = f"{tag} {name!r}"
    n_dims = w.u32(off, f"{tag} n_dims")
    if n_dims > MAX_DIMS:
        raise GGUFTensorError(
            f"n_dims is {n_dims:,}; ggml tensors have at most {MAX_DIMS}",
            path=w.path,
            offset=off,
            field=f"{tag} n_dims",
        )
    off += 4
    dims_at = off
    w.need(off, 8 * n_dims, f"{tag} dims")
    dims = tuple(int(d) for d in struct.unpack_from(f"{w.order}{n_dims}Q", w.buf, off))
    n_elements = 1
    for d in dims:
        n_elements *= d
    if n_elements > MAX_ELEMENTS:
        raise GGUFTensorError(
            f"dims {list(dims)} give {n_elements:,} elements, more than 2^63-1",
            path=w.path,
            offset=dims_at,
            field=f"{tag} dims",
        )
    off += 8 * n_dims
    ggml_type = w.u32(off, f"{tag} ggml type")
    try:
        qtype = GGMLQuantizationType(ggml_type)
        block, type_size = GGML_QUANT_SIZES[qtype]
    except (ValueError, KeyError):
        raise GGUFTensorError(
            f"ggml type {ggml_type} is not a known tensor type",
            path=w.path,
            offset=off,
            field=f"{tag} ggml type",
        ) from None
    if dims and dims[0] % block:
        raise GGUFTensorError(
            f"first dimension {dims[0]:,} is not a multiple of the {qtype.name} block size {block}",
            path=w.path,
            offset=dims_at,
            field=f"{tag} dims",
        )
    off += 4
    offset_at = off
    offset = w.u64(off, f"{tag} offset")
    off += 8
    n_bytes = n_elements // block * type_size
    return TensorInfo(name, dims, ggml_type, offset, start, n_elements, n_bytes, offset_at), off


def _layout_problems(header: GGUFHeader) -> list[tuple[type[GGUFFormatError], str, int, str]]:
    """Tensor placement problems: (error class, problem, file offset, field)."""
    problems: list[tuple[type[GGUFFormatError], str, int, str]] = []
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


# --- the header ------------------------------------------------------------------
@dataclass(frozen=True)
class GGUFHeader:
    """Everything before a GGUF file's tensor data, plus figures derived from it."""

    path: Path
    file_size: int
    mtime_ns: int
    byte_order: Literal["little", "big"]
    version: int
    tensor_count: int
    kv_count: int
    fields: dict[str, MetadataField]
    tensors: tuple[TensorInfo, ...]
    alignment: int
    header_end: int  # end of the last tensor info record
    data_offset: int  # header_end rounded up to the alignment
    layout_problems: list[str] = field(default_factory=list)
    # one GGUFArray per key, so the item offsets a walk found are kept
    _arrays: dict[str, GGUFArray] = field(default_factory=dict, repr=False, compare=False)

    # -- metadata ---------------------------------------------------------------------
    def __contains__(self, key: object) -> bool:
        return key in self.fields

    def keys(self) -> list[str]:
        return list(self.fields)

    def get(self, key: str, default: Any = None) -> Any:
        """A value: scalars as Python values, arrays decoded in full (nested as lists)."""
        fld = self.fields.get(key)
        if fld is None:
            return default
        if fld.array is None:
            return fld.scalar
        if fld.eager is not None:
            return _thaw(fld.eager)
        return self.array(key)[:]

    def array(self, key: str) -> GGUFArray:
        """A lazily decoded view of an array value (index or slice it)."""
        fld = self.fields.get(key)
        if fld is None:
            raise KeyError(key)
        if fld.array is None:
            raise TypeError(f"{key} is a {fld.type_name}, not an array")
        arr = self._arrays.get(key)
        if arr is None:
            arr = self._arrays[key] = GGUFArray(self, fld)
        return arr

    # -- tensors ------------------------------------------------------------------------
    @cached_property
    def census(self) -> dict[str, int]:
        """Number of tensors per ggml type, most common first."""
        return dict(Counter(t.type_name for t in self.tensors).most_common())

    @cached_property
    def parameter_count(self) -> int:
        return sum(t.n_elements for t in self.tensors)

    @cached_property
    def tensor_data_bytes(self) -> int:
        """Bytes of tensor data from ggml block sizes (padding excluded)."""
        return sum(t.n_bytes for t in self.tensors)

    @property
    def file_bits_per_parameter(self) -> float | None:
        """Whole-file bytes x 8 / parameters (what a download or a blob costs)."""
        n = self.parameter_count
        return self.file_size * 8 / n if n else None

    @property
    def tensor_bits_per_parameter(self) -> float | None:
        """Tensor-data bytes x 8 / parameters (the quantization's own cost)."""
        n = self.parameter_count
        return self.tensor_data_bytes * 8 / n if n else None

    @property
    def file_type(self) -> tuple[int, str] | None:
        """general.file_type and its llama.cpp label (15 -> 'MOSTLY_Q4_K_M')."""
        value = self.get("general.file_type")
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        try:
            return value, LlamaFileType(value).name
        except ValueError:
            return value, f"unknown ({value})"

    def layout(self) -> dict[str, Any]:
        """Alignment and placement facts, measured from the tensor infos."""
        base = self.data_offset
        misaligned = [t.name for t in self.tensors if t.offset % self.alignment]
        outside = [t.name for t in self.tensors if base + t.offset + t.n_bytes > self.file_size]
        running = 0
        contiguous = True
        for t in self.tensors:  # llama.cpp additionally wants each tensor right after the last
            if t.offset != running:
                contiguous = False
            running += t.n_bytes + (-t.n_bytes % self.alignment)
        return {
            "alignment": self.alignment,
            "alignment_from": "general.alignment"
            if "general.alignment" in self.fields
            else "default",
            "data_offset": self.data_offset,
            "data_offset_aligned": self.data_offset % self.alignment == 0,
            "misaligned_tensors": misaligned,
            "tensors_outside_file": outside,
            "contiguous_in_order": contiguous,
            "problems": list(self.layout_problems),
        }

    # -- tokenizer ------------------------------------------------------------------------
    @cached_property
    def tokenizer(self) -> TokenizerInfo:
        keys = tuple(k for k in self.fields if k.startswith("tokenizer."))
        tokens = self.fields.get("tokenizer.ggml.tokens")
        specials = {
            k.removeprefix("tokenizer.ggml.").removesuffix("_token_id"): v
            for k in keys
            if k.startswith("tokenizer.ggml.")
            and k.endswith("_token_id")
            and isinstance(v := self.get(k), int)
            and not isinstance(v, bool)
        }
        template = self.fields.get("tokenizer.chat_template")
        model = self.get("tokenizer.ggml.model")
        pre = self.get("tokenizer.ggml.pre")
        return TokenizerInfo(
            model=model if isinstance(model, str) else None,
            pre=pre if isinstance(pre, str) else None,
            token_count=tokens.array.count
            if tokens is not None and tokens.array is not None
            else None,
            special_ids=specials,
            has_chat_template=template is not None,
            chat_template_bytes=(template.nbytes - 8)
            if template is not None and template.array is None
            else None,
            keys=keys,
        )

    def tokens(self, ids: Iterable[int]) -> dict[int, str]:
        """Token strings at the given ids, decoded on demand."""
        arr = self.array("tokenizer.ggml.tokens")
        return {i: arr[i] for i in ids}

    def to_json(self) -> dict[str, Any]:
        return inspect_header(self)


def _thaw(items: tuple[Any, ...]) -> list[Any]:
    return [(_thaw(v) if isinstance(v, tuple) else v) for v in items]


class GGUFArray(Sequence[Any]):
    """An array value decoded on request: ``arr[i]``, ``arr[a:b]``, ``len(arr)``.

    Fixed-size items are read straight from their byte range. Strings and
    nested arrays need the offsets of the items before them: a walk over the
    mapped file finds them, only as far as asked (about 20 ms for all of
    Gemma's 262,144 tokens), and is kept; a slice then reads only its own bytes.
    The file is reopened for each read and must not have changed (size, mtime)
    since the header was read.
    """

    def __init__(self, header: GGUFHeader, fld: MetadataField) -> None:
        assert fld.array is not None
        self.header = header
        self.field = fld
        self.info = fld.array
        self._starts: list[int] = [0]  # item offsets relative to info.offset, grown on demand

    def __len__(self) -> int:
        return self.info.count

    @property
    def item_type(self) -> GGUFValueType:
        return self.info.item_type

    @property
    def _order(self) -> str:
        return ">" if self.header.byte_order == "big" else "<"

    @contextmanager
    def _unchanged_file(self) -> Iterator[int]:
        h = self.header
        fd, st = _open_regular(h.path)
        try:
            if (st.st_size, st.st_mtime_ns) != (h.file_size, h.mtime_ns):
                raise InputError(
                    "file changed since its header was read", path=str(h.path), field=self.field.key
                )
            yield fd
        finally:
            os.close(fd)

    def _read(self, start: int, nbytes: int) -> bytes:
        with self._unchanged_file() as fd:
            data = os.pread(fd, nbytes, start)
        if len(data) != nbytes:
            raise GGUFTruncatedError(
                f"read {len(data):,} of {nbytes:,} bytes",
                path=str(self.header.path),
                offset=start,
                field=self.field.key,
            )
        return data

    def _index(self, stop: int) -> list[int]:
        """Item offsets (relative to the first item) known at least up to ``stop``.

        The walk goes only as far as asked and resumes where it stopped, so
        ``tokens[:8]`` costs eight steps and ``tokens[100264]`` a walk to there.
        """
        starts = self._starts
        if len(starts) > stop:
            return starts
        base = self.info.offset
        end = base + self.info.nbytes
        steps = stop + 1 - len(starts)
        changed = InputError(
            "file changed since its header was read (array walk disagrees)",
            path=str(self.header.path),
            field=self.field.key,
        )
        with self._unchanged_file() as fd, mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as mm:
            off = base + starts[-1]
            if self.info.item_type is GGUFValueType.STRING:
                # Bounds were checked when the header was read (same size and
                # mtime); a walk that disagrees means the bytes changed anyway.
                unpack = struct.Struct(self._order + "Q").unpack_from
                append = starts.append
                try:
                    for _ in range(steps):
                        off += 8 + unpack(mm, off)[0]
                        append(off - base)
                except (struct.error, OverflowError):
                    raise changed from None
            else:
                w = _Walker(mm, self.header.file_size, str(self.header.path), self._order)
                for _ in range(steps):
                    where = f"{self.field.key!r}[{len(starts) - 1}]"
                    sub_type = w.value_type(w.u32(off, where), off, where)
                    sub_count = w.u64(off + 4, where)
                    off, _, _ = w.skip_items(off + 12, sub_type, sub_count, 1, where)
                    starts.append(off - base)
        if off > end or (len(starts) == self.info.count + 1 and off != end):
            raise changed
        return starts

    def _decode_range(self, first: int, stop: int) -> list[Any]:
        if first >= stop:
            return []
        item_type = self.info.item_type
        tag = repr(self.field.key)
        size = _SCALAR_SIZES.get(item_type)
        if size is not None:
            blob = self._read(self.info.offset + first * size, (stop - first) * size)
            w = _Walker(blob, len(blob), str(self.header.path), self._order)
            return w.decode_items(0, item_type, stop - first, tag)
        starts = self._index(stop)
        lo, hi = starts[first], starts[stop]
        if item_type is GGUFValueType.STRING:
            # Checked before reading, so a request costs at most the cap per item.
            for i in range(first, stop):
                length = starts[i + 1] - starts[i] - 8
                if length > MAX_STRING_BYTES:
                    raise GGUFValueError(
                        f"string of {length:,} bytes exceeds this reader's limit of "
                        f"{MAX_STRING_BYTES:,}",
                        path=str(self.header.path),
                        offset=self.info.offset + starts[i],
                        field=f"{tag} item {i}",
                    )
        blob = self._read(self.info.offset + lo, hi - lo)
        w = _Walker(blob, len(blob), str(self.header.path), self._order)
        out: list[Any] = []
        for i in range(first, stop):
            off = starts[i] - lo
            where = f"{tag} item {i}"
            if item_type is GGUFValueType.STRING:
                raw, _ = w.raw_string(off, where)
                out.append(w.text(raw, self.info.offset + starts[i], where))
            else:
                sub_type = GGUFValueType(w.u32(off, where))
                sub_count = w.u64(off + 4, where)
                out.append(w.decode_items(off + 12, sub_type, sub_count, where))
        return out

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        n = self.info.count
        if isinstance(index, slice):
            first, stop, step = index.indices(n)
            if step == 1:
                return self._decode_range(first, stop)
            wanted = range(first, stop, step)
            if not wanted:
                return []
            lo = min(wanted)
            items = self._decode_range(lo, max(wanted) + 1)
            return [items[i - lo] for i in wanted]
        i = int(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{self.field.key}: index {index} out of range for {n} items")
        return self._decode_range(i, i + 1)[0]

    def __iter__(self) -> Iterator[Any]:
        return iter(self[:])


# --- summaries -------------------------------------------------------------------
def _preview(value: Any, limit: int = 200) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "…"
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return str(value)
    if isinstance(value, list):
        return [_preview(v, limit) for v in value]
    return value


def inspect_header(header: GGUFHeader, *, head_items: int = 8) -> dict[str, Any]:
    """A JSON-able summary of a header (what ``claims inspect gguf`` prints)."""
    metadata: dict[str, Any] = {}
    for key, fld in header.fields.items():
        if fld.array is None:
            entry: dict[str, Any] = {"type": fld.type_name, "value": _preview(fld.scalar)}
            if isinstance(fld.scalar, str) and len(fld.scalar) > 200:
                entry["length"] = len(fld.scalar)
        else:
            entry = {
                "type": "array",
                "item_type": type_name(fld.array.item_type),
                "count": fld.array.count,
                "offset": fld.array.offset,
                "bytes": fld.array.nbytes,
            }
            shown = min(head_items, fld.array.count)
            entry["head"] = _preview(
                header.array(key)[:shown] if fld.eager is None else _thaw(fld.eager)[:shown]
            )
        metadata[key] = entry
    ft = header.file_type
    return {
        "path": str(header.path),
        "file_bytes": header.file_size,
        "magic": GGUF_MAGIC.hex(" "),
        "version": header.version,
        "byte_order": header.byte_order,
        "tensor_count": header.tensor_count,
        "kv_count": header.kv_count,
        "alignment": header.alignment,
        "header_bytes": header.header_end,
        "data_offset": header.data_offset,
        "file_type": {"id": ft[0], "label": ft[1]} if ft else None,
        "parameter_count": header.parameter_count,
        "tensor_data_bytes": header.tensor_data_bytes,
        "bits_per_parameter": {
            "file": header.file_bits_per_parameter,
            "tensor_data": header.tensor_bits_per_parameter,
        },
        "tensor_census": header.census,
        "layout": header.layout(),
        "tokenizer": header.tokenizer.to_json(),
        "metadata": metadata,
        "tensors": [
            {
                "name": t.name,
                "type": t.type_name,
                "dims": list(t.dims),
                "offset": t.offset,
                "bytes": t.n_bytes,
            }
            for t in header.tensors
        ],
    }


def inspect(path: Path | str) -> dict[str, Any]:
    """Read a GGUF header and summarise it; raises InputError for malformed input."""
    return inspect_header(read_header(path))


def read_magic(path: Path | str) -> bytes:
    """The first four bytes of a file (a GGUF file starts with b'GGUF' = 47 47 55 46)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(p)) from None
    if len(head) < 4:
        raise InputError(
            f"file has {len(head)} bytes, fewer than the 4-byte magic", path=str(p), offset=0
        )
    return head
