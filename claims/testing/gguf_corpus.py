"""The hostile GGUF corpus and its builder, for the GGUF reader's own tests.

fixtures/hostile/make_gguf_corpus.py lays the corpus out by hand (a script,
standard library only, run to rewrite fixtures/hostile/gguf/); the tests import
it to build variants of its valid base file and to check the corpus is fresh.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from claims.probes.files.gguf_file import inspect_header, read_header
from claims.probes.files.gguf_file.source import Source
from claims.testing import recordings

__all__ = [
    "ReadWork",
    "corpus_builder",
    "corpus_dir",
    "counting_reads",
    "read_everything",
    "reader_reference",
]


def corpus_dir() -> Path:
    """fixtures/hostile/gguf, in the fixtures folder :mod:`claims.testing.recordings` names."""
    return recordings.fixtures_dir() / "hostile" / "gguf"


@cache
def corpus_builder() -> ModuleType:
    """fixtures/hostile/make_gguf_corpus.py, imported by path (it is a script, not a package)."""
    path = corpus_dir().parent / "make_gguf_corpus.py"
    spec = importlib.util.spec_from_file_location("make_gguf_corpus", path)
    if spec is None or spec.loader is None:  # pragma: no cover - the script ships with the suite
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: its dataclasses look their module up by name.
    sys.modules.setdefault("make_gguf_corpus", module)
    spec.loader.exec_module(module)
    return module


def read_everything(path: Path) -> None:
    """Read a GGUF header, decode every value and summarise it: all a user can ask of it."""
    header = read_header(path)
    for key in header.fields:
        header.get(key)
    inspect_header(header)


@dataclass
class ReadWork:
    """The reader's work, counted where it touches the file: a busy machine changes none of it.

    ``opens``: files opened (the header, then each lazily decoded array again);
    ``calls``: requests for bytes or a scalar (:meth:`Source.span`, which every read goes
    through); ``bytes_read``: bytes ``os.pread`` returned; ``reads``: each read's
    (offset, bytes), in order.
    """

    opens: int = 0
    calls: int = 0
    bytes_read: int = 0
    reads: list[tuple[int, int]] = field(default_factory=list)

    @property
    def end(self) -> int:
        """One past the last file byte read (0: none read)."""
        return max((at + n for at, n in self.reads), default=0)


@contextlib.contextmanager
def counting_reads() -> Iterator[ReadWork]:
    """Count the GGUF reader's work on every file it opens until the block ends (one thread)."""
    work = ReadWork()
    span, pread, init = Source.span, Source._pread, Source.__init__

    def counted_init(self: Source, *args: Any, **kwargs: Any) -> None:
        work.opens += 1
        init(self, *args, **kwargs)

    def counted_span(self: Source, offset: int, nbytes: int, fieldname: str) -> tuple[bytes, int]:
        work.calls += 1
        return span(self, offset, nbytes, fieldname)

    def counted_pread(self: Source, offset: int, nbytes: int) -> bytes:
        data = pread(self, offset, nbytes)
        work.bytes_read += len(data)
        work.reads.append((offset, len(data)))
        return data

    Source.span, Source._pread = counted_span, counted_pread  # type: ignore[method-assign]
    Source.__init__ = counted_init  # type: ignore[method-assign]
    try:
        yield work
    finally:
        Source.span, Source._pread = span, pread  # type: ignore[method-assign]
        Source.__init__ = init  # type: ignore[method-assign]


def reader_reference(path: Path) -> dict[str, Any]:
    """What gguf.GGUFReader reads from a file, as plain values (the cross-check's reference).

    Field types are the integer GGUF value types; the reader itself is dropped,
    so a session can keep the answers of its slow read without its memory map.
    """
    import gguf

    reader = gguf.GGUFReader(path)
    fields = {
        name: ([int(t) for t in f.types], f.contents())
        for name, f in reader.fields.items()
        if not name.startswith("GGUF.")
    }
    tensors = [
        (
            t.name,
            [int(d) for d in t.shape],
            int(t.tensor_type),
            int(t.data_offset),
            int(t.n_elements),
            int(t.n_bytes),
        )
        for t in reader.tensors
    ]
    return {
        "fields": fields,
        "tensors": tensors,
        "alignment": int(reader.alignment),
        "data_offset": int(reader.data_offset),
        "byte_order": "big" if reader.endianess == gguf.GGUFEndian.BIG else "little",
        "version": int(reader.fields["GGUF.version"].contents()),
    }
