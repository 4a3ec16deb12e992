"""scripts/gpu-certify.sh as a user runs it: lint, a whole run against the fakes, its exits.

The install step is faked: SKIP_INSTALL=1 hands the script a ``$VENV/bin/python`` that
is this environment's interpreter, and the reuse tests create real virtual environments
without pip (INSTALL_SUITE=0) around a stand-in ``torch`` package. Everything else (the
claim selection, the pytest session against the fake CUDA machine and fake nvidia-smi,
the evidence it keeps, the bounds) runs as it would on a machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claims.testing import fake_nvidia_smi

# Subprocesses or timings: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gpu-certify.sh"

# A stand-in torch that says it is a CUDA build seeing one GPU: enough for the script's
# reuse logic, which only asks whether an interpreter's torch has CUDA.
FAKE_TORCH = '''
__version__ = "2.13.0+cu130"


class version:
    cuda = "13.0"


class cuda:
    @staticmethod
    def is_available():
        return True

    @staticmethod
    def device_count():
        return 1

    @staticmethod
    def get_device_name(i=0):
        return "NVIDIA GB10"

    @staticmethod
    def get_device_capability(i=0):
        return (12, 1)
'''


def test_shellcheck_finds_nothing():
    exe = shutil.which("shellcheck")
    if exe is None:
        pytest.skip("shellcheck is not installed (Debian: apt-get install shellcheck)")
    proc = subprocess.run([exe, "--severity=info", str(SCRIPT)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _wrapper_venv(where: Path) -> Path:
    """A $VENV whose bin/python is this interpreter (the install step, faked)."""
    bin_dir = where / "bin"
    bin_dir.mkdir(parents=True)
    py = bin_dir / "python"
    py.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    py.chmod(0o755)
    return where


def _certify(tmp_path: Path, env: dict[str, str], *args: str, timeout: float = 600
             ) -> tuple[subprocess.CompletedProcess[str], Path]:
    reports = tmp_path / "reports"
    full = {**os.environ, "REPORTS": str(reports), **env}
    for key in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"):
        full.pop(key, None)
    proc = subprocess.run(["bash", str(SCRIPT), *args], cwd=ROOT, env=full, capture_output=True,
                          text=True, timeout=timeout, check=False)
    kept = sorted(reports.glob("gpu-certify-*"))
    assert len(kept) == 1, (proc.stdout[-3000:], proc.stderr[-2000:])
    return proc, kept[0]


def _fake_machine_env(tmp_path: Path, machine: str) -> dict[str, str]:
    smi = fake_nvidia_smi.install(tmp_path / "fakebin", ("nvidia-smi", "lscpu", "free"))
    return {"PATH": os.pathsep.join([str(smi.parent), os.environ.get("PATH", "")]),
            "CLAIMS_FAKE_MACHINE": machine, "CLAIMS_MATMUL_N": "64", "CLAIMS_MATMUL_RUNS": "3",
            "CLAIMS_COPY_MIB": "8"}


def _evidence(kept: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((kept / "evidence.json").read_text(encoding="utf-8"))
    return loaded


def test_a_whole_run_against_a_simulated_spark_keeps_log_evidence_and_report(tmp_path):
    env = {**_fake_machine_env(tmp_path, "gb10-580.95"), "SKIP_INSTALL": "1",
           "VENV": str(_wrapper_venv(tmp_path / "venv")), "PROFILE": "dgx-spark"}
    proc, kept = _certify(tmp_path, env, "-p", "claims.testing.fake_cuda")
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 0, log[-4000:]
    assert (kept / "exit-status.txt").read_text().strip() == "0"
    for name in ("evidence.json", "report.html", "pytest.log", "torch.txt", "nvidia-smi.txt"):
        assert (kept / name).is_file(), name
    evidence = _evidence(kept)
    assert evidence["run"]["complete"] is True
    assert any("fake CUDA" in f for f in evidence["run"]["simulated"])
    verdicts = {c["id"]: c["verdict"] for c in evidence["claims"] if c["id"].startswith("W1-")}
    assert "reproduced" not in verdicts.values() and "refuted" not in verdicts.values(), verdicts
    assert "Simulated run." in (kept / "report.html").read_text(encoding="utf-8")
    assert "running pytest (profile dgx-spark" in log and "exit status 0" in log


def test_a_failed_step_still_leaves_the_log_and_says_what_failed(tmp_path):
    env = {"SKIP_INSTALL": "1", "VENV": str(tmp_path / "missing")}
    proc, kept = _certify(tmp_path, env, timeout=120)
    assert proc.returncode == 3
    assert (kept / "exit-status.txt").read_text().strip() == "3"
    assert "SKIP_INSTALL=1 but" in (kept / "failure.txt").read_text(encoding="utf-8")
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert "no evidence.json was written" in log and "exit status 3" in log


HANG_PLUGIN = '''
import signal, time


def pytest_collection_finish(session):
    # A session that hangs and ignores SIGINT: only SIGKILL stops it, after evidence.json
    # was first written (at session start) and before pytest could render the report.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    time.sleep(600)
'''


def test_a_pytest_session_past_its_limit_is_stopped_and_the_report_still_written(tmp_path):
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "hang_plugin.py").write_text(HANG_PLUGIN, encoding="utf-8")
    env = {**_fake_machine_env(tmp_path, "gb10"), "SKIP_INSTALL": "1",
           "VENV": str(_wrapper_venv(tmp_path / "venv")), "TEST_TIMEOUT": "30",
           "PYTHONPATH": str(plugins)}
    proc, kept = _certify(tmp_path, env, "-p", "hang_plugin", "-p", "claims.testing.fake_cuda",
                          timeout=300)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 137, log[-3000:]  # SIGINT ignored, so KILLed after 20 s
    assert "pytest ran past its limit" in log
    assert "rendering report.html from evidence.json" in log
    assert _evidence(kept)["run"]["complete"] is False
    assert "Incomplete run." in (kept / "report.html").read_text(encoding="utf-8")


def _source_venv(where: Path, python: str) -> Path:
    """A virtual environment (no pip) whose site-packages holds the stand-in CUDA torch."""
    subprocess.run([python, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    site = subprocess.run([str(where / "bin" / "python"), "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    (Path(site) / "torch").mkdir()
    (Path(site) / "torch" / "__init__.py").write_text(FAKE_TORCH, encoding="utf-8")
    return where


def _base_python() -> str:
    """The interpreter this environment was made from (a 'system' python)."""
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return str(base) if base.exists() else sys.executable


def _torch_seen_by(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import torch; print(torch.__file__)"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()


def test_the_cuda_torch_of_a_virtual_environment_is_reused(tmp_path):
    source = _source_venv(tmp_path / "w1", _base_python())
    # What the old script did: --system-site-packages from a venv python sees the base
    # interpreter's packages, not the venv's, so torch is not found.
    nested = tmp_path / "nested"
    subprocess.run([str(source / "bin" / "python"), "-m", "venv", "--without-pip",
                    "--system-site-packages", str(nested)], check=True, timeout=120)
    assert subprocess.run([str(nested / "bin" / "python"), "-c", "import torch"],
                          capture_output=True, timeout=60, check=False).returncode != 0
    venv = tmp_path / "venv-gpu"
    env = {"PYTHON": str(source / "bin" / "python"), "VENV": str(venv), "INSTALL_SUITE": "0",
           "PREPARE_ONLY": "1"}
    proc, kept = _certify(tmp_path, env, timeout=300)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 0, log[-3000:]
    assert "already has a CUDA torch: creating" in log and "reusing 2.13.0+cu130" in log
    assert _torch_seen_by(venv / "bin" / "python").startswith(str(source))
    assert "PREPARE_ONLY=1" in log


def test_the_cuda_torch_of_a_system_python_user_site_is_reused(tmp_path):
    # A system interpreter whose torch was installed with pip --user (PYTHONUSERBASE).
    base = _base_python()
    userbase = tmp_path / "userbase"
    site = subprocess.run([base, "-c", "import site; print(site.getusersitepackages())"],
                          capture_output=True, text=True, check=True, timeout=60,
                          env={**os.environ, "PYTHONUSERBASE": str(userbase)}).stdout.strip()
    (Path(site) / "torch").mkdir(parents=True)
    (Path(site) / "torch" / "__init__.py").write_text(FAKE_TORCH, encoding="utf-8")
    venv = tmp_path / "venv-gpu"
    env = {"PYTHON": base, "VENV": str(venv), "INSTALL_SUITE": "0", "PREPARE_ONLY": "1",
           "PYTHONUSERBASE": str(userbase)}
    proc, kept = _certify(tmp_path, env, timeout=300)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 0, log[-3000:]
    assert _torch_seen_by(venv / "bin" / "python").startswith(str(userbase))


def test_an_environment_the_script_did_not_make_is_never_removed(tmp_path):
    source = _source_venv(tmp_path / "w1", _base_python())
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("mine")
    env = {"PYTHON": str(source / "bin" / "python"), "VENV": str(theirs), "INSTALL_SUITE": "0",
           "PREPARE_ONLY": "1"}
    proc, kept = _certify(tmp_path, env, timeout=300)
    assert proc.returncode == 3
    assert "was not made by this script" in (kept / "failure.txt").read_text(encoding="utf-8")
    assert (theirs / "keep.txt").read_text() == "mine"
