"""The plugin as an installed pytest11 entry point: path options work with a space.

pytest settles its rootdir and configuration file before it has seen a plugin's
options (claims.plugin.invocation explains it), so ``--ollama-models-dir PATH`` once made
PATH a test path and the run lost the project's configuration. These runs are real
pytest processes, from the repository root and from another directory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claims.testing.fake_ollama import unused_port

ROOT = Path(__file__).resolve().parents[2]
MC_OLLAMA = ROOT / "tests" / "claims" / "mc" / "test_ollama.py"


def run(cwd: Path, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    evidence = tmp_path / "evidence.json"
    cmd = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
        "-p", "no:benchmark", "-p", "no:xdist",
        f"--ollama-host=http://127.0.0.1:{unused_port()}",
        "--claims-evidence", str(evidence),
        "--claims-report-html", str(tmp_path / "report.html"),
        *args,
    ]
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    doc = json.loads(evidence.read_text("utf-8")) if evidence.is_file() else None
    return proc, doc


def test_the_plugin_is_an_installed_entry_point() -> None:
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group="pytest11") if ep.value == "claims.plugin"]
    assert found, "pip install -e . registers claims.plugin under pytest11"


@pytest.mark.slow
def test_spaced_path_options_from_the_repository_root(tmp_path: Path, gemma_gguf: Path) -> None:
    store = tmp_path / "models"
    store.mkdir()
    proc, doc = run(
        ROOT, tmp_path, "-m", "ollama", "--ollama-models-dir", str(store),
        "--claims-engine-model", str(gemma_gguf), "--claim", "MC-VERSION",
    )
    out = proc.stdout + proc.stderr
    assert "unrecognized arguments" not in out, out[-2000:]
    assert proc.returncode == 0, out[-2000:]
    # The project's own configuration was found (not one next to the store).
    assert "configfile: pyproject.toml" in out or "inifile: pyproject.toml" in out, out[:1500]
    assert doc is not None
    assert doc["run"]["options"]["models_dir"] == str(store)
    assert doc["run"]["options"]["engine_model"] == str(gemma_gguf)
    (claim,) = [c for c in doc["claims"] if c["id"] == "MC-VERSION"]
    assert claim["verdict"] == "not-run" and "no Ollama server" in claim["reason"]


@pytest.mark.slow
def test_spaced_path_options_from_another_directory(tmp_path: Path, gemma_gguf: Path) -> None:
    store = tmp_path / "models"
    store.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc, doc = run(
        elsewhere, tmp_path, str(MC_OLLAMA), "-m", "ollama", "--ollama-models-dir", str(store),
        "--claims-engine-model", str(gemma_gguf), "--claim", "MC-VERSION",
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-2000:]
    assert doc is not None and doc["run"]["options"]["models_dir"] == str(store)
    (claim,) = [c for c in doc["claims"] if c["id"] == "MC-VERSION"]
    assert claim["verdict"] == "not-run"
