"""claims.testing.recorded_store: the store a real Ollama wrote, assembled for the tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from claims.probes.errors import InputError
from claims.testing.recorded_store import assemble, printed_list, recorded_store_dir

ROOT = Path(__file__).resolve().parents[2]
SOURCE = recorded_store_dir()
CAPTURE = ROOT.parent / "shared" / "captures" / "ollama-0.31.2" / "store"
GEMMA = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
VERSIONS = ["0.31.2", "0.32.15"]


def test_the_fixture_is_the_capture_byte_for_byte():
    if not CAPTURE.is_dir():
        pytest.skip(f"the captures are not at {CAPTURE} (they exist only in the workplace)")
    captured = sorted(p.relative_to(CAPTURE) for p in CAPTURE.rglob("*") if p.is_file())
    assert captured, "empty capture"
    for rel in captured:
        assert (SOURCE / rel).read_bytes() == (CAPTURE / rel).read_bytes(), rel


@pytest.mark.parametrize("version", VERSIONS)
def test_the_config_blob_is_named_by_its_digest(version: str):
    for blob in (recorded_store_dir(version) / "blobs").iterdir():
        assert blob.name == "sha256-" + hashlib.sha256(blob.read_bytes()).hexdigest()


@pytest.mark.parametrize("version", VERSIONS)
def test_the_manifest_is_what_the_recorded_server_listed(version: str):
    """Its sha256 is the digest /api/tags gave, its layers add up to the listed size."""
    store = recorded_store_dir(version)
    manifest = store / "manifests" / "registry.ollama.ai" / "library" / "gemma3" / "270m"
    tags = json.loads((ROOT / "fixtures" / f"ollama-{version}" / "http" / "03-tags.json")
                      .read_text("utf-8"))["body"]["models"][0]
    assert hashlib.sha256(manifest.read_bytes()).hexdigest() == tags["digest"]
    layers = json.loads(manifest.read_bytes())
    assert layers["config"]["size"] + sum(x["size"] for x in layers["layers"]) == tags["size"]


@pytest.mark.parametrize(("version", "listed_id"),
                         [("0.31.2", "6aa2aebbe67a"), ("0.32.15", "14f8ac0fb3c4")])
def test_assembly_puts_the_model_blob_under_the_manifests_digest(
    tmp_path, version: str, listed_id: str
):
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF stand-in")  # the name is all assembly looks at
    root = assemble(recorded_store_dir(version), tmp_path / "store", gguf, GEMMA)
    assert (root / "blobs" / f"sha256-{GEMMA}").read_bytes() == b"GGUF stand-in"
    # `ollama list` of each release, as recorded: the ID is the manifest digest's head.
    assert printed_list(root) == {"gemma3:270m": listed_id}


def test_a_file_the_manifest_does_not_name_is_refused(tmp_path):
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"x")
    with pytest.raises(InputError, match="no manifest names"):
        assemble(SOURCE, tmp_path / "store", gguf, "0" * 64)
    with pytest.raises(InputError, match="no manifests/ folder"):
        assemble(tmp_path, tmp_path / "other", gguf, GEMMA)
