"""Tests of the matmul benchmark probe (claims.probes.machine.gpu), run on the CPU at small sizes.

The logic the gpu tier relies on is all here: FLOP counting, TF32 set
explicitly and restored, CPU threads set and restored, the series runner
hook pytest-benchmark plugs into, the fresh-process cold call, and the
plausibility check against published peaks.
"""

from __future__ import annotations

import dataclasses
import os

import pytest

from claims.probes.errors import PrerequisiteMissing, ProbeError
from claims.probes.machine import gpu
from claims.profiles import DGX_SPARK
from tests.extras import needs_torch

# torch missing, or installed and raising on import: skipped, naming which.
pytestmark = needs_torch

N = 48  # small enough to keep each series a few milliseconds on two cores


def test_flop_count_of_the_posts_matmul():
    # "A single 4096x4096 float32 matmul is about 137 billion floating-point operations."
    assert gpu.matmul_flops(4096) == 137_438_953_472
    assert gpu.tflops(4096, 7.67e-3) == pytest.approx(17.92, abs=0.01)
    with pytest.raises(ValueError):
        gpu.matmul_flops(0)
    with pytest.raises(ValueError):
        gpu.tflops(4096, 0.0)


@pytest.mark.slow
def test_cpu_series_uses_all_threads_and_restores_them():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        result = gpu.bench_matmul("cpu", n=N, warmup=1, runs=3)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    assert result.threads == os.cpu_count()
    assert (result.device, result.n, result.dtype) == ("cpu", N, "float32")
    assert result.precision == "fp32"
    assert len(result.times_s) == 3 and all(t > 0 for t in result.times_s)
    assert result.median_ms == pytest.approx(result.median_s * 1e3)
    assert result.tflops == pytest.approx(gpu.tflops(N, result.median_s))
    row = result.chart_row()
    assert row["device"] == "cpu" and row["precision"] == "fp32" and row["ms"] == result.median_ms


@pytest.mark.parametrize("precision, allow, level",
                         [("fp32", False, "highest"), ("tf32", True, "high")])
def test_tf32_is_set_explicitly_recorded_and_restored(precision, allow, level):
    import torch

    # Start from the opposite of what the run needs (the two settings are coupled in torch:
    # a precision below "highest" turns allow_tf32 on).
    torch.set_float32_matmul_precision("highest" if allow else "medium")
    def state() -> tuple[bool, str]:
        return torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision()

    before = state()
    assert before[0] is (not allow)
    try:
        seen = []

        def series(fn, warmup, runs):
            seen.append(state())
            return gpu.perf_counter_series(fn, warmup, runs)

        result = gpu.bench_matmul("cpu", n=N, precision=precision, warmup=0, runs=2, series=series)
        assert seen == [(allow, level)]
        assert (result.allow_tf32, result.float32_matmul_precision) == (allow, level)
        assert result.to_json()["allow_tf32"] is allow
        assert state() == before
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.set_float32_matmul_precision("highest")


def test_series_runner_receives_warmup_and_runs_and_its_times_are_kept():
    calls = []

    def series(fn, warmup, runs):
        calls.append((warmup, runs))
        fn()
        return [0.5, 0.25, 1.0]

    result = gpu.bench_matmul("cpu", n=N, warmup=2, runs=3, series=series, timer_name="stub")
    assert calls == [(2, 3)]
    assert result.times_s == (0.5, 0.25, 1.0) and result.median_s == 0.5
    assert result.timer == "stub"


@pytest.mark.parametrize("times", [[0.1], [0.1, 0.0, 0.2], [0.1, -1.0, 0.2]])
def test_a_series_with_missing_or_impossible_times_is_refused(times):
    with pytest.raises(ProbeError, match="timing series"):
        gpu.bench_matmul("cpu", n=N, warmup=0, runs=3, series=lambda fn, w, r: times)


def test_bad_arguments_and_missing_gpu():
    import torch

    with pytest.raises(ValueError):
        gpu.bench_matmul("cpu", n=N, runs=0)
    with pytest.raises(ValueError):
        gpu.bench_matmul("cpu", n=N, precision="bf16")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        gpu.bench_matmul("tpu", n=N)  # type: ignore[arg-type]
    if not torch.cuda.is_available():
        with pytest.raises(PrerequisiteMissing, match="no CUDA device"):
            gpu.bench_matmul("cuda", n=N)


def test_perf_counter_series_counts_calls():
    calls = []
    times = gpu.perf_counter_series(lambda: calls.append(1), warmup=2, runs=4)
    assert len(calls) == 6 and len(times) == 4


def _result(device_name: str, precision: str, seconds: float, n: int = 4096) -> gpu.MatmulResult:
    return gpu.MatmulResult(device="cuda", device_name=device_name, precision=precision, n=n,
                            dtype="float32", threads=None, allow_tf32=precision == "tf32",
                            float32_matmul_precision="high" if precision == "tf32" else "highest",
                            fp32_precision=None, warmup=3, times_s=(seconds,), timer="test")


def test_plausibility_against_published_peaks():
    spark = gpu.peak_for("NVIDIA GB10")
    assert spark is not None and spark.fp32 == 31.0 and spark.tf32 is None
    # The post's own figure: 17.9 TFLOP/s FP32 is 58 % of the GB10's 31 TFLOPS.
    share = gpu.check_plausible(_result("NVIDIA GB10", "fp32", 7.67e-3), spark)
    assert share == pytest.approx(17.92 / 31, abs=0.01)
    assert gpu.check_plausible(_result("NVIDIA GB10", "tf32", 3.42e-3), spark) is None
    with pytest.raises(gpu.ImplausibleRate, match="exceeds the published peak of 31"):
        gpu.check_plausible(_result("NVIDIA GB10", "fp32", 1e-3), spark)  # 137 TFLOP/s
    h200 = gpu.peak_for("NVIDIA H200")
    assert h200 is not None and h200.tf32 == 494.5
    assert gpu.check_plausible(_result("NVIDIA H200", "tf32", 0.5e-3), h200) == pytest.approx(
        274.9 / 494.5, abs=0.01)
    assert gpu.peak_for("Some Future GPU") is None
    assert gpu.check_plausible(_result("Some Future GPU", "fp32", 1e-3), None) is None


def test_peak_table_is_dense_and_cites_a_source():
    for name, peak in gpu.PEAKS.items():
        assert name.startswith("NVIDIA ") and peak.source
        if peak.fp32 is not None and peak.tf32 is not None:
            assert peak.tf32 > peak.fp32


def test_cold_first_call_in_this_process_on_the_cpu():
    out = gpu.cold_first_call("cpu", n=N, warm_runs=3, warmup=1)
    assert out["device"] == "cpu" and out["n"] == N
    assert out["cold_ms"] > 0 and len(out["warm_times_ms"]) == 3
    assert out["allow_tf32"] is False and out["float32_matmul_precision"] == "highest"


@pytest.mark.slow
def test_cold_call_in_a_fresh_interpreter():
    out = gpu.cold_in_fresh_process("cpu", n=N, warm_runs=2, timeout=120)
    assert out["device"] == "cpu" and out["cold_ms"] > 0 and out["warm_median_ms"] > 0


def test_command_line_reports_errors_in_one_line(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert gpu.main(["cold", "--device", "cuda", "--n", "8"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "no CUDA device" in err and "Traceback" not in err
    assert gpu.main(["cold", "--device", "cpu", "--n", "8", "--runs", "1"]) == 0


def test_result_json_records_the_settings_with_every_figure():
    r = dataclasses.replace(_result("NVIDIA GB10", "tf32", 3.42e-3),
                            times_s=(3.4e-3, 3.42e-3, 3.5e-3))
    out = r.to_json()
    assert out["runs"] == 3 and out["median_ms"] == pytest.approx(3.42)
    assert out["allow_tf32"] is True and out["float32_matmul_precision"] == "high"
    assert out["tflops"] == pytest.approx(40.19, abs=0.01)


# --- the CUDA path, driven by a CPU-backed stand-in for torch on a CUDA machine ----------------
@pytest.fixture
def cuda_torch(monkeypatch):
    from claims.testing.fake_cuda import CudaTorch

    fake = CudaTorch("NVIDIA GB10")
    monkeypatch.setattr(gpu, "_torch_for", lambda device: fake)
    return fake


@pytest.mark.parametrize("precision, allow", [("fp32", False), ("tf32", True)])
def test_cuda_matmul_synchronizes_every_timed_call_and_sets_tf32(cuda_torch, precision, allow):
    import torch

    before = torch.backends.cuda.matmul.allow_tf32
    result = gpu.bench_matmul("cuda", n=N, precision=precision, warmup=2, runs=3)
    # One synchronize after the inputs are copied, then one per warm-up and timed call.
    assert cuda_torch.synchronized == 1 + 2 + 3
    assert result.device == "cuda" and result.device_name == "NVIDIA GB10"
    assert result.threads is None and len(result.times_s) == 3
    assert result.allow_tf32 is allow
    assert result.float32_matmul_precision == ("high" if allow else "highest")
    assert torch.backends.cuda.matmul.allow_tf32 is before


def test_cold_first_call_on_cuda_times_the_first_product_alone(cuda_torch):
    out = gpu.cold_first_call("cuda", n=N, warm_runs=3, warmup=1)
    assert out["device"] == "cuda" and out["cold_ms"] > 0 and len(out["warm_times_ms"]) == 3
    assert out["allow_tf32"] is False and out["float32_matmul_precision"] == "highest"
    assert cuda_torch.synchronized == 1 + 1 + 1 + 3  # inputs, cold call, warm-up, timed


def test_copy_bandwidth_counts_read_and_write(cuda_torch):
    result = gpu.bench_copy("cuda", nbytes=1 << 20, warmup=1, runs=3)
    assert cuda_torch.synchronized == 1 + 1 + 3
    assert result.device_name == "NVIDIA GB10"
    assert result.gb_per_s == pytest.approx(2 * (1 << 20) / result.median_s / 1e9)
    assert result.to_json()["bytes_moved_per_copy"] == 2 << 20


def test_copy_bandwidth_on_the_cpu_and_bad_arguments():
    result = gpu.bench_copy("cpu", nbytes=1 << 20, warmup=0, runs=2)
    assert result.device == "cpu" and result.gb_per_s > 0
    with pytest.raises(ValueError):
        gpu.bench_copy("cpu", nbytes=0)
    with pytest.raises(ValueError):
        gpu.bench_copy("tpu")  # type: ignore[arg-type]


def test_bandwidth_table_cites_sources_and_knows_mig_slices():
    mig = gpu.bandwidth_peak_for("NVIDIA H100 80GB HBM3 MIG 3g.40gb")
    assert mig is not None and mig.gb_per_s == 3350.0
    assert gpu.bandwidth_peak_for("NVIDIA RTX PRO 6000") is None
    assert all(p.source and p.gb_per_s > 0 for p in gpu.BANDWIDTH_PEAKS.values())


def test_the_gb10s_bandwidth_is_the_catalogs_figure_alone():
    """One place for 273 GB/s: the catalog states it with its source; the probes' table
    has no row for the dgx-spark profile's GPU, and the simulated Spark reads the catalog."""
    from claims.catalog import load_catalog
    from claims.testing.fake_cuda import GB10_BANDWIDTH, published_bandwidth

    spark_gpu = DGX_SPARK.hardware["gpu_name"]
    assert gpu.bandwidth_peak_for(spark_gpu) is None
    assert not any(k.strip().lower() == spark_gpu.lower() for k in gpu.BANDWIDTH_PEAKS)
    stated = load_catalog().get(GB10_BANDWIDTH["claim"]).figure(GB10_BANDWIDTH["figure"])
    assert stated.source and stated.unit == "GB/s"
    assert published_bandwidth(spark_gpu) == float(stated.text)
    assert published_bandwidth("NVIDIA H200") == 4800.0  # the table's, for the others
    assert published_bandwidth("NVIDIA RTX PRO 6000") is None


def test_a_mig_slice_is_bounded_by_its_gpus_peak():
    whole = gpu.peak_for("NVIDIA A100-SXM4-80GB")
    assert whole is not None and gpu.peak_for("NVIDIA A100-SXM4-80GB MIG 3g.40gb") is whole
    assert gpu.peak_for("NVIDIA H100 80GB HBM3 MIG 1g.10gb") is not None
    assert gpu.peak_for("NVIDIA Unknown MIG 1g.5gb") is None


@pytest.mark.parametrize("env, named", [
    ({}, None),
    ({"NVIDIA_TF32_OVERRIDE": "1"}, "NVIDIA_TF32_OVERRIDE=1"),
    ({"NVIDIA_TF32_OVERRIDE": "0"}, "NVIDIA_TF32_OVERRIDE=0"),
    ({"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"}, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1"),
    ({"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "0"}, None),
    ({"NVIDIA_TF32_OVERRIDE": ""}, None),
])
def test_tf32_override_variables_are_named(env, named):
    why = gpu.tf32_override(env)
    assert (why is None) is (named is None)
    if named is not None:
        assert why is not None and why.startswith(named)
