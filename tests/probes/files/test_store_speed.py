"""Blob verification speed, measured side by side with coreutils' sha256sum.

Target (docs/self-measurement.md): the store probe
hashes a blob at no less than 0.8x the throughput of ``sha256sum`` on the same
file. The file is the 253 MB Gemma 3 270M GGUF; both tools read it from a warm
page cache, alternately, and the best of three runs of each is compared (the
best run is the one least disturbed by other work on the machine). Run with
``-s`` to see the figures.

Also measured here: hand-written loops with other block sizes (printed),
what a cached re-verification costs, and what placing the Gemma file in a
fixture store costs as a hard link versus a copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import pytest

from claims.probes.files import ollama_store as osp
from claims.probes.files.artifacts import gemma_expected_sha256, sha256_file
from claims.testing.store_builder import build_fixture_store

# Subprocesses or timings: left out of the quick loop (tests/README.md).
# Timed side by side: run apart from other tests (scripts/test.sh runs `alone` last).
pytestmark = [pytest.mark.slow, pytest.mark.alone]

ROUNDS = 3
TARGET_RATIO = 0.8

T = TypeVar("T")


def _best(fn: Callable[[], T], rounds: int = ROUNDS) -> tuple[float, T]:
    """(shortest wall time in seconds of ``rounds`` calls, the last call's result)."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def _hash_with_probe(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY)
    try:
        return osp.sha256_fd(fd)
    finally:
        os.close(fd)


def test_verification_throughput_vs_sha256sum(gemma_gguf: Path, tmp_path_factory:
                                              pytest.TempPathFactory,
                                              record_property: Callable[[str, object], None]
                                              ) -> None:
    tool = shutil.which("sha256sum")
    if tool is None:
        pytest.skip("sha256sum (GNU coreutils) is not on PATH; nothing to compare with")
    size = gemma_gguf.stat().st_size
    _hash_with_probe(gemma_gguf)  # warm the page cache for both contenders

    def sha256sum() -> str:
        out = subprocess.run([tool, str(gemma_gguf)], capture_output=True, text=True, check=True,
                             timeout=120).stdout
        return out.split()[0]

    probe_times, tool_times = [], []
    probe_hex = tool_hex = ""
    for _ in range(ROUNDS):  # alternate so both see the same machine conditions
        t, tool_hex = _best(sha256sum, 1)
        tool_times.append(t)
        t, probe_hex = _best(lambda: _hash_with_probe(gemma_gguf), 1)
        probe_times.append(t)
    assert probe_hex == tool_hex == gemma_expected_sha256()
    probe_mbs = size / min(probe_times) / 1e6
    tool_mbs = size / min(tool_times) / 1e6
    ratio = probe_mbs / tool_mbs
    print(f"\nblob verification, {size:,} bytes, best of {ROUNDS}: probe {probe_mbs:,.0f} MB/s "
          f"(hashlib.file_digest), sha256sum {tool_mbs:,.0f} MB/s, "
          f"ratio {ratio:.2f} (target >= {TARGET_RATIO})")
    record_property("probe_MB_per_s", round(probe_mbs))
    record_property("sha256sum_MB_per_s", round(tool_mbs))
    # For the record: hand-written loops (artifacts.sha256_file) with other
    # block sizes, timed round-robin. From a warm cache hashing is CPU-bound and
    # they agree with the library within the machine's noise; the docstring of
    # claims.probes.files.ollama_store.verify has the cold-cache figures.
    blocks = (64 << 10, 1 << 20, 16 << 20)
    best = dict.fromkeys(blocks, float("inf"))
    for _ in range(2):
        for block in blocks:
            elapsed, _ = _best(partial(sha256_file, gemma_gguf, block), 1)
            best[block] = min(best[block], elapsed)
    print("hand-written loop by block size: "
          + ", ".join(f"{b // 1024} KiB {size / t / 1e6:,.0f} MB/s" for b, t in best.items()))
    assert ratio >= TARGET_RATIO


def test_cached_reverification_costs_a_stat(tmp_path_factory: pytest.TempPathFactory,
                                            gemma_gguf: Path) -> None:
    built = build_fixture_store(tmp_path_factory.mktemp("speed-store"), gemma_gguf,
                                gemma_sha256=gemma_expected_sha256())
    store = osp.OllamaStore(built.root, cache=osp.VerificationCache())
    layer = store.manifest(built.base).model_layer()
    start = time.perf_counter()
    first = store.verify_blob(layer)
    hashed = time.perf_counter() - start
    cached, second = _best(lambda: store.verify_blob(layer))
    assert not first.cached and second.cached
    print(f"\nverify {layer.size:,} B: hashed {hashed * 1e3:.1f} ms, cached {cached * 1e6:.0f} us")
    assert cached * 100 < hashed


def test_placing_the_gemma_blob_hard_link_vs_copy(tmp_path_factory: pytest.TempPathFactory,
                                                  gemma_gguf: Path) -> None:
    sha = gemma_expected_sha256()
    linked = build_fixture_store(tmp_path_factory.mktemp("linked"), gemma_gguf, gemma_sha256=sha)
    if linked.link_mode != "hardlink":
        pytest.skip(f"the file system refused a hard link from {gemma_gguf.parent} to the temp dir")
    copied = build_fixture_store(tmp_path_factory.mktemp("copied"), gemma_gguf, gemma_sha256=sha,
                                 link="copy")
    assert copied.link_mode == "copy"
    blob = osp.OllamaStore(copied.root).model_blob_path(copied.base)
    assert blob.stat().st_ino != gemma_gguf.stat().st_ino
    assert blob.stat().st_size == gemma_gguf.stat().st_size
    print(f"\nplace the {gemma_gguf.stat().st_size:,}-byte Gemma blob: hard link "
          f"{linked.link_seconds * 1e3:.2f} ms, copy {copied.link_seconds * 1e3:.0f} ms; "
          f"whole fixture store {linked.build_seconds * 1e3:.0f} ms with the link")
    assert linked.link_seconds < copied.link_seconds
