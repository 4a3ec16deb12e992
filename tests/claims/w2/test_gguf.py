"""W2 claims about the model file itself, checked on GGUF files on disk."""

from __future__ import annotations

import pytest

from claims.probes.gguf_file import read_magic

pytestmark = pytest.mark.offline


def _hex(data: bytes) -> str:
    return " ".join(f"{b:02x}" for b in data)


@pytest.mark.claim("W2-GGUF-MAGIC")
def test_generated_gguf_starts_with_magic(check, make_gguf):
    path = make_gguf()
    check.source = "fixture"
    check.against("magic bytes", _hex(read_magic(path)))


@pytest.mark.claim("W2-GGUF-MAGIC")
def test_real_gemma_gguf_starts_with_magic(check, gemma_gguf):
    check.source = "fixture"
    check.fact("gemma_gguf", str(gemma_gguf))
    check.against("magic bytes", _hex(read_magic(gemma_gguf)))
