"""The GGUF header: what :func:`read_header` reads, and the figures derived from it.

The header is the 24-byte preamble (magic ``GGUF``, version, tensor count,
metadata count), the metadata pairs and the tensor info records; the data
section follows at the next multiple of the alignment. Reading stops there.
"""

from __future__ import annotations

import dataclasses
import struct
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from gguf.constants import LlamaFileType

from claims.file_cache import FileMemo
from claims.probes.errors import InputError
from claims.probes.files.gguf_file.arrays import GGUFArray
from claims.probes.files.gguf_file.errors import (
    GGUFNotGGUFError,
    GGUFTruncatedError,
    GGUFVersionError,
)
from claims.probes.files.gguf_file.layout import alignment_of, layout_problems, layout_summary
from claims.probes.files.gguf_file.metadata import MIN_KV_BYTES, MetadataField, read_metadata
from claims.probes.files.gguf_file.source import Source
from claims.probes.files.gguf_file.tensors import (
    MIN_TENSOR_INFO_BYTES,
    TensorInfo,
    read_tensor_infos,
)
from claims.probes.files.gguf_file.tokenizer import TokenizerInfo, tokenizer_info
from claims.probes.files.gguf_file.values import thaw

__all__ = [
    "GGUF_MAGIC",
    "PREAMBLE_BYTES",
    "SUPPORTED_VERSIONS",
    "GGUFHeader",
    "read_header",
    "read_magic",
]

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
PREAMBLE_BYTES = 24  # magic u32, version u32, tensor_count u64, kv_count u64


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
            return thaw(fld.eager)
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
        return layout_summary(self)

    # -- tokenizer ------------------------------------------------------------------------
    @cached_property
    def tokenizer(self) -> TokenizerInfo:
        return tokenizer_info(self)

    def tokens(self, ids: Iterable[int]) -> dict[int, str]:
        """Token strings at the given ids, decoded on demand."""
        arr = self.array("tokenizer.ggml.tokens")
        return {i: arr[i] for i in ids}



def read_header(path: Path | str, *, verify_layout: bool = True, reuse: bool = True
                ) -> GGUFHeader:
    """Read a GGUF file's header: everything before the tensor data, nothing after.

    Raises a :class:`GGUFFormatError` subclass for a malformed file (or one
    truncated while it is read) and :class:`~claims.probes.errors.InputError`
    for one that cannot be read. With ``verify_layout=False`` tensor placement
    problems (misaligned, overlapping or out-of-file data) are collected in
    ``header.layout_problems`` instead of raised, so a caller can measure them
    itself. With ``reuse`` (the default) a header this process parsed from the file, unchanged
    since (:func:`claims.file_cache.settled_signature`), is returned again, as a copy of its
    own; ``reuse=False`` parses the file whatever (a timing of the parse, a count of reads).
    """
    p = Path(path)

    def parse() -> GGUFHeader:
        with Source.open(p) as src:
            return _parse(src, p, verify_layout)

    # Each caller gets a copy of its own of the kept parse, the first one too.
    return _fresh(_HEADERS.get(p, parse, key=verify_layout)) if reuse else parse()


def _fresh(header: GGUFHeader) -> GGUFHeader:
    """A header of its own for each caller: the parse is shared, but not what one caller's
    use of it leaves behind (array walks, cached properties, its lists and dicts)."""
    return dataclasses.replace(header, fields=dict(header.fields),
                               layout_problems=list(header.layout_problems), _arrays={})


# A file's header parsed once per process while the file is unchanged (claims.file_cache's
# rule): the main job's claim tests read the bundled Gemma file's header five times, each a
# walk over its 262,144 token strings. A few are kept.
MAX_KEPT_HEADERS = 8
_HEADERS: FileMemo[GGUFHeader] = FileMemo(MAX_KEPT_HEADERS)


def _read_magic_and_version(src: Source) -> tuple[Literal["little", "big"], int]:
    """The byte order and version; switches ``src`` to the file's byte order."""
    if src.size < 4:
        raise src.fail(
            GGUFTruncatedError,
            f"file has {src.size} bytes, fewer than the 4-byte magic",
            0,
            "magic",
        )
    magic = src.read(0, 4, "magic")
    if magic != GGUF_MAGIC:
        raise src.fail(
            GGUFNotGGUFError,
            f"magic is {magic!r} ({magic.hex(' ')}), not b'GGUF' (47 47 55 46)",
            0,
            "magic",
        )
    raw_version = src.u32(4, "version")
    order: Literal["little", "big"] = "little"
    version = raw_version
    # gguf-py's rule: a version whose low 16 bits read as zero was written in the
    # other byte order (versions are small numbers).
    if raw_version & 0xFFFF == 0:
        order = "big"
        version = struct.unpack(">I", struct.pack("<I", raw_version))[0]
        src.set_order(">")
    if version not in SUPPORTED_VERSIONS:
        hint = " (version 1 used 32-bit counts and is obsolete)" if version == 1 else ""
        raise src.fail(
            GGUFVersionError,
            f"GGUF version {version} ({order}-endian) is not supported; this reader handles "
            f"versions {', '.join(map(str, SUPPORTED_VERSIONS))}{hint}",
            4,
            "version",
        )
    return order, version


def _parse(src: Source, path: Path, verify_layout: bool) -> GGUFHeader:
    order, version = _read_magic_and_version(src)
    tensor_count = src.u64(8, "tensor_count")
    kv_count = src.u64(16, "kv_count")
    off = PREAMBLE_BYTES
    src.check_count(off, kv_count, MIN_KV_BYTES, 16, "kv_count", "metadata")
    src.check_count(off, tensor_count, MIN_TENSOR_INFO_BYTES, 8, "tensor_count", "tensor")

    fields, off = read_metadata(src, off, kv_count)
    # Checked again now that the metadata's size is known.
    src.check_count(off, tensor_count, MIN_TENSOR_INFO_BYTES, 8, "tensor_count", "tensor")
    alignment = alignment_of(src, fields)
    tensors, off = read_tensor_infos(src, off, tensor_count)

    header = GGUFHeader(
        path=path,
        file_size=src.size,
        mtime_ns=src.mtime_ns,
        byte_order=order,
        version=version,
        tensor_count=tensor_count,
        kv_count=kv_count,
        fields=fields,
        tensors=tensors,
        alignment=alignment,
        header_end=off,
        data_offset=off + (-off % alignment),
    )
    problems = layout_problems(header)
    if problems and verify_layout:
        cls, problem, where, what = problems[0]
        raise src.fail(cls, problem, where, what)
    header.layout_problems.extend(
        f"offset {where}, {what}: {problem}" for _, problem, where, what in problems
    )
    return header


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
