"""Matrix-multiply throughput with torch: CPU against GPU, FP32 against TF32.

What this probe measures, and in which unit:

* the time of one nxn float32 matrix product ``a @ b`` (seconds; n = 4096 as
  in Week 1), as the median of several timed runs after a warm-up, and the
  rate it implies in TFLOP/s = 2·n³ / t / 10¹² (n³ multiply-adds, two
  floating-point operations each);
* on the CPU with every CPU this process may run on (``torch.set_num_threads`` is
  set to :func:`claims.probes.machine.system.usable_cpus` for the measurement and
  restored afterwards: the affinity mask, capped by a cgroup CPU quota, not the
  host's count a container would see in ``os.cpu_count()``);
* on a CUDA device with TF32 explicitly off (``allow_tf32 = False`` and
  float32 matmul precision "highest": true FP32) and then on ("high": the
  tensor cores round inputs to TF32). The settings in force are recorded with
  every figure and the process's own settings are restored afterwards;
* the memory bandwidth a device sustains (:func:`bench_copy`): one device-to-device
  copy of a large buffer (1 GiB by default), timed as the median of several runs
  after a warm-up, each bracketed by ``torch.cuda.synchronize()``; a copy of N
  bytes reads N and writes N, so the rate is 2·N / t in GB/s (10⁹ bytes/s),
  the unit memory datasheets use (:data:`BANDWIDTH_PEAKS`);
* the cold first call: the first product a fresh process runs on the device,
  timed alone (:func:`cold_first_call`, which a caller runs in a new
  interpreter with ``python -m claims.probes.machine.gpu cold`` so nothing is warm).

Honest GPU timing: CUDA launches kernels asynchronously, so each timed region
is bracketed by ``torch.cuda.synchronize()``; without it a clock would measure
queueing, not computing. The functions run on the CPU at small sizes, which is
how tests/probes/machine/test_gpu.py checks their logic without a GPU.

:data:`PEAKS` holds published peak rates for a few devices so a measurement
can be set beside the datasheet; a measurement above the peak means the timing
is wrong (:class:`ImplausibleRate`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from claims.probes.errors import ProbeError
from claims.probes.machine.system import cpu_model, usable_cpus
from claims.probes.machine.torch_cuda import cuda_torch, fresh_python, import_torch

__all__ = [
    "BANDWIDTH_PEAKS",
    "PEAKS",
    "BandwidthPeak",
    "CopyResult",
    "ImplausibleRate",
    "MatmulResult",
    "Peak",
    "TimedSeries",
    "bandwidth_peak_for",
    "bench_copy",
    "bench_matmul",
    "check_plausible",
    "cold_first_call",
    "cold_in_fresh_process",
    "matmul_flops",
    "peak_for",
    "tf32_override",
    "tflops",
]

Device = Literal["cpu", "cuda"]
Precision = Literal["fp32", "tf32"]
DEFAULT_N = 4096
DEFAULT_WARMUP = 3
DEFAULT_RUNS = 10
# A timing series function: call ``fn`` ``warmup`` times untimed, then ``runs``
# times timed; return the timed durations in seconds. The default uses
# perf_counter_ns; the gpu tests pass pytest-benchmark's pedantic runner.
SeriesRunner = Callable[[Callable[[], None], int, int], list[float]]


class ImplausibleRate(ProbeError):
    """A measured rate above the device's published peak: the timing cannot be right."""


@dataclass(frozen=True)
class Peak:
    """A device's published peak throughput (dense, no sparsity) in TFLOP/s."""

    fp32: float | None
    tf32: float | None
    source: str


def _hopper(product: str, model: str, fp32: float, tf32_sparse: float) -> Peak:
    """A peak as the H100/H200 datasheets print it: TF32 "with sparsity", twice the dense rate."""
    return Peak(fp32, tf32_sparse / 2,
                f"NVIDIA {product} Tensor Core GPU datasheet, {model}: FP32 {fp32:g} TFLOPS, "
                f"TF32 Tensor Core {tf32_sparse:g} TFLOPS with sparsity")


_A100 = Peak(19.5, 156.0, "NVIDIA A100 Tensor Core GPU datasheet: FP32 19.5 TFLOPS, TF32 Tensor "
             "Core 156 TFLOPS (312 with sparsity)")
# Published peaks, dense: a plain matmul cannot use sparsity. Keys are the
# names torch.cuda.get_device_name() returns.
PEAKS: dict[str, Peak] = {
    "NVIDIA GB10": Peak(31.0, None, "NVIDIA, GB10 presentation at Hot Chips 2025 (Aug 2025): "
                        "about 31 TFLOPS FP32; no TF32 figure published"),
    "NVIDIA H100 80GB HBM3": _hopper("H100", "H100 SXM", 67.0, 989.0),
    "NVIDIA H100 PCIe": _hopper("H100", "H100 PCIe", 51.0, 756.0),
    "NVIDIA H100 NVL": _hopper("H100", "H100 NVL", 60.0, 835.0),
    "NVIDIA H200": _hopper("H200", "H200 SXM", 67.0, 989.0),
    "NVIDIA H200 NVL": _hopper("H200", "H200 NVL", 60.0, 835.0),
    **dict.fromkeys(("NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe",
                     "NVIDIA A100-PCIE-40GB"), _A100),
}


def peak_for(device_name: str) -> Peak | None:
    """The published peak of a device by its torch name, if this table knows it.

    A MIG slice (torch names it "<GPU name> MIG 3g.40gb") gets its GPU's peak: a slice
    runs on a share of the GPU's SMs, so the whole GPU's peak bounds it from above,
    which is what the plausibility check needs.
    """
    name = device_name.strip()
    return PEAKS.get(name) or PEAKS.get(name.split(" MIG ", 1)[0])


# Environment variables that change what a float32 matmul runs as behind torch's back:
# NVIDIA's libraries read NVIDIA_TF32_OVERRIDE (0 forbids TF32 whatever the program
# asks; NVIDIA documents it as a debugging switch), torch reads
# TORCH_ALLOW_TF32_CUBLAS_OVERRIDE (1 lets cuBLAS use TF32 even with allow_tf32 False).


def tf32_override(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the FP32/TF32 series cannot be told apart here (None: nothing overrides them).

    With either variable set, the "FP32" series may run on TF32 tensor cores or the
    "TF32" series without them, whatever the probe sets: the comparison would not be
    FP32 against TF32.
    """
    env = os.environ if environ is None else environ
    nvidia = env.get("NVIDIA_TF32_OVERRIDE")
    if nvidia is not None and nvidia.strip() != "":
        if nvidia.strip() == "0":
            return ("NVIDIA_TF32_OVERRIDE=0 forbids TF32 in NVIDIA's libraries, so the TF32 "
                    "series would run as FP32")
        return (f"NVIDIA_TF32_OVERRIDE={nvidia.strip()} overrides the TF32 setting of "
                "NVIDIA's libraries, so the FP32 series may not be true FP32")
    torch_override = env.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "").strip()
    if torch_override and torch_override != "0":
        return (f"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE={torch_override} lets cuBLAS use TF32 "
                "with allow_tf32 off, so the FP32 series would run as TF32")
    return None


def matmul_flops(n: int) -> int:
    """Floating-point operations of one nxn by nxn product: n³ multiply-adds = 2·n³."""
    if n <= 0:
        raise ValueError(f"matrix size must be positive, got {n}")
    return 2 * n**3


def tflops(n: int, seconds: float) -> float:
    """TFLOP/s of one nxn product that took ``seconds``."""
    if seconds <= 0:
        raise ValueError(f"a duration must be positive, got {seconds!r} s")
    return matmul_flops(n) / seconds / 1e12


class TimedSeries:
    """A series of timed runs of one operation (``times_s``, seconds each) and its median,
    in seconds and in milliseconds; mixed into each result dataclass that holds one."""

    times_s: tuple[float, ...]

    @property
    def median_s(self) -> float:
        return float(statistics.median(self.times_s))

    @property
    def median_ms(self) -> float:
        return self.median_s * 1e3


@dataclass(frozen=True)
class MatmulResult(TimedSeries):
    """One timing series of ``a @ b`` and the settings it ran under."""

    device: str  # "cpu" or "cuda"
    device_name: str  # CPU model or GPU name
    precision: str  # "fp32" (TF32 off) or "tf32" (TF32 on)
    n: int
    dtype: str
    threads: int | None  # torch CPU threads in use (CPU runs)
    allow_tf32: bool  # torch.backends.cuda.matmul.allow_tf32 during the runs
    float32_matmul_precision: str  # torch.get_float32_matmul_precision() during the runs
    fp32_precision: str | None  # torch.backends.cuda.matmul.fp32_precision, where it exists
    warmup: int
    times_s: tuple[float, ...]
    timer: str  # what took the times ("perf_counter_ns", "pytest-benchmark")

    @property
    def tflops(self) -> float:
        return tflops(self.n, self.median_s)

    def to_json(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "device_name": self.device_name,
            "precision": self.precision,
            "n": self.n,
            "dtype": self.dtype,
            "threads": self.threads,
            "allow_tf32": self.allow_tf32,
            "float32_matmul_precision": self.float32_matmul_precision,
            "fp32_precision": self.fp32_precision,
            "warmup": self.warmup,
            "runs": len(self.times_s),
            "times_ms": [round(t * 1e3, 4) for t in self.times_s],
            "median_ms": self.median_ms,
            "tflops": self.tflops,
            "timer": self.timer,
        }

    def chart_row(self) -> dict[str, Any]:
        """A row for check.chart("matmul", ...)."""
        return {"device": "gpu" if self.device == "cuda" else "cpu", "precision": self.precision,
                "tflops": self.tflops, "ms": self.median_ms}


def _torch_for(device: str) -> Any:
    """torch, checked to see a CUDA device when ``device`` is "cuda"."""
    return cuda_torch() if device == "cuda" else import_torch()


# --- TF32 settings -------------------------------------------------------------------
@dataclass(frozen=True)
class PrecisionState:
    allow_tf32: bool
    float32_matmul_precision: str
    fp32_precision: str | None


def _read_state(torch: Any) -> PrecisionState:
    matmul = torch.backends.cuda.matmul
    try:
        fp32 = str(matmul.fp32_precision)
    except (AttributeError, RuntimeError):
        fp32 = None
    try:
        allow = bool(matmul.allow_tf32)
    except RuntimeError as exc:
        # torch >= 2.9 refuses to read the legacy flag after the new API set a
        # conflicting value; this probe only uses the legacy API.
        raise ProbeError(f"cannot read torch's TF32 flag: {exc}") from None
    return PrecisionState(allow, str(torch.get_float32_matmul_precision()), fp32)


@contextmanager
def _precision(torch: Any, precision: Precision) -> Iterator[PrecisionState]:
    """Set TF32 off ("fp32") or on ("tf32") explicitly; restore the old settings on exit."""
    before = _read_state(torch)
    on = precision == "tf32"
    try:
        torch.backends.cuda.matmul.allow_tf32 = on
        torch.set_float32_matmul_precision("high" if on else "highest")
        yield _read_state(torch)
    finally:
        # Only the legacy API is used to restore: mixing it with fp32_precision
        # makes torch refuse to read the flag back (see _read_state).
        torch.backends.cuda.matmul.allow_tf32 = before.allow_tf32
        torch.set_float32_matmul_precision(before.float32_matmul_precision)


@contextmanager
def _threads(torch: Any, count: int | None) -> Iterator[int]:
    before = int(torch.get_num_threads())
    try:
        if count is not None:
            torch.set_num_threads(count)
        yield int(torch.get_num_threads())
    finally:
        torch.set_num_threads(before)


# --- timing -------------------------------------------------------------------------------
def perf_counter_series(fn: Callable[[], None], warmup: int, runs: int) -> list[float]:
    """Call ``fn`` ``warmup`` times, then time ``runs`` calls (seconds each)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        times.append((time.perf_counter_ns() - t0) / 1e9)
    return times


def _no_sync() -> None:
    return None


def _product(torch: Any, device: str, n: int, seed: int) -> Callable[[], None]:
    """The timed unit: ``a @ b`` for two random nxn float32 matrices already on ``device``.

    A call returns once the product is finished: on CUDA it synchronizes the
    device, so a clock around it measures computing, not queueing. Creating
    and copying the operands happens here, before any clock starts.
    """
    sync: Callable[[], None] = torch.cuda.synchronize if device == "cuda" else _no_sync
    gen = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.rand(n, n, generator=gen, dtype=torch.float32).to(device)
    b = torch.rand(n, n, generator=gen, dtype=torch.float32).to(device)
    sync()

    def step() -> None:
        torch.matmul(a, b)
        sync()

    return step


def bench_matmul(
    device: Device = "cpu",
    *,
    n: int = DEFAULT_N,
    precision: Precision = "fp32",
    warmup: int = DEFAULT_WARMUP,
    runs: int = DEFAULT_RUNS,
    threads: int | None = None,
    series: SeriesRunner | None = None,
    timer_name: str | None = None,
    seed: int = 0,
) -> MatmulResult:
    """Time ``a @ b`` for two random nxn float32 matrices on ``device``.

    ``threads`` (CPU only) defaults to the CPUs this process may use
    (:func:`~claims.probes.machine.system.usable_cpus`). On CUDA every timed
    call synchronizes the device before it returns, so the clock stops when
    the product is finished, not when it is queued. TF32 is set explicitly
    for the runs (``precision``) and restored afterwards.
    """
    if runs < 1 or warmup < 0:
        raise ValueError("need at least one timed run and a non-negative warm-up")
    if precision not in ("fp32", "tf32"):
        raise ValueError(f"precision must be 'fp32' or 'tf32', not {precision!r}")
    torch = _torch_for(device)
    if device == "cuda":
        name = str(torch.cuda.get_device_name(0))
        want_threads = None
    elif device == "cpu":
        name = cpu_model()
        want_threads = threads or usable_cpus()
    else:
        raise ValueError(f"device must be 'cpu' or 'cuda', not {device!r}")
    step = _product(torch, device, n, seed)
    with _threads(torch, want_threads) as used, _precision(torch, precision) as state:
        runner = series or perf_counter_series
        times = runner(step, warmup, runs)
    if len(times) != runs or not all(t > 0 for t in times):
        raise ProbeError(f"the timing series returned {len(times)} durations for {runs} runs "
                         "(or a non-positive one)")
    return MatmulResult(
        device=device,
        device_name=name,
        precision=precision,
        n=n,
        dtype="float32",
        threads=used if device == "cpu" else None,
        allow_tf32=state.allow_tf32,
        float32_matmul_precision=state.float32_matmul_precision,
        fp32_precision=state.fp32_precision,
        warmup=warmup,
        times_s=tuple(float(t) for t in times),
        timer=timer_name or ("perf_counter_ns" if series is None else "custom"),
    )


def check_plausible(result: MatmulResult, peak: Peak | None) -> float | None:
    """The fraction of the published peak a result reached (None when no peak is known).

    Raises :class:`ImplausibleRate` above the peak: no kernel beats the
    datasheet, so such a figure means the clock stopped before the work did.
    """
    if peak is None:
        return None
    limit = peak.tf32 if result.precision == "tf32" else peak.fp32
    if limit is None:
        return None
    fraction = result.tflops / limit
    if fraction > 1.0:
        raise ImplausibleRate(
            f"{result.device_name} {result.precision}: {result.tflops:.1f} TFLOP/s exceeds the "
            f"published peak of {limit:g} TFLOP/s ({peak.source}); the timing is wrong")
    return fraction


# --- memory bandwidth ------------------------------------------------------------------
DEFAULT_COPY_BYTES = 1 << 30  # 1 GiB: far beyond every cache, so the copy streams memory


@dataclass(frozen=True)
class BandwidthPeak:
    """A device's published memory bandwidth in GB/s (10⁹ bytes per second)."""

    gb_per_s: float
    source: str


def _hbm(product: str, model: str, tb_per_s: float) -> BandwidthPeak:
    return BandwidthPeak(tb_per_s * 1000, f"NVIDIA {product} datasheet, {model}: GPU memory "
                         f"bandwidth {tb_per_s:g} TB/s")


# Published memory bandwidth, keyed by torch.cuda.get_device_name(). Not the GB10's (the
# DGX Spark's): that is a stated figure of the catalog, with its source (W1-SHARED-BANDWIDTH,
# "GB10 memory bandwidth"), which a probe does not read; its readers take it from there.
BANDWIDTH_PEAKS: dict[str, BandwidthPeak] = {
    "NVIDIA H100 80GB HBM3": _hbm("H100 Tensor Core GPU", "H100 SXM", 3.35),
    "NVIDIA H100 PCIe": _hbm("H100 Tensor Core GPU", "H100 PCIe", 2.0),
    "NVIDIA H100 NVL": _hbm("H100 Tensor Core GPU", "H100 NVL", 3.9),
    "NVIDIA H200": _hbm("H200 Tensor Core GPU", "H200 SXM", 4.8),
    "NVIDIA H200 NVL": _hbm("H200 Tensor Core GPU", "H200 NVL", 4.8),
    "NVIDIA A100-SXM4-80GB": _hbm("A100 Tensor Core GPU", "A100 80GB SXM", 2.039),
    "NVIDIA A100 80GB PCIe": _hbm("A100 Tensor Core GPU", "A100 80GB PCIe", 1.935),
    "NVIDIA A100-SXM4-40GB": _hbm("A100 Tensor Core GPU", "A100 40GB", 1.555),
    "NVIDIA A100-PCIE-40GB": _hbm("A100 Tensor Core GPU", "A100 40GB", 1.555),
}


def bandwidth_peak_for(device_name: str) -> BandwidthPeak | None:
    """The published memory bandwidth of a device by its torch name (MIG suffix ignored)."""
    name = device_name.strip()
    return BANDWIDTH_PEAKS.get(name) or BANDWIDTH_PEAKS.get(name.split(" MIG ", 1)[0])


@dataclass(frozen=True)
class CopyResult(TimedSeries):
    """One timing series of ``dst.copy_(src)`` for two buffers on one device."""

    device: str
    device_name: str
    nbytes: int  # the size of one buffer
    warmup: int
    times_s: tuple[float, ...]

    @property
    def gb_per_s(self) -> float:
        """Bytes moved (read + written: 2 x nbytes) per second, in 10⁹ bytes/s."""
        return 2 * self.nbytes / self.median_s / 1e9

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device, "device_name": self.device_name, "nbytes": self.nbytes,
                "warmup": self.warmup, "runs": len(self.times_s),
                "times_ms": [round(t * 1e3, 4) for t in self.times_s],
                "median_ms": self.median_s * 1e3, "gb_per_s": self.gb_per_s,
                "bytes_moved_per_copy": 2 * self.nbytes}


def bench_copy(device: Device = "cpu", *, nbytes: int = DEFAULT_COPY_BYTES,
               warmup: int = DEFAULT_WARMUP, runs: int = DEFAULT_RUNS) -> CopyResult:
    """Time a device-to-device copy of ``nbytes`` between two buffers on ``device``.

    Both buffers are allocated (and touched, so their pages exist) before any
    clock starts; on CUDA each timed copy ends with ``torch.cuda.synchronize()``.
    """
    if runs < 1 or warmup < 0 or nbytes < 1:
        raise ValueError("need at least one timed run, a non-negative warm-up and a buffer")
    torch = _torch_for(device)
    if device == "cuda":
        name = str(torch.cuda.get_device_name(0))
    elif device == "cpu":
        name = cpu_model()
    else:
        raise ValueError(f"device must be 'cpu' or 'cuda', not {device!r}")
    sync: Callable[[], None] = torch.cuda.synchronize if device == "cuda" else _no_sync
    src = torch.ones(nbytes, dtype=torch.uint8, device=device)
    dst = torch.zeros(nbytes, dtype=torch.uint8, device=device)
    sync()

    def step() -> None:
        dst.copy_(src)
        sync()

    times = perf_counter_series(step, warmup, runs)
    return CopyResult(device=device, device_name=name, nbytes=nbytes, warmup=warmup,
                      times_s=tuple(float(t) for t in times))


# --- the cold first call ------------------------------------------------------------------------
def cold_first_call(device: Device = "cuda", *, n: int = DEFAULT_N, warm_runs: int = 10,
                    warmup: int = 3) -> dict[str, Any]:
    """Time the first product on ``device`` in this process, then the warm median.

    Meant to run in a fresh interpreter (``python -m claims.probes.machine.gpu cold``):
    the first call then pays the one-time costs Week 1 describes (loading the
    matmul kernels and creating the cuBLAS handle). Creating the CUDA context
    and copying the inputs happen before the clock starts, as in the post's
    benchmark. TF32 is off (true FP32). Times in milliseconds.
    """
    torch = _torch_for(device)
    with _precision(torch, "fp32") as state:
        step = _product(torch, device, n, seed=0)
        (cold_s,) = perf_counter_series(step, 0, 1)  # the first call, alone
        warm = perf_counter_series(step, warmup, warm_runs)
    return {
        "device": device,
        "n": n,
        "cold_ms": cold_s * 1e3,
        "warm_median_ms": statistics.median(warm) * 1e3,
        "warm_times_ms": [t * 1e3 for t in warm],
        "allow_tf32": state.allow_tf32,
        "float32_matmul_precision": state.float32_matmul_precision,
        "torch": str(torch.__version__),
    }


def cold_in_fresh_process(device: Device = "cuda", *, n: int = DEFAULT_N, warm_runs: int = 10,
                          timeout: float = 300.0) -> dict[str, Any]:
    """Run :func:`cold_first_call` in a new interpreter, so the first call is truly cold."""
    code = ("from claims.probes.machine.gpu import main; "
            f"raise SystemExit(main(['cold', '--device', {device!r}, '--n', '{int(n)}', "
            f"'--runs', '{int(warm_runs)}']))")
    return fresh_python(code, timeout=timeout)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m claims.probes.machine.gpu cold [--device cuda] [--n 4096]``: one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m claims.probes.machine.gpu")
    sub = parser.add_subparsers(dest="command", required=True)
    cold = sub.add_parser("cold", help="time the first matmul of a fresh process")
    cold.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    cold.add_argument("--n", type=int, default=DEFAULT_N)
    cold.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    try:
        result = cold_first_call(args.device, n=args.n, warm_runs=args.runs)
    except ProbeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through a subprocess
    raise SystemExit(main())
