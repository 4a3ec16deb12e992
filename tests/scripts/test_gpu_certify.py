"""scripts/gpu-certify.sh as a user runs it: lint, a whole run against the fakes, its exits.

The install step is faked: SKIP_INSTALL=1 hands the script a ``$VENV/bin/python`` that
is this environment's interpreter, and the reuse tests create real virtual environments
without pip (INSTALL_SUITE=0) around a stand-in ``torch`` package. Everything else (the
claim selection, the pytest session against the fake CUDA machine and fake nvidia-smi,
the evidence it keeps, the bounds) runs as it would on a machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import pty
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from claims.testing import fake_nvidia_smi
from tests.extras import needs_torch
from tests.signals import default_signals

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


@needs_torch  # the fake CUDA machine stands in for a GPU, not for torch
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
    # Week 5's gpu claims ran in the same session, each live check simulated and passed
    # (the Spark's capture is the lab's own results.json).
    w5 = {c["id"]: c for c in evidence["claims"] if c["id"] in (
        "W5-16BIT-FASTER", "W5-GPU-FASTER-THAN-CPU", "W5-ORDER-STABLE", "W5-PEAK-MEMORY",
        "W5-NO-SYNC-LAUNCH", "W5-MEMORY-SQUARE")}
    assert len(w5) == 6
    for cid, claim in w5.items():
        live = [k for k in claim["checks"] if k["source"] == "live"]
        assert live and all(k["outcome"] == "passed" and k["simulated"] for k in live), cid
    assert "Simulated run." in (kept / "report.html").read_text(encoding="utf-8")
    assert "running pytest (profile dgx-spark" in log and "exit status 0" in log


def test_a_failed_step_still_leaves_the_log_and_says_what_failed(tmp_path):
    env = {**_fake_machine_env(tmp_path, "gb10"), "SKIP_INSTALL": "1",
           "VENV": str(tmp_path / "missing")}
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


@needs_torch  # the fake CUDA machine stands in for a GPU, not for torch
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
    # A working driver (the script asks NVML before anything else) on a recorded machine.
    env = {**_fake_machine_env(tmp_path, "h200-580"), "PYTHON": str(source / "bin" / "python"),
           "VENV": str(venv), "INSTALL_SUITE": "0", "PREPARE_ONLY": "1"}
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
    env = {**_fake_machine_env(tmp_path, "h200-580"), "PYTHON": base, "VENV": str(venv),
           "INSTALL_SUITE": "0", "PREPARE_ONLY": "1", "PYTHONUSERBASE": str(userbase)}
    proc, kept = _certify(tmp_path, env, timeout=300)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 0, log[-3000:]
    assert _torch_seen_by(venv / "bin" / "python").startswith(str(userbase))


def test_an_environment_the_script_did_not_make_is_never_removed(tmp_path):
    source = _source_venv(tmp_path / "w1", _base_python())
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("mine")
    env = {**_fake_machine_env(tmp_path, "h200-580"), "PYTHON": str(source / "bin" / "python"),
           "VENV": str(theirs), "INSTALL_SUITE": "0", "PREPARE_ONLY": "1"}
    proc, kept = _certify(tmp_path, env, timeout=300)
    assert proc.returncode == 3
    assert "was not made by this script" in (kept / "failure.txt").read_text(encoding="utf-8")
    assert (theirs / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize("machine, index", [
    ("h200-570", "cu126 from the cu126 index https://download.pytorch.org/whl/cu126: driver "
                 "570.124.06 is R525 or later"),
    ("h200-580", "cu130 from PyPI: driver 580.65.06 is R580 or later"),
    ("h200-610", "cu130 from PyPI: driver 610.43.02 is R580 or later"),
    # sm_120 on R595: cu130 has its kernels; sm_61 on R550 and sm_70 on R525: cu126 does,
    # cu130 needs R580 (and has none for them).
    ("rtx5090-595", "cu130 from PyPI: driver 595.71.05 is R580 or later"),
    ("p4-550", "cu126 from the cu126 index https://download.pytorch.org/whl/cu126: driver "
               "550.135 is R525 or later"),
    ("v100-525", "cu126 from the cu126 index https://download.pytorch.org/whl/cu126: driver "
                 "525.105.17 is R525 or later"),
])
def test_a_dry_run_names_the_torch_index_the_driver_can_run(tmp_path, machine, index):
    # torch 2.13 exists as cu126 and cu130 builds only: a 570 driver gets cu126 (there is
    # no 2.13 cu128 wheel), a 580 driver PyPI's cu130. Nothing is installed.
    env = {**_fake_machine_env(tmp_path, machine), "DRY_RUN": "1",
           "VENV": str(tmp_path / "venv"), "PYTHON": _python_without_torch()}
    proc, kept = _certify(tmp_path, env, timeout=120)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 0, log[-3000:]
    assert "dry run: would install 'torch>=2.13,<2.14' as:" in log
    assert index in log and "source: pytorch/pytorch#187075" in log
    assert not (tmp_path / "venv").exists()


def _smi_printing(tmp_path: Path, row: str) -> dict[str, str]:
    """PATH with an nvidia-smi that answers the script's query with one CSV row."""
    bin_dir = tmp_path / "rowbin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\necho '{row}'\n", encoding="utf-8")
    smi.chmod(0o755)
    return {"PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])}


# GPUs users have, as nvidia-smi --query-gpu=index,name,driver_version,compute_cap prints
# them (names and drivers from public captures: fixtures/system/README.md, "dry runs").
DRY_RUNS = {
    "B200 on R575": ("0, NVIDIA B200, 575.57.08, 10.0", "x86_64", None),
    "RTX 5090 on R575": ("0, NVIDIA GeForce RTX 5090, 575.57.08, 12.0", "x86_64", None),
    "P4 on R580": ("0, Tesla P4, 580.65.06, 6.1", "x86_64", "cu126"),
    "V100 on R580": ("0, Tesla V100-SXM2-32GB, 580.65.06, 7.0", "x86_64", "cu126"),
    "GB10 on R580": ("0, NVIDIA GB10, 580.95.05, 12.1", "aarch64", "cu130"),
    "GB10 on R610": ("0, NVIDIA GB10, 610.43.02, 12.1", "aarch64", "cu130"),
}


@pytest.mark.parametrize("case", sorted(DRY_RUNS))
def test_a_dry_run_picks_a_wheel_with_the_gpus_architecture_or_says_none_exists(tmp_path, case):
    row, arch, tag = DRY_RUNS[case]
    env = {**_smi_printing(tmp_path, row), "DRY_RUN": "1", "VENV": str(tmp_path / "venv"),
           "PYTHON": _python_without_torch()}
    if arch != platform.machine():
        # The script takes the wheel's architecture from uname -m: a Spark's is aarch64.
        uname = tmp_path / "rowbin" / "uname"
        uname.write_text(f'#!/bin/sh\n[ "$1" = -m ] && {{ echo {arch}; exit 0; }}\n'
                         f'exec /bin/uname "$@"\n', encoding="utf-8")
        uname.chmod(0o755)
    proc, kept = _certify(tmp_path, env, timeout=120)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert not (tmp_path / "venv").exists()
    if tag is None:
        assert proc.returncode == 3, log[-3000:]
        failure = (kept / "failure.txt").read_text(encoding="utf-8")
        assert "no CUDA build of torch 2.13 runs here (driver 575.57.08" in failure
        assert "a driver of R580 or later" in failure and "cu128" in failure
    else:
        assert proc.returncode == 0, log[-3000:]
        assert f"  {tag} from " in log, log[-3000:]


def test_a_driver_older_than_every_torch_build_is_refused_by_name(tmp_path):
    env = {**_smi_printing(tmp_path, "0, Tesla T4, 470.256.02, 7.5"), "DRY_RUN": "1",
           "VENV": str(tmp_path / "venv"), "PYTHON": _python_without_torch()}
    proc, kept = _certify(tmp_path, env, timeout=120)
    assert proc.returncode == 3
    failure = (kept / "failure.txt").read_text(encoding="utf-8")
    assert "no CUDA build of torch 2.13 runs here (driver 470.256.02" in failure


@pytest.mark.parametrize("machine, named", [
    ("nvml-mismatch", "NVML driver/library version mismatch"),
    ("no-devices", "no devices found"),
])
def test_a_broken_nvml_stops_the_run_before_anything_is_installed(tmp_path, machine, named):
    # No DRY_RUN: a healthy machine would go on to install torch here.
    env = {**_fake_machine_env(tmp_path, machine), "VENV": str(tmp_path / "venv"),
           "PYTHON": _python_without_torch()}
    proc, kept = _certify(tmp_path, env, timeout=120)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 4, log[-3000:]
    assert (kept / "exit-status.txt").read_text().strip() == "4"
    failure = (kept / "failure.txt").read_text(encoding="utf-8")
    assert failure.startswith("asking the driver (nvidia-smi): ") and named in failure
    if machine == "nvml-mismatch":
        assert "reboot, or reload the kernel module" in failure
    assert "nothing was installed" in log
    assert not (tmp_path / "venv").exists() and not (kept / "pip.log").exists()


def test_without_nvidia_smi_the_run_stops_naming_it(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    python = _python_without_torch()
    env = {"PATH": os.pathsep.join([str(empty), str(Path(python).parent), "/usr/bin", "/bin"]),
           "VENV": str(tmp_path / "venv"), "PYTHON": python}
    proc, kept = _certify(tmp_path, env, timeout=120)
    assert proc.returncode == 4
    assert "nvidia-smi missing" in (kept / "failure.txt").read_text(encoding="utf-8")


def _python_without_torch() -> str:
    """An interpreter without torch, so the script takes its install branch."""
    for candidate in ("/usr/bin/python3", _base_python()):
        probe = subprocess.run([candidate, "-c", "import sys, importlib.util; "
                                "sys.exit(sys.version_info < (3, 11) or "
                                "importlib.util.find_spec('torch') is not None)"],
                               capture_output=True, timeout=60, check=False)
        if probe.returncode == 0:
            return candidate
    pytest.skip("no Python 3.11+ without torch on this machine")


SLOW_PLUGIN = """
import os, time


def pytest_runtest_call(item):
    # One deliberately slow check: the run is interrupted while it sleeps, after the
    # checks before it have finished.
    if item.name == os.environ["SLOW_TEST"]:
        with open(os.environ["SLOW_MARKER"], "w") as fh:
            fh.write(item.nodeid)
        time.sleep(300)
"""
SLOW_TEST = "test_nvcc_installed_off_path"
FINISHED_BEFORE = ("W1-ARCH", "W1-CPU", "W1-SMI-FIELDS", "W1-CUDA-CEILING")


def _interruptible_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "slow_plugin.py").write_text(SLOW_PLUGIN, encoding="utf-8")
    marker = tmp_path / "slow-started"
    env = {**os.environ, **_fake_machine_env(tmp_path, "gb10"), "SKIP_INSTALL": "1",
           "VENV": str(_wrapper_venv(tmp_path / "venv")), "PROFILE": "dgx-spark",
           "PYTHONPATH": str(plugins), "SLOW_TEST": SLOW_TEST, "SLOW_MARKER": str(marker),
           "REPORTS": str(tmp_path / "reports")}
    for key in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"):
        env.pop(key, None)
    return env, marker


def _wait_for(marker: Path, proc_alive: Any, limit_s: float = 400) -> None:
    deadline = time.monotonic() + limit_s
    while not marker.exists():
        assert proc_alive(), "gpu-certify.sh ended before the slow check started"
        assert time.monotonic() < deadline, "the slow check never started"
        time.sleep(0.2)


def _assert_interrupted_run_kept(tmp_path: Path, status: int) -> None:
    (kept,) = sorted((tmp_path / "reports").glob("gpu-certify-*"))
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert "stopping pytest (SIGINT)" in log, log[-3000:]
    assert (kept / "exit-status.txt").read_text().strip() == str(status), log[-3000:]
    evidence = _evidence(kept)
    # pytest ended through its own interrupt path: its session finished and wrote the
    # evidence (exit status 2, "interrupted"); the run was not complete, and says so.
    assert evidence["run"]["pytest"]["exit_status"] == 2, evidence["run"].get("pytest")
    assert evidence["run"]["complete"] is False
    claims = {c["id"]: c for c in evidence["claims"]}
    for cid in FINISHED_BEFORE:
        live = [c for c in claims[cid]["checks"] if c["source"] == "live"]
        assert live and all(c["outcome"] == "passed" for c in live), (cid, claims[cid])
    assert not [c for c in claims["W1-NVCC"]["checks"] if c["source"] == "live"
                and c["outcome"] == "passed"]
    assert "Incomplete run." in (kept / "report.html").read_text(encoding="utf-8")
    assert (kept / "pytest.log").is_file()
    assert log.rstrip().endswith(f"copies in {kept}"), log[-500:]
    assert f"exit status {status};" in log


@needs_torch  # the fake CUDA machine stands in for a GPU, not for torch
def test_ctrl_c_in_a_terminal_stops_pytest_through_its_interrupt_path(tmp_path):
    env, marker = _interruptible_env(tmp_path)
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session of its own, the pty its controlling terminal
        try:
            default_signals()  # as a terminal's command has them (tests/signals.py)
            os.chdir(ROOT)
            os.execvpe("bash", ["bash", str(SCRIPT), "-p", "slow_plugin", "-p",
                                "claims.testing.fake_cuda"], env)
        finally:
            os._exit(127)
    output = bytearray()
    status: int | None = None

    def drain(wait_s: float) -> None:
        ready, _, _ = select.select([fd], [], [], wait_s)
        if ready:
            with contextlib.suppress(OSError):  # EIO once the terminal's last user is gone
                output.extend(os.read(fd, 65536))

    def alive() -> bool:
        nonlocal status
        drain(0.1)
        if status is None:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
        return status is None

    try:
        _wait_for(marker, alive)
        # Ctrl-C: SIGINT to the terminal's foreground process group.
        os.killpg(os.tcgetpgrp(fd), signal.SIGINT)
        deadline = time.monotonic() + 240
        while alive():
            assert time.monotonic() < deadline, bytes(output[-3000:]).decode(errors="replace")
    finally:
        if status is None:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert status == 130, bytes(output[-3000:]).decode(errors="replace")
    _assert_interrupted_run_kept(tmp_path, 130)


@needs_torch  # the fake CUDA machine stands in for a GPU, not for torch
def test_sigterm_stops_pytest_through_its_interrupt_path_too(tmp_path):
    env, marker = _interruptible_env(tmp_path)
    proc = subprocess.Popen(["bash", str(SCRIPT), "-p", "slow_plugin", "-p",
                             "claims.testing.fake_cuda"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        _wait_for(marker, lambda: proc.poll() is None)
        proc.send_signal(signal.SIGTERM)  # the script alone, as `kill PID` does
        status = proc.wait(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert status == 143
    _assert_interrupted_run_kept(tmp_path, 143)


SLOW_LINK_PYTHON = '''#!/bin/sh
# A stand-in interpreter: new enough, no torch, and a pip whose download never ends.
case "$1" in
    -c) exit 0 ;;                       # the version check
    -) cat >/dev/null; exit 1 ;;        # "is there a CUDA torch?": no
    -m)
        case "$2" in claims.*) exec "$REAL_PYTHON" "$@" ;; esac  # the script's own table
        if [ "$2" = venv ]; then
            mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
        fi
        if [ "$2" = pip ]; then echo "Collecting torch (a slow link)"; exec sleep 120; fi ;;
esac
exit 0
'''
# A stand-in whose pip installs at once a torch that has no kernel for this GPU.
NO_KERNEL_PYTHON = '''#!/bin/sh
here="$(dirname "$0")"
case "$1" in
    -c) exit 0 ;;
    -)
        cat >/dev/null
        if [ -f "$here/installed" ]; then
            echo "CUDA error: no kernel image is available for execution on the device"
        fi
        exit 1 ;;
    -m)
        case "$2" in claims.*) exec "$REAL_PYTHON" "$@" ;; esac
        if [ "$2" = venv ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0; fi
        if [ "$2" = pip ]; then : >"$here/installed"; exit 0; fi ;;
esac
exit 0
'''


def test_a_torch_that_cannot_run_a_kernel_here_stops_before_the_claims(tmp_path):
    fake = tmp_path / "nokernelpy"
    fake.write_text(NO_KERNEL_PYTHON, encoding="utf-8")
    fake.chmod(0o755)
    env = {**_fake_machine_env(tmp_path, "h200-580"), "PYTHON": str(fake),
           "REAL_PYTHON": sys.executable, "VENV": str(tmp_path / "venv")}
    proc, kept = _certify(tmp_path, env, timeout=120)
    log = (kept / "gpu-certify.log").read_text(encoding="utf-8")
    assert proc.returncode == 3, log[-3000:]
    failure = (kept / "failure.txt").read_text(encoding="utf-8")
    assert failure.startswith("running one CUDA kernel (smoke test): the installed torch cannot "
                              "run a kernel on this GPU"), failure
    assert "no kernel image is available" in failure
    assert "installing the suite" not in log and "running pytest" not in log


def test_an_install_that_runs_past_its_limit_says_so_and_exits_124(tmp_path):
    fake = tmp_path / "slowpy"
    fake.write_text(SLOW_LINK_PYTHON, encoding="utf-8")
    fake.chmod(0o755)
    env = {**_fake_machine_env(tmp_path, "h200-580"), "PYTHON": str(fake),
           "REAL_PYTHON": sys.executable, "VENV": str(tmp_path / "venv"), "RUN_TIMEOUT": "6"}
    proc, kept = _certify(tmp_path, env, timeout=120)
    assert proc.returncode == 124, (kept / "gpu-certify.log").read_text(encoding="utf-8")
    failure = (kept / "failure.txt").read_text(encoding="utf-8")
    assert failure.startswith("installing torch: pip install 'torch>=2.13,<2.14' from PyPI ran "
                              "past its time limit"), failure
    assert (kept / "exit-status.txt").read_text().strip() == "124"
