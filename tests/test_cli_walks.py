"""Bounded walks in every CLI command (issue 35, item 8): no link out of a store is followed,
no special file is read, and each walk and read has its limit.

On 4f018a0 ``claims inspect store`` hung (killed at 30 s) on a store without the
bundled blob whose ``manifests`` was a link to ``/`` or whose manifest was a link to
``/proc/kmsg``: ``cli.py`` walked and read the store itself, unguarded. Each case
runs the command in a child process that is stopped (and the test failed) after
:data:`CHILD_TIMEOUT_S`; none may need it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Subprocesses: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
RECORDED_STORE = ROOT / "fixtures" / "ollama-0.31.2" / "store"
CHILD_TIMEOUT_S = 60


def run(*args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([sys.executable, "-m", "claims", *args], capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"`claims {' '.join(args)}` was still running after {CHILD_TIMEOUT_S} s")


def recorded_store(tmp_path: Path) -> Path:
    """The recorded store (which lacks the bundled Gemma blob, so the CLI links it in)."""
    store = tmp_path / "store"
    shutil.copytree(RECORDED_STORE, store)
    return store


def _assert_refused(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr
    assert proc.returncode != 0


def test_a_store_whose_manifests_link_to_the_root_is_refused(tmp_path):
    store = recorded_store(tmp_path)
    shutil.rmtree(store / "manifests")
    (store / "manifests").symlink_to("/")
    proc = run("inspect", "store", str(store))
    _assert_refused(proc)
    assert "manifests/ leads outside the store" in proc.stderr


@pytest.mark.parametrize("special", ["fifo", "/proc/kmsg"])
def test_a_manifest_linked_to_a_special_file_is_never_read(tmp_path, special):
    if special != "fifo" and not os.path.exists(special):
        pytest.skip(f"no {special} here")
    store = recorded_store(tmp_path)
    target = tmp_path / "pipe" if special == "fifo" else Path(special)
    if special == "fifo":
        os.mkfifo(target)
    evil = store / "manifests" / "registry.ollama.ai" / "library" / "evil"
    evil.mkdir()
    (evil / "latest").symlink_to(target)
    proc = run("inspect", "store", str(store))
    assert "Traceback" not in proc.stderr
    assert "leads outside the store" in proc.stdout + proc.stderr


def test_a_fifo_inside_the_store_as_a_manifest_is_never_read(tmp_path):
    store = recorded_store(tmp_path)
    evil = store / "manifests" / "registry.ollama.ai" / "library" / "evil"
    evil.mkdir()
    os.mkfifo(evil / "latest")
    proc = run("inspect", "store", str(store))
    assert "Traceback" not in proc.stderr
    assert "not a regular file" in proc.stdout + proc.stderr


@pytest.mark.parametrize("command", ["report", "diff", "inspect gguf"])
def test_a_pseudo_file_or_fifo_is_refused_by_each_reading_command(tmp_path, command):
    fifo = tmp_path / "e.json"
    os.mkfifo(fifo)
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    for path in (fifo, empty, *([Path("/proc/kmsg")] if os.path.exists("/proc/kmsg") else [])):
        args = {"report": ["report", str(path)], "diff": ["diff", str(path), str(path)],
                "inspect gguf": ["inspect", "gguf", str(path)]}[command]
        _assert_refused(run(*args))


def test_compare_skips_a_fifo_and_a_pseudo_file_in_a_folder(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    os.mkfifo(runs / "a.json")
    if os.path.exists("/proc/kmsg"):
        (runs / "b.json").symlink_to("/proc/kmsg")
    proc = run("compare", str(runs), "--output", str(tmp_path / "c.html"))
    assert "Traceback" not in proc.stderr


def test_the_store_walk_stops_at_its_limit_and_says_so(tmp_path, monkeypatch):
    from claims.probes.files.ollama_store import OllamaStore, tree

    monkeypatch.setattr(tree, "MAX_ENTRIES", 5)
    store = recorded_store(tmp_path)
    library = store / "manifests" / "registry.ollama.ai" / "library"
    for i in range(10):
        (library / f"m{i}").mkdir()
    _, skipped = OllamaStore(store).scan(strict=False)
    assert "(stopped listing: more than 5 entries under manifests/)" in skipped
