"""W5, the gpu tier: what only a GPU decides, measured on the machine under test
(without a CUDA torch and an NVIDIA driver every gpu test is "not run" with the reason),
and the same claims on results.json where the folder's run has the figures
(source="recorded").

The gpu tests run the benchmark as the lab does: its size (the catalog's "size", 4096),
its warm-up and iteration counts (results.json's, the script's defaults), every timed GPU
product synchronized. A timing claim is decided by the suite's timing rule
(claims.timing): one value per pass of the benchmark, the sign test's interval of their
median, at most 1 % chance of refuting a true claim (stated in the evidence); a busy
machine leaves it undecided ("not run" with the interval), never refuted. The author's own
times, rates and peaks are shown beside this machine's and judged only on the Spark.
"""

from __future__ import annotations

import statistics
from typing import Any

import pytest

from claims.probes.arithmetic import tensors
from claims.probes.arithmetic.tensors import MIB, MatmulRun
from claims.probes.machine import matmul
from claims.testing import lab
from claims.testkit import Check, Interval, not_run
from claims.testkit import record_decision as _record
from claims.timing import AtLeast as _AtLeast
from claims.timing import decide_values as _decide_values
from claims.timing.policy import PAIRED as _PAIRED
from claims.timing.policy import RECORDED as _RECORDED

FOLDER = "week-05-pytorch-tensors"
# The catalog's names for the formats, and torch's for their dtypes.
LABELS = {"fp32": "FP32", "fp16": "FP16", "bf16": "BF16"}
TORCH_NAMES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def _run() -> MatmulRun:
    """The folder's own run (results.json), read field by field."""
    return tensors.read_results(lab.lab_dir() / FOLDER / "results.json")


def _ms(value: Any) -> Interval:
    """A printed time in ms as the interval of its printed precision."""
    return Interval.stated(str(value))


# The order of each pass alternates, so neither end of a pass is always the same precision
# (a clock that boosts or throttles over a pass falls on each alike).
_ORDERS = (("fp32", "fp16", "bf16"), ("bf16", "fp16", "fp32"))


def _cuda() -> Any:
    """torch with a CUDA device, or the test ends as not run saying why."""
    from claims.probes.machine.torch_cuda import cuda_torch
    from claims.testkit import PrerequisiteMissing

    try:
        return cuda_torch()
    except PrerequisiteMissing as exc:
        not_run(str(exc))


def _size() -> int:
    """The matrix side the folder's figures are for: the catalog's "size" (W5-16BIT-FASTER)."""
    from claims.catalog import load_catalog

    text = load_catalog().get("W5-16BIT-FASTER").figure("size").text
    return int(text or "0")


def _measured(call: Any, *args: Any, **kwargs: Any) -> Any:
    """A probe's measurement, or not run when the machine lacks what it needs."""
    from claims.testkit import PrerequisiteMissing

    try:
        return call(*args, **kwargs)
    except PrerequisiteMissing as exc:
        not_run(str(exc))


@pytest.fixture(scope="module")
def w5_passes() -> Any:
    """Passes of the lab's benchmark on this GPU, as a pool the timing claims draw on.

    A pass times each precision on the GPU (results.json's warm-up and iterations, the
    median) and then FP32 on the CPU (the benchmark's CPU iterations), at the catalog's
    size. The pool measures only as many passes as the claims' timing rule asks for, up
    to the paired plan's cap, within the suite's timing budget.
    """
    from claims.timing.budget import Budget
    from claims.timing.policy import DEFAULT_BUDGET_S
    from claims.timing.procedures import SamplePool

    torch = _cuda()
    run = _run()
    size = _size()
    passes: list[Any] = []

    def take(k: int) -> list[Any]:
        out = []
        for _ in range(k):
            order = _ORDERS[len(passes) % len(_ORDERS)]
            one = _measured(matmul.benchmark_pass, torch, "cuda", n=size, warmup=run.warmup,
                            iters=run.gpu_iters, cpu_iters=run.cpu_iters, order=order)
            passes.append(one)
            out.append(one)
        return out

    return SamplePool(take, _PAIRED.looks[-1], budget=Budget(DEFAULT_BUDGET_S),
                      name="W5 benchmark passes", first_look=_PAIRED.looks[0])


@pytest.fixture(scope="module")
def w5_peaks() -> dict[str, Any]:
    """Peak memory of one product per precision at the catalog's size (bytes)."""
    torch = _cuda()
    size = _size()
    return {p: _measured(matmul.peak_memory, torch, "cuda", p, n=size) for p in LABELS}


def _median(values: list[float]) -> float:
    return float(statistics.median(values))


def _precision_rows(run: MatmulRun, passes: list[Any], peaks: dict[str, Any] | None,
                    device: str | None) -> list[dict[str, Any]]:
    """The precisions chart: the document's run (results.json) beside this machine's."""
    rows: list[dict[str, Any]] = [
        {"label": f"{run.device}, the document's run", "source": "recorded",
         "precision": r.precision, "gflops": float(r.gflops), "peak_mib": float(r.peak_mib)}
        for r in run.rows]
    if passes or peaks:
        for key in LABELS:
            row: dict[str, Any] = {"label": f"{device or 'this machine'}, measured here",
                                   "source": "measured", "precision": key}
            if passes:
                row["gflops"] = _median([p.gpu[key].gflops for p in passes])
            if peaks:
                row["peak_mib"] = peaks[key].peak_mib
            rows.append(row)
    return rows


def _device_name(torch: Any) -> str:
    return str(torch.cuda.get_device_name(0))


# ---- 16-bit faster than FP32 ----------------------------------------------------------
def _show_times(check: Check, passes: list[Any]) -> None:
    """This machine's medians beside the author's (judged on the Spark only: particular)."""
    for key, label in LABELS.items():
        ms = _median([p.gpu[key].median_ms for p in passes])
        rate = _median([p.gpu[key].gflops for p in passes])
        check.against(f"{label} time", round(ms, 3), unit="ms",
                      note=f"median over {len(passes)} passes of each pass's median")
        check.against(f"{label} rate", round(rate, 1), unit="GFLOP/s")


@pytest.mark.gpu
@pytest.mark.claim("W5-16BIT-FASTER")
def test_16bit_matmul_faster_than_fp32(check: Check, w5_passes: Any,
                                       w5_peaks: dict[str, Any]) -> None:
    from claims.timing.procedures import decide_pool

    torch = _cuda()
    check.fact("gpu.name", _device_name(torch))
    check.fact("torch.version", str(torch.__version__))
    bar = check.premise("16-bit faster than FP32")
    for key in ("fp16", "bf16"):
        decision = decide_pool(w5_passes, lambda p, k=key: p.over("fp32", k),
                               _AtLeast(bar, strict=True), _PAIRED, unit="x")
        _record(check, f"FP32 time over {LABELS[key]} time, per pass", decision,
                expected=f"above {bar:g}x, the median over passes")
    passes = list(w5_passes.items)
    check.attach("benchmark passes", [p.to_json() for p in passes], kind="json")
    _show_times(check, passes)
    check.chart("precisions", _precision_rows(_run(), passes, w5_peaks, _device_name(torch)),
                title="Matmul rate and peak memory per precision, the document's run and this "
                      "machine's")


@pytest.mark.offline
@pytest.mark.claim("W5-16BIT-FASTER", source="recorded")
def test_16bit_matmul_faster_than_fp32_recorded(check: Check) -> None:
    run = _run()
    check.fact("lab evidence", lab.PROVENANCE)
    check.against("size", run.size)
    bar = check.premise("16-bit faster than FP32")
    fp32 = run.row("fp32")
    for key in ("fp16", "bf16"):
        row = run.row(key)
        decision = _decide_values([float(fp32.median_ms / row.median_ms)],
                                  _AtLeast(bar, strict=True), _RECORDED, unit="x")
        _record(check, f"FP32 time over {LABELS[key]} time", decision, recorded=True,
                expected=f"above {bar:g}x (results.json's medians)")
    for row in run.rows:
        label = LABELS[row.precision]
        check.against(f"{label} time", _ms(row.median_ms), unit="ms")
        check.against(f"{label} rate", Interval.stated(str(row.gflops)), unit="GFLOP/s")
    check.chart("precisions", _precision_rows(run, [], None, None),
                title="Matmul rate and peak memory per precision, the document's run")


# ---- the GPU faster than the CPU --------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.claim("W5-GPU-FASTER-THAN-CPU")
def test_gpu_faster_than_cpu_at_fp32(check: Check, w5_passes: Any) -> None:
    from claims.timing.procedures import decide_pool

    bar = check.premise("GPU faster than CPU")
    decision = decide_pool(w5_passes, lambda p: p.over("cpu", "fp32"),
                           _AtLeast(bar, strict=True), _PAIRED, unit="x")
    passes = list(w5_passes.items)
    if passes:
        check.fact("matmul.cpu_threads", passes[0].cpu_threads)
        check.against("CPU FP32 time", round(_median([p.cpu.median_ms for p in passes]), 3),
                      unit="ms", note=f"torch's {passes[0].cpu_threads} CPU threads")
        check.observe("GPU FP32 time", round(_median([p.gpu["fp32"].median_ms
                                                      for p in passes]), 3), unit="ms")
    _record(check, "CPU time over GPU time at FP32, per pass", decision,
            expected=f"above {bar:g}x, the median over passes")


@pytest.mark.offline
@pytest.mark.claim("W5-GPU-FASTER-THAN-CPU", source="recorded")
def test_gpu_faster_than_cpu_recorded(check: Check) -> None:
    run = _run()
    bar = check.premise("GPU faster than CPU")
    check.against("CPU FP32 time", _ms(run.cpu_fp32_ms), unit="ms")
    decision = _decide_values([float(run.cpu_fp32_ms / run.row("fp32").median_ms)],
                              _AtLeast(bar, strict=True), _RECORDED, unit="x")
    _record(check, "CPU time over GPU time at FP32", decision, recorded=True,
            expected=f"above {bar:g}x (results.json's medians)")


# ---- the order, run to run ---------------------------------------------------------------
def _narrowest(one: Any) -> float:
    """A pass's narrowest margin: the slower 16-bit format against FP32, the GPU against
    the CPU (x); above 1 when the pass kept the whole order."""
    return min(one.over("fp32", "fp16"), one.over("fp32", "bf16"), one.over("cpu", "fp32"))


@pytest.mark.gpu
@pytest.mark.claim("W5-ORDER-STABLE")
def test_order_stable_from_run_to_run(check: Check, w5_passes: Any) -> None:
    from claims.timing.procedures import decide_pool

    bar = check.premise("narrowest margin of the faster side, per run")
    decision = decide_pool(w5_passes, _narrowest, _AtLeast(bar, strict=True), _PAIRED,
                           unit="x")
    passes = list(w5_passes.items)
    kept = sum(1 for p in passes if _narrowest(p) > bar)
    check.observe("passes that kept the order", kept,
                  note=f"of {len(passes)}: FP16 and BF16 faster than FP32, GPU than CPU")
    fp16_first = sum(1 for p in passes if p.gpu["fp16"].median_s < p.gpu["bf16"].median_s)
    # That FP16 and BF16 may swap is a permission: either order agrees with the claim.
    check.observe("passes where FP16 beat BF16", fp16_first,
                  note=f"of {len(passes)}; reported, not judged (the two may swap)")
    _record(check, "narrowest margin of each pass", decision,
            expected=f"above {bar:g}x in the median pass")


# ---- peak memory ---------------------------------------------------------------------------
def _peak_claims(check: Check, peaks: dict[str, float], payloads: dict[str, float],
                 where: str) -> None:
    """The claim's two general forms, from peaks and payloads in MiB."""
    for key, label in LABELS.items():
        check.observe(f"{label} peak over its payload", round(peaks[key] - payloads[key], 3),
                      unit="MiB", note=f"{where}: the working allocation beside the matrices")
    check.against("peak above the payload", all(peaks[k] > payloads[k] for k in LABELS),
                  note=", ".join(f"{LABELS[k]} {peaks[k]:.1f} > {payloads[k]:.1f} MiB"
                                 for k in LABELS))
    check.against("16-bit peak below FP32 peak",
                  peaks["fp16"] < peaks["fp32"] and peaks["bf16"] < peaks["fp32"],
                  note=f"FP32 {peaks['fp32']:.1f}, FP16 {peaks['fp16']:.1f}, BF16 "
                       f"{peaks['bf16']:.1f} MiB")


@pytest.mark.gpu
@pytest.mark.claim("W5-PEAK-MEMORY")
def test_peak_memory_above_payload_and_lower_at_16_bits(check: Check,
                                                        w5_peaks: dict[str, Any]) -> None:
    check.attach("peak memory per precision", {k: v.to_json() for k, v in w5_peaks.items()},
                 kind="json")
    for key, peak in w5_peaks.items():
        check.against(f"{LABELS[key]} peak", round(peak.peak_mib, 1), unit="MiB",
                      note=f"max_memory_allocated; {peak.before_bytes:,} B were allocated "
                           "before the operands")
    _peak_claims(check, {k: v.peak_mib for k, v in w5_peaks.items()},
                 {k: v.payload_bytes / MIB for k, v in w5_peaks.items()}, "this GPU")


@pytest.mark.offline
@pytest.mark.claim("W5-PEAK-MEMORY", source="recorded")
def test_peak_memory_recorded(check: Check) -> None:
    run = _run()
    for row in run.rows:
        check.against(f"{LABELS[row.precision]} peak", Interval.stated(str(row.peak_mib)),
                      unit="MiB")
    payloads = {r.precision: tensors.payload_bytes(run.size, run.dtype_bytes[TORCH_NAMES[
        r.precision]]) / MIB for r in run.rows}
    _peak_claims(check, {r.precision: float(r.peak_mib) for r in run.rows}, payloads,
                 "results.json")


# ---- timing without synchronize ----------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.claim("W5-NO-SYNC-LAUNCH")
def test_unsynchronized_timing_measures_the_launch(check: Check) -> None:
    from claims.timing.budget import Budget
    from claims.timing.policy import DEFAULT_BUDGET_S
    from claims.timing.procedures import SamplePool, decide_pool

    torch = _cuda()
    size = _size()
    bar = check.premise("synchronized over unsynchronized")
    timings: list[Any] = []

    def take(k: int) -> list[float]:
        timing = _measured(matmul.time_launch, torch, "cuda", "fp32", n=size, pairs=k)
        timings.append(timing)
        return timing.ratios()

    pool: SamplePool[float] = SamplePool(take, _PAIRED.looks[-1], budget=Budget(DEFAULT_BUDGET_S),
                                         name="W5 launch pairs", first_look=_PAIRED.looks[0])
    decision = decide_pool(pool, lambda ratio: ratio, _AtLeast(bar), _PAIRED, unit="x")
    check.attach("pairs (launch, synchronized)", [t.to_json() for t in timings], kind="json")
    launch = [s for t in timings for s in t.launch_s]
    synced = [s for t in timings for s in t.synchronized_s]
    if launch:
        check.observe("median without synchronize", round(_median(launch) * 1e3, 4), unit="ms",
                      note=f"FP32, n = {size}: the clock stopped when a @ b returned")
        check.observe("median with synchronize", round(_median(synced) * 1e3, 4), unit="ms")
    _record(check, "synchronized time over the unsynchronized one, per pair", decision,
            expected=f"at least {bar:g}x, the median over pairs")


# ---- memory grows as the square of the side -------------------------------------------------
@pytest.mark.gpu
@pytest.mark.claim("W5-MEMORY-SQUARE")
def test_memory_grows_as_the_square_of_the_side(check: Check) -> None:
    torch = _cuda()
    size = _size()
    sides = (size // 4, size // 2, size)
    peaks = [_measured(matmul.peak_memory, torch, "cuda", "fp32", n=side) for side in sides]
    check.attach("peak memory per side", [p.to_json() for p in peaks], kind="json")
    for side, peak in zip(sides, peaks, strict=True):
        check.observe(f"FP32 peak at n = {side}", round(peak.peak_mib, 3), unit="MiB")
    exponent = matmul.growth_exponent(sides, [p.peak_bytes for p in peaks])
    check.against("growth exponent", round(exponent, 3),
                  note=f"log2 of the growth from {sides[1]} to {sides[2]} over the growth from "
                       f"{sides[0]} to {sides[1]} (peaks at FP32)")


# ---- the environment the folder records ----------------------------------------------------
@pytest.mark.gpu
@pytest.mark.claim("W5-ENV-TORCH")
def test_torch_build_and_cuda_runtime(check: Check) -> None:
    from claims.probes.machine.torch_cuda import torch_build

    build = torch_build()
    check.fact("torch.version", build.version)
    check.against("torch version", build.version)
    check.against("CUDA runtime", build.cuda or "none (a CPU build)",
                  note="torch.version.cuda: the CUDA runtime torch was built for")
    check.against("CUDA available", build.cuda_available)


@pytest.mark.gpu
@pytest.mark.claim("W5-ENV-DEVICE")
def test_device_and_its_unified_memory(check: Check) -> None:
    from claims.probes.machine.system import free_h_size, memory_bytes
    from claims.probes.machine.torch_cuda import device_facts

    _cuda()
    dev = device_facts(0)
    check.fact("gpu.name", dev.name)
    check.against("device name", dev.name)
    check.observe("integrated GPU (torch)", dev.is_integrated)
    check.observe("system memory as free -h prints it", free_h_size(memory_bytes() // 1024))
    check.against("unified memory", dev.total_memory / 2**30, unit="GiB",
                  note="torch's total memory of device 0 (an integrated GPU's is the system's "
                       "pool, MemTotal)")


@pytest.mark.gpu
@pytest.mark.claim("W5-ENV-DRIVER")
def test_driver_version(check: Check) -> None:
    from claims.probes.machine import nvidia
    from claims.testkit import ProbeError

    try:
        run = nvidia.nvidia_smi_text()
    except ProbeError as exc:
        not_run(f"nvidia-smi could not be read: {exc}")
    header = nvidia.parse_smi_header(run.stdout)
    check.attach("nvidia-smi", run.transcript())
    check.fact("nvidia.driver", header.driver_version)
    check.against("driver", header.driver_version or "none reported")


@pytest.mark.gpu
@pytest.mark.claim("W5-TRANSFER")
def test_to_cuda_moves_a_copy_to_the_gpu(check: Check) -> None:
    from claims.probes.machine.torch_cuda import tensor_device

    torch = _cuda()
    cpu_tensor = torch.ones(3)
    device = tensor_device("cuda")
    check.measure("the copy's device", device, holds=device.startswith("cuda"),
                  expected="cuda:0", note="tensor_basics.py's cpu_tensor.to(\"cuda\")")
    check.measure("the original's device", str(cpu_tensor.device),
                  holds=str(cpu_tensor.device) == "cpu", expected="cpu")
