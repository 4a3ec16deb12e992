"""A pretend CUDA machine, as a pytest plugin, for dry runs of the gpu tier without a GPU.

``pytest -p claims.testing.fake_cuda -m gpu ...`` (with the fakes of
:mod:`claims.testing.fake_nvidia_smi` first on PATH) makes torch report the CUDA
devices of a recorded machine, ``fixtures/system/<machine>/machine.json``
(CLAIMS_FAKE_MACHINE, default ``gb10``; the machines and their public sources are
listed in ``fixtures/system/README.md``):

* torch's version and CUDA build as the record names them (a CPU build of torch
  included: no device, ``torch.version.cuda`` None);
* torch.cuda's device queries (count, name, capability, properties with uuid and
  PCI ids, ``mem_get_info``), honouring CUDA_VISIBLE_DEVICES the way the CUDA
  runtime does (indices or GPU-/MIG- uuids, up to the first entry that names no
  device);
* the machine around the GPU where the record has it: the architecture, and
  ``/proc/meminfo`` and ``/proc/cpuinfo`` (so MemTotal, free -h and the device
  memory of an integrated GPU agree as on the real machine);
* torch's declared CUDA dependencies (the record's Requires-Dist lines, either
  form), the driver's CUDA version and where torch's binary says it was built for;
* matmul and copy series "on the GPU" run on the CPU, through the probes' own
  code; the times reported are the session's CPU series divided by fixed factors
  (:data:`FAKE_SPEEDUP`), or a fixed share of the device's published bandwidth, so
  the ratios the claims judge do not depend on how busy the machine is; the cold
  first call and the toolkit-hidden run are scripted;
* the recorded CUDA toolkit (where nvcc is installed, what it prints).

Installing it declares the run simulated (:mod:`claims.simulation`): the evidence
says so, no check through it is ever "reproduced", and its figures are invented.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from claims.catalog import load_catalog
from claims.figures import parse_literal
from claims.probes.machine import gpu, nvidia, system, torch_cuda
from claims.probes.machine.tools import ToolRun
from claims.profiles import DGX_SPARK
from claims.simulation import declare
from claims.testing import recordings
from claims.testing.fake_nvidia_smi import machine_dir

# Pretend GPU: FP32 this many times faster than the same CPU run, TF32 faster still.
FAKE_SPEEDUP = {"fp32": 25.0, "tf32": 56.0}
# Pretend copy bandwidth: this share of the device's published peak (or 10x the CPU's).
FAKE_BANDWIDTH_SHARE = 0.8
# The GB10's published bandwidth: the catalog's figure (the probes' table leaves it out).
GB10_BANDWIDTH = {"claim": "W1-SHARED-BANDWIDTH", "figure": "GB10 memory bandwidth"}


def published_bandwidth(device_name: str) -> float | None:
    """A device's published memory bandwidth in GB/s: the probes' datasheet table, or for
    the dgx-spark profile's GPU the catalog's stated figure; None where neither has one."""
    peak = gpu.bandwidth_peak_for(device_name)
    if peak is not None:
        return peak.gb_per_s
    if device_name.strip() != DGX_SPARK.hardware["gpu_name"]:
        return None
    stated = load_catalog().get(GB10_BANDWIDTH["claim"]).figure(GB10_BANDWIDTH["figure"])
    return None if stated.text is None else float(parse_literal(stated.text).value)


def load_machine(machine: Path) -> dict[str, Any]:
    path = machine / "machine.json"
    try:
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise pytest.UsageError(f"fake CUDA: no machine record {path} ({exc.strerror})") from None
    return loaded


def _key(uuid: str) -> str:
    value = uuid.strip().lower()
    for prefix in ("gpu-", "mig-"):
        value = value.removeprefix(prefix)
    return value


def visible_devices(devices: list[dict[str, Any]], visible: str | None) -> list[dict[str, Any]]:
    """The devices CUDA would enumerate under CUDA_VISIBLE_DEVICES=``visible``.

    Entries are indices or (prefixes of) GPU-/MIG- uuids; like the CUDA runtime,
    enumeration stops at the first entry that names no device.
    """
    if visible is None:
        return list(devices)
    out: list[dict[str, Any]] = []
    for entry in (e.strip() for e in visible.split(",")):
        if entry.isdigit():
            found = devices[int(entry)] if int(entry) < len(devices) else None
        else:
            want = _key(entry)
            found = next((d for d in devices if want and _key(d["uuid"]).startswith(want)), None)
        if found is None or found in out:
            break
        out.append(found)
    return out


def _proc_reader(machine: Path) -> Any:
    real = system.read_proc

    def read_proc(name: str) -> str:
        recorded = machine / f"{name}.txt"
        return recorded.read_text(encoding="utf-8") if recorded.exists() else real(name)

    return read_proc


def _fake_toolkit(toolkit: dict[str, Any] | None) -> None:
    """The recorded machine's CUDA toolkit: where nvcc is installed and what it prints."""

    if toolkit is None:
        none = nvidia.NvccFound(on_path=None, installed=(), cuda_dirs=())
        nvidia.find_nvcc = lambda path_env=None, pattern="": none
        return
    found = nvidia.NvccFound(on_path=None, installed=(toolkit["nvcc"],),
                             cuda_dirs=tuple(toolkit["cuda_dirs"]))
    nvidia.find_nvcc = lambda path_env=None, pattern="": found

    def nvcc_version(exe: str, timeout: float = 0.0) -> tuple[Any, ToolRun]:
        text = str(toolkit["nvcc_version"])
        return (nvidia.parse_nvcc_version(text),
                ToolRun((exe, "--version"), 0, text, "(recorded: claims.testing.fake_cuda)"))

    nvidia.nvcc_version = nvcc_version


def install(machine: Path | None = None) -> None:
    import torch

    where = machine or machine_dir()
    record = load_machine(where)
    declare(f"fake CUDA device (claims.testing.fake_cuda, fixtures/system/{where.name})")
    system.read_proc = _proc_reader(where)
    system.machine_arch = lambda: str(record["arch"])
    if (where / "cpuinfo.txt").exists():
        cpus = len(system.parse_cpuinfo(system.read_proc("cpuinfo")))
        system.logical_cpus = lambda: cpus
    meminfo = system.parse_meminfo(system.read_proc("meminfo"))

    def size(value: Any) -> int:
        return int(meminfo[value]) if isinstance(value, str) else int(value)

    devices = visible_devices(record["devices"], os.environ.get("CUDA_VISIBLE_DEVICES"))
    props = [SimpleNamespace(
        name=d["name"], total_memory=size(d["total_memory"]), is_integrated=int(d["is_integrated"]),
        multi_processor_count=d["multi_processor_count"], major=d["capability"][0],
        minor=d["capability"][1], uuid=d["uuid"].removeprefix("GPU-"),
        pci_domain_id=d["pci"][0], pci_bus_id=d["pci"][1], pci_device_id=d["pci"][2],
        free_memory=size(d["free_memory"])) for d in devices]

    def prop(device: Any = None) -> Any:
        index = 0 if device is None else int(getattr(device, "index", device) or 0)
        if not 0 <= index < len(props):
            raise RuntimeError(f"CUDA error: invalid device ordinal {index}")
        return props[index]

    torch.cuda.is_available = lambda: bool(props)
    torch.cuda.device_count = lambda: len(props)
    torch.cuda.get_device_name = lambda device=None: prop(device).name
    torch.cuda.get_device_capability = lambda device=None: (prop(device).major,
                                                            prop(device).minor)
    torch.cuda.get_device_properties = prop
    torch.cuda.mem_get_info = lambda device=None: (prop(device).free_memory,
                                                   prop(device).total_memory)
    torch.cuda.synchronize = lambda device=None: None
    torch.version.cuda = record["torch"]["cuda"]
    real_build = torch_cuda.torch_build
    version = str(record["torch"]["version"])

    def torch_build() -> Any:
        return dataclasses.replace(real_build(), version=version,
                                   local_tag=version.split("+", 1)[1] if "+" in version else None)

    torch_cuda.torch_build = torch_build

    real_requirements = torch_cuda.cuda_requirements
    torch_cuda.cuda_requirements = lambda requires=None: real_requirements(
        record["requires"] if requires is None else requires)
    torch_cuda.cuda_driver_version = lambda: str(record["driver_cuda"])
    torch_cuda.tensor_device = lambda device="cuda": "cuda:0"
    real_binary = torch_cuda.torch_binary
    built_for, tags = record["torch"]["arch"], tuple(record["torch"]["wheel_tags"])
    torch_cuda.torch_binary = lambda: dataclasses.replace(real_binary(), arch=built_for,
                                                          wheel_tags=tags)

    # The recorded machine's toolkit, or none: never this host's.
    _fake_toolkit(record.get("toolkit"))
    name = props[0].name if props else "no device"
    real_bench = gpu.bench_matmul

    cpu_runs: dict[int, Any] = {}

    def bench_matmul(device: Any = "cpu", **kwargs: Any) -> Any:
        if device != "cuda":
            result = real_bench(device, **kwargs)
            cpu_runs.setdefault(result.n, result)
            return result
        # The probe's own code runs (on the CPU, with the caller's timer); the "GPU" times
        # are the session's first CPU series divided by fixed factors, so the ratios the
        # claims judge are the fake's, whatever else the machine is doing.
        result = real_bench("cpu", **kwargs)
        base = cpu_runs.setdefault(result.n, result)
        factor = FAKE_SPEEDUP[result.precision]
        return dataclasses.replace(result, device="cuda", device_name=name, threads=None,
                                   times_s=tuple(t / factor for t in base.times_s))

    real_copy = gpu.bench_copy

    def bench_copy(device: Any = "cpu", **kwargs: Any) -> Any:
        result = real_copy("cpu", **kwargs)
        if device != "cuda":
            return result
        peak = published_bandwidth(name)
        target = (peak * FAKE_BANDWIDTH_SHARE) if peak else result.gb_per_s * 10
        factor = target / result.gb_per_s
        return dataclasses.replace(result, device="cuda", device_name=name,
                                   times_s=tuple(t / factor for t in result.times_s))

    def cold_in_fresh_process(device: str = "cuda", **kwargs: Any) -> dict[str, Any]:
        return {"device": device, "n": kwargs.get("n"), "cold_ms": 135.73,
                "warm_median_ms": 7.67, "scripted": "claims.testing.fake_cuda"}

    major = str(record["torch"]["cuda"] or "13").split(".")[0]

    def runtime_without_toolkit(timeout: float = 0.0) -> dict[str, Any]:
        lib = os.path.join(sys.prefix, "lib", "python3", "site-packages", "nvidia",
                           f"cu{major}", "lib")
        paths = [os.path.join(lib, f"libcudart.so.{major}"),
                 os.path.join(lib, f"libcublas.so.{major}")]
        owners = {p: "nvidia-cuda-runtime" if "cudart" in p else "nvidia-cublas" for p in paths}
        return {"available": True, "result_finite": True, "device": "cuda:0",
                "libraries": [x.to_json() for x in torch_cuda.classify_libraries(paths,
                                                                                   owners=owners)],
                "scripted": "claims.testing.fake_cuda"}

    gpu.bench_matmul = bench_matmul
    gpu.bench_copy = bench_copy
    gpu.cold_in_fresh_process = cold_in_fresh_process
    torch_cuda.runtime_without_toolkit = runtime_without_toolkit


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get(recordings.ENV):
        # A run from a checkout of the suite: the recorded machines are its fixtures/.
        recordings.use(Path(str(config.rootpath)) / "fixtures")
    try:
        install()
    except recordings.RecordingsNotFound as exc:
        raise pytest.UsageError(f"fake CUDA: {exc}") from None


class CudaTorch:
    """torch as a probe sees it on a CUDA machine, backed by the CPU (for unit tests).

    Tensors made with ``device="cuda"`` or moved with ``.to("cuda")`` stay on the CPU
    but report ``cuda:0``; ``cuda.synchronize`` counts its calls, so a test can check
    that every timed CUDA region was synchronized. Everything else is real torch,
    including the TF32 flags the matmul probe sets and restores.
    """

    def __init__(self, name: str = "NVIDIA GB10") -> None:
        import torch

        class HostTensor(torch.Tensor):
            def to(self, *args: Any, **kwargs: Any) -> Any:
                target = args[0] if args else kwargs.get("device")
                if str(target).startswith("cuda"):
                    return self.as_subclass(CudaTensor)
                return torch.Tensor.to(self, *args, **kwargs)

        class CudaTensor(HostTensor):
            @property
            def device(self) -> Any:  # type: ignore[override]
                return torch.device("cuda:0")

        self._torch = torch
        self._host, self._tensor = HostTensor, CudaTensor
        self.synchronized = 0
        self.cuda = SimpleNamespace(is_available=lambda: True, device_count=lambda: 1,
                                    get_device_name=lambda device=None: name,
                                    synchronize=self._synchronize)

    def _synchronize(self, device: Any = None) -> None:
        self.synchronized += 1

    def _make(self, fn: Any, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        return out.as_subclass(self._tensor if str(device).startswith("cuda") else self._host)

    def rand(self, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        return self._make(self._torch.rand, *args, device=device, **kwargs)

    def ones(self, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        return self._make(self._torch.ones, *args, device=device, **kwargs)

    def zeros(self, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        return self._make(self._torch.zeros, *args, device=device, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._torch, name)
