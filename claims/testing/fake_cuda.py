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
* the recorded CUDA toolkit (where nvcc is installed, what it prints);
* Week 5's matmul at FP32, FP16 and BF16 (:mod:`claims.probes.machine.matmul`): the
  probes' own code runs on :class:`CudaTorch` at a small side, and the times, launch
  times and peaks reported are what the machine's public capture says it prints
  (``matmul_precisions.json``: rates per precision, the launch cost, cuBLAS's workspace;
  :func:`precision_model`); a machine without that file has no capture, and those
  claims are "not run", saying so.

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
from claims.probes.arithmetic import tensors
from claims.probes.errors import PrerequisiteMissing
from claims.probes.machine import gpu, matmul, nvidia, system, torch_cuda
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


# Week 5's matmul probes run their own code on CudaTorch at this side at most (the times
# reported are the capture's, at the side asked for): a CPU product at 4096, in FP16, takes
# minutes.
FAKE_CODE_SIDE = 32


@dataclasses.dataclass(frozen=True)
class PrecisionModel:
    """What a recorded machine prints for Week 5's matmul claims, from its public capture.

    ``gflops``: the GPU's rate per precision (GFLOP/s) at the capture's side; a product at
    side n takes 2n³ / rate, and never less than ``launch_s``, the host's cost of queueing
    it (what a clock without synchronize measures). ``cpu_over_gpu``: the CPU's FP32 time
    over the GPU's, where the capture has a CPU run (else the fake's FAKE_SPEEDUP, an
    invented figure). ``workspace_bytes``: what cuBLAS allocates beside the matrices, so a
    peak is the three matrices plus it.
    """

    source: str
    gflops: dict[str, float]
    cpu_over_gpu: float
    launch_s: float
    workspace_bytes: int

    def seconds(self, precision: str, n: int) -> float:
        return max(2 * n**3 / (self.gflops[precision] * 1e9), self.launch_s)


def precision_model(machine: Path, fixtures: Path) -> PrecisionModel | None:
    """The machine's ``matmul_precisions.json`` read into a model (None: no capture).

    ``like`` names another machine's record; ``capture`` a bundled lab results.json
    (under ``fixtures``), whose rows give the rates, the CPU time and, from the FP32 peak
    less its three matrices, the workspace.
    """
    path = machine / "matmul_precisions.json"
    if not path.exists():
        return None
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if "like" in record:
        return precision_model(machine.parent / str(record["like"]), fixtures)
    launch = float(record["launch_ms"]) / 1e3
    if "capture" in record:
        run = tensors.read_results(fixtures / str(record["capture"]))
        rates = {row.precision: float(row.gflops) for row in run.rows}
        fp32 = run.row("fp32")
        workspace = int(float(fp32.peak_mib) * tensors.MIB) - tensors.payload_bytes(
            run.size, run.dtype_bytes["float32"])
        return PrecisionModel(f"fixtures/{record['capture']}", rates,
                              float(run.cpu_fp32_ms / fp32.median_ms), launch, workspace)
    return PrecisionModel(f"fixtures/system/{machine.name}/matmul_precisions.json",
                          {k: float(v) for k, v in record["gflops"].items()},
                          FAKE_SPEEDUP["fp32"], launch, int(record["workspace_bytes"]))


def _fake_precisions(model: PrecisionModel | None, name: str, machine: str) -> None:
    """Week 5's probes on this machine: its own code on CudaTorch, the capture's figures."""
    real_pass, real_launch, real_peak = (matmul.benchmark_pass, matmul.time_launch,
                                         matmul.peak_memory)

    def capture() -> PrecisionModel:
        if model is None:
            raise PrerequisiteMissing(
                f"the fake machine fixtures/system/{machine} has no public capture of a matmul "
                "at FP32, FP16 and BF16 (matmul_precisions.json): nothing to say what it prints")
        return model

    def stand_in() -> CudaTorch:
        return CudaTorch(name, workspace_bytes=capture().workspace_bytes)

    def times(seconds: float, count: int) -> tuple[float, ...]:
        return (seconds,) * count

    def benchmark_pass(torch: Any, device: str, *, n: int, warmup: int, iters: int,
                       cpu_iters: int | None, **kwargs: Any) -> Any:
        m = capture()
        ran = real_pass(stand_in(), device, n=min(n, FAKE_CODE_SIDE), warmup=warmup,
                        iters=iters, cpu_iters=cpu_iters, **kwargs)
        gpu = {p: dataclasses.replace(t, n=n, times_s=times(m.seconds(p, n), iters))
               for p, t in ran.gpu.items()}
        cpu = None if ran.cpu is None else dataclasses.replace(
            ran.cpu, n=n,
            times_s=times(m.seconds("fp32", n) * m.cpu_over_gpu, len(ran.cpu.times_s)))
        return dataclasses.replace(ran, gpu=gpu, cpu=cpu, extra={"simulated": m.source})

    def time_launch(torch: Any, device: str, precision: str = "fp32", *, n: int, pairs: int,
                    **kwargs: Any) -> Any:
        m = capture()
        ran = real_launch(stand_in(), device, precision, n=min(n, FAKE_CODE_SIDE), pairs=pairs,
                          **kwargs)
        return dataclasses.replace(ran, n=n, launch_s=times(m.launch_s, pairs),
                                   synchronized_s=times(m.seconds(precision, n), pairs))

    def peak_memory(torch: Any, device: str, precision: str, *, n: int, **kwargs: Any) -> Any:
        m = capture()
        ran = real_peak(stand_in(), device, precision, n=min(n, FAKE_CODE_SIDE), **kwargs)
        payload = tensors.payload_bytes(n, ran.element_size)
        return dataclasses.replace(ran, n=n, peak_bytes=payload + m.workspace_bytes,
                                   before_bytes=0)

    matmul.benchmark_pass = benchmark_pass
    matmul.time_launch = time_launch
    matmul.peak_memory = peak_memory


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
    """Make torch, the probes and the machine's files those of the recorded ``machine``.

    Raises :class:`PrerequisiteMissing` where torch is not installed or does not import:
    the fake needs a real (CPU) torch to stand on.
    """
    torch = torch_cuda.import_torch()
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
    _fake_precisions(precision_model(where, recordings.fixtures_dir()), name, where.name)
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
    except PrerequisiteMissing as exc:
        # One line naming what to install, not an INTERNALERROR's traceback.
        raise pytest.UsageError(
            f"fake CUDA (-p claims.testing.fake_cuda) runs on a real torch, a CPU build will "
            f"do (pip install torch, or the 'gpu' extra): {exc}"
        ) from None


class CudaTorch:
    """torch as a probe sees it on a CUDA machine, backed by the CPU (for unit tests).

    Tensors made with ``device="cuda"`` or moved with ``.to("cuda")`` stay on the CPU
    but report ``cuda:0``; ``cuda.synchronize`` counts its calls, so a test can check
    that every timed CUDA region was synchronized. Everything else is real torch,
    including the TF32 flags the matmul probe sets and restores.

    Its CUDA allocator statistics count what a caching allocator would: every "cuda"
    tensor made, moved or returned by a matmul holds its bytes rounded up to 512 (the
    allocator's smallest block) until it is freed, and the first matmul allocates
    ``workspace_bytes`` for good, as cuBLAS's workspace is (torch keeps it for the
    handle's life). ``memory_allocated``, ``max_memory_allocated``,
    ``reset_peak_memory_stats`` and ``empty_cache`` read and reset those counts.
    """

    BLOCK = 512  # bytes: the caching allocator rounds every block up to a multiple of it

    def __init__(self, name: str = "NVIDIA GB10", *, workspace_bytes: int = 0) -> None:
        import torch

        owner = self

        class HostTensor(torch.Tensor):
            def to(self, *args: Any, **kwargs: Any) -> Any:
                target = args[0] if args else kwargs.get("device")
                if str(target).startswith("cuda"):
                    return owner._held(self.as_subclass(CudaTensor))
                return torch.Tensor.to(self, *args, **kwargs)

        class CudaTensor(HostTensor):
            @property
            def device(self) -> Any:  # type: ignore[override]
                return torch.device("cuda:0")

            @classmethod
            def __torch_function__(cls, func: Any, types: Any, args: Any = (),
                                   kwargs: Any = None) -> Any:
                product = func in (torch.Tensor.__matmul__, torch.matmul, torch.Tensor.matmul)
                if product:
                    owner._first_product()
                out = super().__torch_function__(  # type: ignore[no-untyped-call]
                    func, types, args, kwargs or {})
                return owner._held(out) if product else out

        self._torch = torch
        self._host, self._tensor = HostTensor, CudaTensor
        self.synchronized = 0
        self.workspace_bytes = workspace_bytes
        self.allocated = 0
        self.peak = 0
        self._workspace = False
        self.cuda = SimpleNamespace(is_available=lambda: True, device_count=lambda: 1,
                                    get_device_name=lambda device=None: name,
                                    synchronize=self._synchronize,
                                    memory_allocated=lambda device=None: self.allocated,
                                    max_memory_allocated=lambda device=None: self.peak,
                                    reset_peak_memory_stats=self._reset_peak,
                                    empty_cache=lambda: None)

    def _synchronize(self, device: Any = None) -> None:
        self.synchronized += 1

    def _reset_peak(self, device: Any = None) -> None:
        self.peak = self.allocated

    def _grow(self, size: int) -> None:
        self.allocated += size
        self.peak = max(self.peak, self.allocated)

    def _free(self, size: int) -> None:
        self.allocated -= size

    def _held(self, tensor: Any) -> Any:
        """Count a "cuda" tensor's bytes until it is garbage (as a block of the allocator)."""
        import weakref

        size = -(-int(tensor.nbytes) // self.BLOCK) * self.BLOCK
        self._grow(size)
        weakref.finalize(tensor, self._free, size)
        return tensor

    def _first_product(self) -> None:
        if not self._workspace:
            self._workspace = True
            self._grow(self.workspace_bytes)

    def _make(self, fn: Any, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if str(device).startswith("cuda"):
            return self._held(out.as_subclass(self._tensor))
        return out.as_subclass(self._host)

    def rand(self, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        return self._make(self._torch.rand, *args, device=device, **kwargs)

    def ones(self, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        return self._make(self._torch.ones, *args, device=device, **kwargs)

    def zeros(self, *args: Any, device: Any = None, **kwargs: Any) -> Any:
        return self._make(self._torch.zeros, *args, device=device, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._torch, name)
