"""What the header's helpers read of a parsed header, as a protocol.

:class:`~claims.probes.files.gguf_file.header.GGUFHeader` is built from the
arrays, layout and tokenizer modules, so they cannot import it: each reads the
parts of a header it needs through :class:`HeaderView`, which ``GGUFHeader``
satisfies (mypy checks that where the header hands itself to them). Sizes and
offsets are in bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol

from claims.probes.files.gguf_file.metadata import MetadataField
from claims.probes.files.gguf_file.tensors import TensorInfo

__all__ = ["HeaderView"]


class HeaderView(Protocol):
    """A parsed GGUF header: the file it came from, its metadata and its tensor table."""

    @property
    def path(self) -> Path: ...
    @property
    def file_size(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...
    @property
    def byte_order(self) -> Literal["little", "big"]: ...
    @property
    def fields(self) -> dict[str, MetadataField]: ...
    @property
    def tensors(self) -> tuple[TensorInfo, ...]: ...
    @property
    def alignment(self) -> int: ...
    @property
    def data_offset(self) -> int: ...
    @property
    def layout_problems(self) -> list[str]: ...

    def get(self, key: str, default: Any = None) -> Any: ...
