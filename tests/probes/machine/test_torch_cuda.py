"""Tests of the torch/CUDA probe (claims.probes.machine.torch_cuda) that need no GPU.

Library-origin logic is tested on synthetic /proc/<pid>/maps text and paths;
the fresh-interpreter helpers run for real (with this environment's torch,
which in CI is a CPU build) and are checked for their failure modes.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from claims.probes.errors import PrerequisiteMissing
from claims.probes.machine import torch_cuda
from tests.extras import needs_torch
from tests.interpreter import modules_loaded

MAPS = """\
7f00-7f01 r-xp 00000000 08:01 1 /venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13
7f01-7f02 r--p 00001000 08:01 1 /venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13
7f02-7f03 r-xp 00000000 08:01 2 /venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13
7f03-7f04 r-xp 00000000 08:01 3 /usr/lib/aarch64-linux-gnu/libcuda.so.580.159.03
7f04-7f05 r-xp 00000000 08:01 4 /usr/local/cuda-13.0/lib64/libcublas.so.13.1.0.3
7f05-7f06 r-xp 00000000 08:01 5 /opt/conda/lib/libcudnn_ops.so.9 (deleted)
7f06-7f07 rw-p 00000000 00:00 0
7f07-7f08 r-xp 00000000 08:01 6 /venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so
"""


def test_proc_maps_lists_cuda_runtime_libraries_once_and_not_the_driver():
    assert torch_cuda.parse_proc_maps(MAPS) == [
        "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13",
        "/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13",
        "/usr/local/cuda-13.0/lib64/libcublas.so.13.1.0.3",
        "/opt/conda/lib/libcudnn_ops.so.9",
    ]


def test_library_origin_environment_wheel_or_system(tmp_path):
    env = tmp_path / "venv"
    lib = env / "lib" / "site-packages" / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    cudart = lib / "libcudart.so.13"
    cudart.write_bytes(b"")
    loose = env / "lib" / "libcublas.so.13"
    loose.write_bytes(b"")
    owners = {os.path.realpath(cudart): "nvidia-cuda-runtime"}
    out = torch_cuda.classify_libraries(
        [str(cudart), str(loose), "/usr/local/cuda/lib64/libcublas.so.13"],
        prefix=str(env), owners=owners)
    assert [(o.in_environment, o.origin) for o in out] == [
        (True, "wheel nvidia-cuda-runtime"),
        (True, "python environment"),
        (False, "system"),
    ]
    assert out[0].to_json()["distribution"] == "nvidia-cuda-runtime"


def test_prefix_match_is_by_directory_not_by_string(tmp_path):
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv2").mkdir()
    (out,) = torch_cuda.classify_libraries([str(tmp_path / "venv2" / "libcudart.so")],
                                           prefix=str(tmp_path / "venv"), owners={})
    assert out.in_environment is False


def test_toolkit_hidden_env_removes_every_way_to_the_toolkit():
    env = torch_cuda.toolkit_hidden_env({
        "PATH": os.pathsep.join(["/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin", "/opt/cuda/bin",
                                 "/usr/bin", "/home/me/.local/bin", "/home/me/barracuda/bin"]),
        "LD_LIBRARY_PATH": "/usr/local/cuda/lib64",
        "CUDA_HOME": "/usr/local/cuda",
        "CUDA_PATH": "/usr/local/cuda",
        "HOME": "/home/me",
    })
    assert env["PATH"].split(os.pathsep) == ["/usr/bin", "/home/me/.local/bin",
                                             "/home/me/barracuda/bin"]
    assert "LD_LIBRARY_PATH" not in env and "CUDA_HOME" not in env and "CUDA_PATH" not in env
    assert env["HOME"] == "/home/me"


def test_requirements_keep_nvidia_wheels_for_this_platform(monkeypatch):
    requires = [
        "filelock",
        'nvidia-cuda-runtime==13.0.96; platform_system == "Linux"',
        'nvidia-cublas==13.1.0.3; platform_system == "Windows"',
        'nvidia-cudnn-cu13==9.13.0.50; extra == "never"',
        "nvidia-nccl-cu13==2.27.7",
    ]
    monkeypatch.setattr(torch_cuda.metadata, "requires", lambda name: requires)
    got = torch_cuda.torch_cuda_requirements()
    assert "nvidia-cuda-runtime==13.0.96" in got and "nvidia-nccl-cu13==2.27.7" in got
    assert not any(r.startswith(("nvidia-cudnn", "filelock")) for r in got)


@pytest.mark.slow
def test_fresh_python_failures_are_named():
    with pytest.raises(torch_cuda.FreshProcessError, match="status 3"):
        torch_cuda.fresh_python("import sys; sys.exit(3)", timeout=30)
    with pytest.raises(torch_cuda.FreshProcessError, match="no JSON"):
        torch_cuda.fresh_python("print('hello')", timeout=30)
    with pytest.raises(torch_cuda.FreshProcessError, match="not an object"):
        torch_cuda.fresh_python("print('[1, 2]')", timeout=30)
    t0 = time.monotonic()
    with pytest.raises(torch_cuda.FreshProcessError, match=r"within 0\.5 s"):
        torch_cuda.fresh_python("import time; time.sleep(30)", timeout=0.5)
    assert time.monotonic() - t0 < 10


@pytest.mark.slow
def test_fresh_python_finds_this_package_and_returns_the_last_json_line():
    out = torch_cuda.fresh_python("import claims, json; print('noise'); "
                                  "print(json.dumps({'ok': claims.__name__}))", timeout=30)
    assert out == {"ok": "claims"}


@pytest.mark.slow
@needs_torch
def test_tf32_defaults_drop_the_override_for_the_child(monkeypatch):
    # TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 flips torch's default; the claim is about the
    # default, so the child must not inherit it. (The child itself runs in the
    # W1-TF32-DEFAULT-OFF claim test; here only what it is handed is checked.)
    seen = {}

    def fake_fresh_python(code, *, env=None, timeout=0.0):
        seen.update(code=code, env=env)
        return {"allow_tf32": False}

    monkeypatch.setenv("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "1")
    monkeypatch.setattr(torch_cuda, "fresh_python", fake_fresh_python)
    assert torch_cuda.tf32_defaults() == {"allow_tf32": False}
    assert "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE" not in seen["env"]
    assert "get_float32_matmul_precision" in seen["code"] and "allow_tf32" in seen["code"]


@needs_torch
def test_torch_build_on_this_machine():
    import torch

    build = torch_cuda.torch_build()
    assert build.version == torch.__version__
    assert build.cuda == torch.version.cuda
    if not torch.cuda.is_available():
        assert build.cuda_available is False and build.device_count == 0
        with pytest.raises(PrerequisiteMissing):
            torch_cuda.device_facts(0)


@pytest.mark.slow
@needs_torch
def test_runtime_without_toolkit_runs_the_child_and_reports(monkeypatch):
    import torch

    if torch.cuda.is_available():
        pytest.skip("covered by the gpu tier on a machine with a GPU")
    monkeypatch.setenv("CUDA_HOME", "/usr/local/cuda")
    out = torch_cuda.runtime_without_toolkit(timeout=120)
    assert out["available"] is False and out["torch"] == torch.__version__
    assert out["libraries"] == []
    assert "CUDA_HOME" in out["hidden"]["variables removed"]


def test_driver_version_is_none_without_libcuda():
    import ctypes.util

    if ctypes.util.find_library("cuda"):
        pytest.skip("this machine has libcuda")
    assert torch_cuda.cuda_driver_version() is None


@pytest.mark.slow
def test_module_import_does_not_import_torch():
    loaded = modules_loaded("import claims.probes.machine.torch_cuda, claims.probes.machine.gpu")
    assert "claims.probes.machine.gpu" in loaded and "torch" not in loaded


def test_requirements_in_both_forms_torch_wheels_use():
    requires = [
        'cuda-toolkit[cublas,cudart,nvrtc]==13.0.2; platform_system == "Linux"',
        'nvidia-cudnn-cu13==9.13.0.50; platform_system == "Linux"',
        'nvidia_nccl_cu13==2.27.7; platform_system == "Linux"',
        'cuda-toolkit[cufft]==13.0.2; platform_system == "Windows"',
        'triton==3.6.0; platform_system == "Linux"',
    ]
    got = torch_cuda.cuda_requirements(requires)
    assert [(r.name, r.form) for r in got] == [("cuda-toolkit", "cuda-toolkit"),
                                               ("nvidia-cudnn-cu13", "nvidia-wheel"),
                                               ("nvidia_nccl_cu13", "nvidia-wheel")]
    assert got[0].components == ("cublas", "cudart", "nvrtc")
    assert str(got[0]) == "cuda-toolkit[cublas,cudart,nvrtc]==13.0.2"
    assert got[1].components == ("nvidia-cudnn-cu13",)


def test_torch_cuda_requirements_reads_installed_metadata(monkeypatch):
    monkeypatch.setattr(torch_cuda.metadata, "requires",
                        lambda name: ["cuda-toolkit[cudart]==13.0.2", "filelock"])
    assert torch_cuda.torch_cuda_requirements() == ["cuda-toolkit[cudart]==13.0.2"]

    def missing(name):
        raise torch_cuda.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(torch_cuda.metadata, "requires", missing)
    with pytest.raises(PrerequisiteMissing):
        torch_cuda.torch_cuda_requirements()


def _folders_holding(root, *folders: tuple[str, str]) -> list:
    """Each folder (a path under ``root``) made, holding one empty library file."""
    made = []
    for folder, library in folders:
        d = root / folder
        d.mkdir(parents=True)
        (d / library).write_bytes(b"")
        made.append(d)
    return made


def _kept_on_ld_library_path(*folders) -> list[str]:
    """What LD_LIBRARY_PATH keeps of ``folders`` (in that order) once the toolkit is hidden."""
    env = torch_cuda.toolkit_hidden_env(
        {"PATH": "/usr/bin", "LD_LIBRARY_PATH": os.pathsep.join(map(str, folders))})
    return env["LD_LIBRARY_PATH"].split(os.pathsep) if "LD_LIBRARY_PATH" in env else []


def test_hiding_the_toolkit_keeps_the_driver_on_ld_library_path(tmp_path):
    driver, compat, toolkit = _folders_holding(
        tmp_path, ("usr/local/nvidia/lib64", "libcuda.so.1"),
        ("usr/local/cuda-13.0/compat", "libcuda.so.580.95.05"),
        ("usr/local/cuda-13.0/lib64", "libcudart.so.13"))
    # A container host's libcuda (and CUDA's forward-compatible driver) stay; the toolkit goes.
    assert _kept_on_ld_library_path(driver, toolkit, compat) == [str(driver), str(compat)]
    assert _kept_on_ld_library_path(toolkit) == []


def test_hiding_the_toolkit_keeps_this_pythons_own_library_on_ld_library_path(
        tmp_path, monkeypatch):
    """An interpreter built with a shared libpython outside the loader's folders (an HPC
    module, a relocated build: CI's copied 3.12 and 3.13) starts only with its folder on
    LD_LIBRARY_PATH: dropping it made the helper interpreter die before it could say
    anything of torch. That folder stays, unless it is inside a CUDA install."""
    monkeypatch.setattr(torch_cuda, "_python_libraries", lambda: ("libpython3.12.so.1.0",))
    python, toolkit, other = _folders_holding(
        tmp_path, ("opt/python-3.12/lib", "libpython3.12.so.1.0"),
        ("usr/local/cuda-13.0/lib64", "libpython3.12.so.1.0"),
        ("opt/other/lib", "libpython3.11.so.1.0"))
    assert _kept_on_ld_library_path(toolkit, python, other) == [str(python)]
    monkeypatch.setattr(torch_cuda, "_python_libraries", lambda: ())  # a static build
    assert _kept_on_ld_library_path(toolkit, python, other) == []


def test_this_pythons_library_is_named_by_its_build():
    import sysconfig

    names = torch_cuda._python_libraries()
    shared = sysconfig.get_config_var("Py_ENABLE_SHARED")
    assert bool(names) == bool(shared), (names, shared)
    assert all(n.startswith("libpython") for n in names)


def test_a_library_is_the_wheels_that_lists_it_wherever_it_lies(tmp_path):
    # A user-site or system dist-packages wheel lies outside sys.prefix and still counts.
    user = tmp_path / "home" / ".local" / "lib" / "python3.12" / "site-packages" / "nvidia"
    user.mkdir(parents=True)
    cudart = user / "libcudart.so.13"
    cudart.write_bytes(b"")
    (lib,) = torch_cuda.classify_libraries([str(cudart)], prefix=str(tmp_path / "venv"),
                                           owners={os.path.realpath(cudart): "nvidia-cuda-runtime"})
    assert lib.in_environment is False and lib.distribution == "nvidia-cuda-runtime"
    assert lib.origin == "wheel nvidia-cuda-runtime"


@pytest.mark.slow
def test_runtime_without_toolkit_classifies_what_the_child_mapped(monkeypatch, tmp_path):
    wheel_lib = tmp_path / "site-packages" / "nvidia" / "cu13" / "lib" / "libcudart.so.13"
    wheel_lib.parent.mkdir(parents=True)
    wheel_lib.write_bytes(b"")
    seen = {}

    def child(code, *, env=None, timeout=0.0):
        seen["env"] = env
        return {"available": True, "device": "cuda:0", "result_finite": True,
                "maps": [str(wheel_lib), "/usr/local/cuda-13.0/lib64/libcublas.so.13",
                         "/usr/lib/aarch64-linux-gnu/libcuda.so.580.95.05"]}

    monkeypatch.setattr(torch_cuda, "torch_installed", lambda: True)
    monkeypatch.setattr(torch_cuda, "fresh_python", child)
    monkeypatch.setattr(torch_cuda, "environment_distribution_files",
                        lambda: {os.path.realpath(wheel_lib): "nvidia-cuda-runtime"})
    monkeypatch.setenv("CUDA_HOME", "/usr/local/cuda")
    out = torch_cuda.runtime_without_toolkit()
    assert [(os.path.basename(x["path"]), x["distribution"]) for x in out["libraries"]] == [
        ("libcudart.so.13", "nvidia-cuda-runtime"), ("libcublas.so.13", None)]
    assert "CUDA_HOME" not in seen["env"] and "CUDA_HOME" in out["hidden"]["variables removed"]


class _FakeLibcuda:
    def __init__(self, value, status=0):
        self.value, self.status = value, status

    def cuDriverGetVersion(self, ref):
        ref._obj.value = self.value
        return self.status


@pytest.mark.parametrize("value, status, expected", [(13000, 0, "13.0"), (12080, 0, "12.8"),
                                                     (13000, 3, None), (0, 0, None)])
def test_driver_version_from_libcuda(monkeypatch, value, status, expected):
    monkeypatch.setattr(torch_cuda.ctypes, "CDLL", lambda name: _FakeLibcuda(value, status))
    assert torch_cuda.cuda_driver_version() == expected


def test_device_facts_carry_identity_and_free_memory(monkeypatch):
    from types import SimpleNamespace

    props = SimpleNamespace(total_memory=85_017_755_648, is_integrated=0,
                            multi_processor_count=132, uuid="22222222-2222-2222-2222-222222222222",
                            pci_domain_id=0, pci_bus_id=0x2A, pci_device_id=0)
    cuda = SimpleNamespace(get_device_properties=lambda i: props,
                           get_device_name=lambda i: "NVIDIA H100 80GB HBM3",
                           get_device_capability=lambda i: (9, 0),
                           mem_get_info=lambda i: (84_000_000_000, props.total_memory))
    monkeypatch.setattr(torch_cuda, "cuda_torch", lambda: SimpleNamespace(cuda=cuda))
    dev = torch_cuda.device_facts(0)
    assert dev.uuid == "GPU-22222222-2222-2222-2222-222222222222"
    assert dev.pci_bus_id == "00000000:2A:00.0" and dev.free_memory == 84_000_000_000
    assert dev.is_integrated is False and dev.capability == (9, 0)
    assert dev.to_json()["capability"] == [9, 0]


def test_elf_machine_of_this_interpreter(tmp_path):
    import platform

    assert torch_cuda.elf_machine(Path(sys.executable).resolve()) == platform.machine()
    text = tmp_path / "not-elf"
    text.write_text("#!/bin/sh\n")
    assert torch_cuda.elf_machine(text) is None
    assert torch_cuda.elf_machine(tmp_path / "absent") is None


def _recorded_requires(machine: str) -> list[str]:
    import json

    root = Path(__file__).resolve().parents[3] / "fixtures" / "system" / machine
    loaded: list[str] = json.loads((root / "machine.json").read_text("utf-8"))["requires"]
    return loaded


def test_torch_2_13_declares_cudart_and_cublas_through_the_cuda_toolkit():
    # torch 2.13.0's real Requires-Dist (PyPI, both architectures): cudart and cuBLAS are
    # components of cuda-toolkit[...]==13.0.3, which installs the nvidia-* wheels.
    reqs = torch_cuda.cuda_requirements(_recorded_requires("gb10"))
    wheels = torch_cuda.runtime_wheels(reqs)
    assert {"nvidia-cuda-runtime", "nvidia-cublas", "nvidia-cudnn-cu13"} <= set(wheels)
    assert {"nvidia-cuda-nvrtc", "nvidia-nccl-cu13", "nvidia-nvjitlink"} <= set(wheels)
    assert not [w for w in wheels if w.startswith("cuda-toolkit[")]


def test_the_older_one_wheel_per_library_form_maps_to_itself():
    reqs = torch_cuda.cuda_requirements(_recorded_requires("h200-570"))
    assert "nvidia-cuda-runtime-cu12" in torch_cuda.runtime_wheels(reqs)
    assert torch_cuda.cuda_requirements(_recorded_requires("h200-cpu-torch")) == []


# What a package named torch first on the path raises on import, and what import_torch
# then says: absent (as the import system reports it), and installed but broken, as a
# CUDA wheel on a machine missing one of its libraries is (ImportError from the loader,
# OSError from ctypes, or a dependency of torch's that is missing).
BROKEN_TORCH = {
    "absent": ('raise ModuleNotFoundError("No module named \'torch\'", name="torch")',
               "torch is not installed (No module named 'torch')"),
    "import-error": ('raise ImportError("libcudart.so.13: cannot open shared object file")',
                     "torch is installed but does not import: ImportError: libcudart.so.13"),
    "os-error": ('raise OSError("libcudnn.so.9: cannot open shared object file")',
                 "torch is installed but does not import: OSError: libcudnn.so.9"),
    "missing-dependency": ("import claims_suite_no_such_module",
                           "torch is installed but does not import: "
                           "No module named 'claims_suite_no_such_module'"),
}


def _plant_torch(folder: Path, monkeypatch: pytest.MonkeyPatch, init: str) -> None:
    """A package named torch, whose __init__ is ``init``, first on sys.path for this test
    (a torch already imported is set aside and put back afterwards)."""
    (folder / "torch").mkdir()
    (folder / "torch" / "__init__.py").write_text(init + "\n", "utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "torch", raising=False)


@pytest.mark.parametrize("kind", sorted(BROKEN_TORCH))
def test_a_torch_that_does_not_import_is_a_missing_prerequisite_naming_why(
        tmp_path, monkeypatch, kind):
    init, says = BROKEN_TORCH[kind]
    _plant_torch(tmp_path, monkeypatch, init)
    with pytest.raises(PrerequisiteMissing) as caught:
        torch_cuda.import_torch()
    assert str(caught.value).startswith(says), str(caught.value)


def test_a_torch_that_does_not_import_makes_the_gpu_tier_unavailable_naming_it(
        tmp_path, monkeypatch):
    """On a machine whose driver answers, a torch that raises on import leaves the gpu tier
    unavailable with the error as its reason (its claims skipped with it), instead of the
    exception ending the run where the plugin asks the tiers."""
    from claims.testing import fake_nvidia_smi
    from claims.tiers import TIERS

    _plant_torch(tmp_path, monkeypatch, BROKEN_TORCH["os-error"][0])
    # A driver that answers: the recorded nvidia-smi of an H100 machine first on PATH.
    smi = fake_nvidia_smi.install(tmp_path / "bin", ["nvidia-smi"])
    monkeypatch.setenv("CLAIMS_FAKE_MACHINE", "h100")
    monkeypatch.setenv("PATH", f"{smi.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    status = TIERS["gpu"].detect(None)  # type: ignore[arg-type]  # the gpu tier reads none
    assert not status.available
    assert status.reason == ("gpu tier needs torch with CUDA: torch is installed but does "
                             "not import: OSError: libcudnn.so.9: cannot open shared object "
                             "file")


@pytest.mark.parametrize("probe", ["tf32_defaults", "runtime_without_toolkit"])
@pytest.mark.parametrize("kind", ["absent", "os-error"])
def test_a_fresh_interpreter_whose_torch_does_not_import_is_a_missing_prerequisite(
        tmp_path, monkeypatch, probe, kind):
    """The helpers that ask torch in a new interpreter say why it could not, as
    import_torch does here: a claim they serve is then not run with that reason, where an
    exit status and a traceback's last line made it an error (W1-TF32-DEFAULT-OFF)."""
    init, says = BROKEN_TORCH[kind]
    _plant_torch(tmp_path, monkeypatch, init)  # here (torch looks installed) and in the child
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    with pytest.raises(PrerequisiteMissing) as caught:
        getattr(torch_cuda, probe)()
    assert str(caught.value).startswith(says), str(caught.value)


@pytest.mark.slow
def test_a_torch_that_does_not_import_never_interrupts_the_collection(tmp_path):
    """``pytest -m offline`` collects the whole suite (its testpaths): a torch that raises
    on import (a CUDA wheel missing a library) used to stop it there ("Interrupted: 1 error
    during collection", pytest.importorskip skipping only a missing module), with no claim
    run. Every module that imports torch at collection skips instead, naming the error."""
    import subprocess

    root = Path(__file__).resolve().parents[3]
    planted = tmp_path / "planted"
    (planted / "torch").mkdir(parents=True)
    (planted / "torch" / "__init__.py").write_text(BROKEN_TORCH["import-error"][0] + "\n",
                                                   "utf-8")
    env = {**os.environ, "PYTHONPATH": str(planted)}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-m", "offline", "-rs",
         f"--claims-evidence={tmp_path / 'evidence.json'}",
         f"--claims-report-html={tmp_path / 'report.html'}"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "error" not in output.splitlines()[-1], output[-3000:]
