"""The fake ``ollama serve``'s store side: what a create does to the layers it reuses.

A real create sets the time of every existing layer it reuses to now (``touchLayer``,
Ollama's ``manifest/layer.go``, 0.31.2 and 0.32.15). Which layers an import reuses
depends on the release's config blob: 0.32.15's names no weights, so a model of the
same family, size and quantization shares it; 0.31.2's names the weights (seen on both
real releases: fixtures/ollama-*/store, and the user-store change a real 0.32.15 made
through a private server's hard links).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from claims.probes.files.ollama_store import MODEL_MEDIA_TYPE, OllamaStore
from claims.testing.fake_ollama import IMPORTED_AS, FakeModel
from claims.testing.fake_ollama_serve import FakeServe
from claims.testing.ollama_versions import ENV
from claims.testing.store_builder import StoreWriter, write_tiny_gguf

OLD = 1_000_000_000_000_000_000  # ns: a time no create would set


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store holding one model shaped as the fake says an import is (IMPORTED_AS)."""
    writer = StoreWriter(tmp_path / "models")
    gguf = write_tiny_gguf(tmp_path / "m.gguf", seed=1, n_tokens=32)
    blob = writer.blob_file(gguf, MODEL_MEDIA_TYPE, link="copy")[0]
    writer.model("gemma3:270m", [blob], family=IMPORTED_AS[0], file_type=IMPORTED_AS[2],
                 model_type=IMPORTED_AS[1])
    for path in (tmp_path / "models" / "blobs").iterdir():
        os.utime(path, ns=(OLD, OLD))
    return tmp_path / "models"


def _fake(store: Path) -> FakeServe:
    family, size, quantization = IMPORTED_AS
    model = FakeModel(name="gemma3:270m", digest="0" * 64, size=1, family=family,
                      parameter_size=size, quantization=quantization,
                      model_info={"general.architecture": family}, template="{{ .Prompt }}")
    return FakeServe(blobs={}, models=[model], store=store)


def _touched(store: Path) -> set[str]:
    manifest = OllamaStore(store).manifest("gemma3:270m")
    kinds = {manifest.config.blob_name: "config", manifest.model_layer().blob_name: "weights"}
    return {kinds[p.name] for p in (store / "blobs").iterdir() if p.stat().st_mtime_ns != OLD}


@pytest.mark.parametrize(("version", "touched"), [("0.32.15", {"config"}), ("0.31.2", set())])
def test_importing_other_weights_reuses_the_config_only_where_it_names_no_weights(
    store: Path, monkeypatch: pytest.MonkeyPatch, version: str, touched: set[str]
):
    monkeypatch.setenv(ENV, version)
    other = "sha256:" + hashlib.sha256(b"other weights").hexdigest()
    _fake(store).reuse_layers(weights=other, base=None)
    assert _touched(store) == touched


@pytest.mark.parametrize("version", ["0.31.2", "0.32.15"])
def test_importing_the_same_weights_or_creating_from_a_model_reuses_its_layers(
    store: Path, monkeypatch: pytest.MonkeyPatch, version: str
):
    monkeypatch.setenv(ENV, version)
    fake = _fake(store)
    weights = OllamaStore(store).manifest("gemma3:270m").model_layer().digest
    fake.reuse_layers(weights=weights, base=None)
    assert _touched(store) == {"config", "weights"}
    for path in (store / "blobs").iterdir():
        os.utime(path, ns=(OLD, OLD))
    fake.reuse_layers(weights=None, base=fake.models["gemma3:270m"])
    assert _touched(store) == {"config", "weights"}
