"""The hostile GGUF corpus and its builder, for the GGUF reader's own tests.

fixtures/hostile/make_gguf_corpus.py lays the corpus out by hand (a script,
standard library only, run to rewrite fixtures/hostile/gguf/); the tests import
it to build variants of its valid base file and to check the corpus is fresh.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from claims.probes.files.gguf_file import inspect_header, read_header
from claims.testing import recordings

__all__ = ["corpus_builder", "corpus_dir", "read_everything", "reader_reference"]


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
