"""The offline tier under pytest-xdist (issue 35, item 5): the same verdicts as without it,
over hostile stores, and a path xdist cannot send is a usage error, not INTERNALERROR.

Each run is a child ``pytest -m offline`` of the tier's store tests with its own
evidence file; ``-n 2`` and ``-n 0`` must agree claim by claim and check by check.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from claims.testing.hostile import hostile_phi4_store

# Subprocesses: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
STORE_TESTS = [str(ROOT / "tests" / "claims" / "w2" / "test_store.py"),
               str(ROOT / "tests" / "claims" / "mc" / "test_store.py")]
CHILD_TIMEOUT_S = 600


def run_offline(tmp: Path, store: Path | bytes, *args: str) -> tuple[Any, Any]:
    tmp.mkdir(parents=True, exist_ok=True)
    evidence = tmp / "evidence.json"
    cmd: list[Any] = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
        f"--rootdir={ROOT}", "--claims-profile=generic", "-m", "offline",
        f"--claims-evidence={evidence}", f"--claims-report-html={tmp / 'report.html'}",
        "--ollama-models-dir", store, *args, *STORE_TESTS,
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=CHILD_TIMEOUT_S)
    doc = json.loads(evidence.read_text("utf-8")) if evidence.is_file() else None
    return proc, doc


def _linked_to_root(root: Path) -> Path:
    (root / "blobs").mkdir(parents=True)
    (root / "manifests").symlink_to("/")
    return root


def _fifo_manifest(root: Path) -> Path:
    folder = root / "manifests" / "registry.ollama.ai" / "library" / "phi4"
    folder.mkdir(parents=True)
    (root / "blobs").mkdir()
    os.mkfifo(folder / "latest")
    return root


def _names_not_utf8(root: Path) -> Path:
    """The store a real Ollama 0.31.2 wrote, with a manifest and a blob whose names are
    bytes that are not UTF-8 (Linux allows them; Python reads them as lone surrogates,
    which pytest-xdist's channel cannot carry: issue 44, item 5)."""
    from claims.probes.files.artifacts import gemma_expected_sha256, gemma_gguf
    from claims.testing.recorded_store import assemble, recorded_store_dir

    assemble(recorded_store_dir(), root, gemma_gguf(), gemma_expected_sha256())
    library = os.fsencode(root / "manifests" / "registry.ollama.ai" / "library")
    os.makedirs(library + b"/g\xffemma")
    with open(library + b"/gemma3/270m", "rb") as src, \
            open(library + b"/g\xffemma/l\xfeatest", "wb") as dst:
        dst.write(src.read())
    with open(os.fsencode(root / "blobs") + b"/sha256-\xff\xfe", "wb") as blob:
        blob.write(b"not a model")
    return root


STORES: dict[str, Callable[[Path], Path]] = {
    "terminal-attack": hostile_phi4_store,
    "manifests-link-to-root": _linked_to_root,
    "fifo-manifest": _fifo_manifest,
    "names-not-utf8": _names_not_utf8,
}


def _judged(doc: dict[str, Any]) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    claims = {c["id"]: c["verdict"] for c in doc["claims"]}
    checks = {ch["nodeid"]: (ch["outcome"], ch["verdict"])
              for c in doc["claims"] for ch in c["checks"]}
    return claims, checks


@pytest.mark.parametrize("kind", list(STORES))
def test_two_workers_judge_a_hostile_store_as_one_process_does(tmp_path, kind):
    store = STORES[kind](tmp_path / "store")
    serial, serial_doc = run_offline(tmp_path / "n0", store, "-n", "0")
    spread, spread_doc = run_offline(tmp_path / "n2", store, "-n", "2")
    for proc in (serial, spread):
        out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
        assert "INTERNALERROR" not in out and "Traceback" not in out.split("short test")[0]
    assert serial_doc is not None and spread_doc is not None
    assert serial_doc["run"]["complete"] is spread_doc["run"]["complete"] is True
    serial_claims, serial_checks = _judged(serial_doc)
    spread_claims, spread_checks = _judged(spread_doc)
    assert serial_checks  # the store tests ran and were recorded
    assert spread_checks == serial_checks
    assert spread_claims == serial_claims
    assert serial.returncode == spread.returncode


def test_a_store_path_that_is_not_utf8_is_a_usage_error_under_xdist(tmp_path):
    odd = os.fsencode(tmp_path) + b"/models-\xff"
    os.makedirs(odd)
    proc, doc = run_offline(tmp_path / "run", odd, "-n", "2")
    err = proc.stderr.decode("utf-8", "replace") + proc.stdout.decode("utf-8", "replace")
    assert proc.returncode == pytest.ExitCode.USAGE_ERROR, err
    assert "INTERNALERROR" not in err and "DumpError" not in err
    assert "--ollama-models-dir" in err and "models-\\\\xff: the name is not valid UTF-8" in err
    assert doc is None
