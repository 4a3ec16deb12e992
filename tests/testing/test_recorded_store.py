"""claims.testing.recorded_store: the store a real Ollama wrote, assembled for the tests."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from claims.probes.errors import InputError
from claims.testing.recorded_store import (
    assemble,
    printed_list,
    recorded_store_dir,
    shared_blob_store_dir,
)

SOURCE = recorded_store_dir()
SHARED = shared_blob_store_dir()
# The captures the fixture was copied from are an explicit input, like the documents:
# CLAIMS_CAPTURES=DIR (the folder holding ollama-0.31.2/); nothing beside the checkout
# is looked for otherwise.
CAPTURES = os.environ.get("CLAIMS_CAPTURES")
GEMMA = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
VERSIONS = ["0.31.2", "0.32.15"]


def test_the_fixture_is_the_capture_byte_for_byte():
    if not CAPTURES:
        pytest.skip("no captures given: set CLAIMS_CAPTURES=DIR, the folder of ollama-0.31.2/")
    CAPTURE = Path(CAPTURES).expanduser() / "ollama-0.31.2" / "store"
    assert CAPTURE.is_dir(), f"CLAIMS_CAPTURES has no ollama-0.31.2/store: {CAPTURE}"
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
    tags = json.loads((store.parent / "http" / "03-tags.json")
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


def test_the_shared_blob_store_holds_three_names_on_the_one_weight_blob(tmp_path):
    """store-shared-blob/ is what its README says: gemma3:270m as in ../store, gemma3-copy
    with the identical manifest, gemma3-brief naming the same model blob, every small blob
    named by its digest, and `ollama list` printing the three IDs."""
    manifests = SHARED / "manifests" / "registry.ollama.ai" / "library"
    first = (manifests / "gemma3" / "270m").read_bytes()
    assert first == (SOURCE / "manifests/registry.ollama.ai/library/gemma3/270m").read_bytes()
    assert (manifests / "gemma3-copy" / "270m").read_bytes() == first
    assert f"sha256:{GEMMA}" in (manifests / "gemma3-brief" / "270m").read_text("utf-8")
    for blob in (SHARED / "blobs").iterdir():
        assert blob.name == "sha256-" + hashlib.sha256(blob.read_bytes()).hexdigest()
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF stand-in")
    root = assemble(SHARED, tmp_path / "store", gguf, GEMMA)
    assert printed_list(root) == {
        "gemma3-brief:270m": "9888850ce20f",
        "gemma3-copy:270m": "6aa2aebbe67a",
        "gemma3:270m": "6aa2aebbe67a",
    }
    assert len([b for b in (root / "blobs").iterdir() if b.name == f"sha256-{GEMMA}"]) == 1


def test_a_store_copied_from_a_read_only_checkout_can_be_written(tmp_path):
    """A checkout nobody may write (chmod a-w, a read-only mount, a container's layer)
    gives a store its owner can write: the copy keeps the files, not their modes, so the
    model blob is added and the claims that write into the store can. The modes are
    checked, not a write tried: root writes a read-only folder anyway."""
    import shutil
    import stat

    source = tmp_path / "read-only checkout"
    shutil.copytree(SOURCE, source)
    for path in [*sorted(source.rglob("*"), reverse=True), source]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    try:
        gguf = tmp_path / "model.gguf"
        gguf.write_bytes(b"GGUF stand-in")
        root = assemble(source, tmp_path / "store", gguf, GEMMA)
        copied = [root / "manifests", root / "blobs", *(root / "manifests").rglob("*"),
                  *(p for p in (root / "blobs").iterdir() if p.name != f"sha256-{GEMMA}")]
        assert len(copied) > 4
        unwritable = [p for p in copied if not p.lstat().st_mode & stat.S_IWUSR]
        assert unwritable == []
    finally:
        # pytest removes tmp_path later: give the owner back the right to.
        for path in [source, *source.rglob("*")]:
            path.chmod(stat.S_IMODE(path.stat().st_mode) | stat.S_IWUSR)
