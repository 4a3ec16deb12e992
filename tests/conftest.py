"""Fixtures shared by the claim tests and the probes' own tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


def load_recorded(doc_id: str) -> dict[str, Any]:
    """Figures a document reports, transcribed into fixtures/recorded/<DOC>.json."""
    data: dict[str, Any] = json.loads((FIXTURES / "recorded" / f"{doc_id}.json").read_text("utf-8"))
    return data


@pytest.fixture(scope="session")
def recorded() -> Callable[[str], dict[str, Any]]:
    return load_recorded


@pytest.fixture(scope="session")
def gemma_gguf() -> Path:
    """The real Gemma 3 270M Q4_K_M GGUF from PyPI, assembled and verified once."""
    from claims.probes.artifacts import gemma_gguf as locate

    return locate()


@pytest.fixture
def make_gguf(tmp_path: Path) -> Callable[..., Path]:
    """Write a small GGUF with gguf.GGUFWriter: a few metadata keys and tensors."""
    import numpy as np
    import gguf

    def build(
        name: str = "tiny.gguf",
        arch: str = "llama",
        tensors: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        alignment: int | None = None,
    ) -> Path:
        path = tmp_path / name
        writer = gguf.GGUFWriter(str(path), arch)
        if alignment is not None:
            writer.add_custom_alignment(alignment)
        writer.add_block_count(2)
        writer.add_context_length(128)
        for key, value in (metadata or {}).items():
            if isinstance(value, str):
                writer.add_string(key, value)
            elif isinstance(value, bool):
                writer.add_bool(key, value)
            elif isinstance(value, int):
                writer.add_uint32(key, value)
            elif isinstance(value, float):
                writer.add_float32(key, value)
            elif isinstance(value, list):
                writer.add_array(key, value)
        for tname, array in (tensors or {"weight": np.arange(64, dtype=np.float32).reshape(8, 8)}).items():
            writer.add_tensor(tname, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        return path

    return build
