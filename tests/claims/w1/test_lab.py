"""W1 claims checked against the author's raw results (fixtures/lab, benchmark.py's results.json).

What benchmark.py measured (fixtures/lab/manifest.json): every time except the cold
call is the mean of one matmul over a loop of 20 timed as a whole; the cold call is
one call. The post's printed table and prose restate those figures; each is compared
here with the file the post says holds them ("All these values are in results.json").
"""

from __future__ import annotations

from typing import Any

import pytest

from claims.probes.machine.gpu import matmul_flops
from claims.testing import lab

pytestmark = pytest.mark.offline

# Figure of W1-RECORDED-ARITH -> (lab field, factor into the figure's unit).
PRINTED = {
    "CPU time": ("cpu_ms", 1.0),
    "CPU rate": ("cpu_gflops", 1e-3),  # GFLOP/s -> TFLOP/s
    "FP32 time": ("gpu_fp32_ms", 1.0),
    "FP32 rate": ("gpu_fp32_tflops", 1.0),
    "FP32 speedup": ("gpu_fp32_speedup", 1.0),
    "TF32 time": ("gpu_tf32_ms", 1.0),
    "TF32 rate": ("gpu_tf32_tflops", 1.0),
    "TF32 speedup": ("gpu_tf32_speedup", 1.0),
    "CPU time (prose)": ("cpu_ms", 1.0),
    "FP32 time (prose)": ("gpu_fp32_ms", 1.0),
    "cold time (prose)": ("gpu_cold_ms", 1.0),
    "TF32 rate (prose)": ("gpu_tf32_tflops", 1.0),
    "TF32 speedup (prose)": ("gpu_tf32_speedup", 1.0),
}


def _lab() -> dict[str, Any]:
    return lab.results("W1")


def _size(results: dict[str, Any]) -> int:
    rows, _, cols = str(results["matrix"]).partition("x")
    if rows != cols:
        raise AssertionError(f"lab matrix {results['matrix']!r} is not square")
    return int(rows)


@pytest.mark.claim("W1-RECORDED-ARITH", source="recorded")
def test_printed_figures_are_the_lab_results(check) -> None:
    results = _lab()
    check.fact("lab evidence", lab.PROVENANCE)
    check.note("benchmark.py prints its result as JSON (the results.json fields); the table "
               "the post shows under `python benchmark.py` is a reformatted view of the same "
               "figures, CPU GFLOP/s given as TFLOP/s")
    for figure, (field, factor) in PRINTED.items():
        check.against(figure, float(results[field]) * factor,
                      note=f"results.json {field} = {results[field]}")


@pytest.mark.claim("W1-MATMUL-FLOPS", source="recorded")
def test_lab_matrix_and_loop(check) -> None:
    results = _lab()
    n = _size(results)
    check.against("matrix size", n, note=f"results.json matrix = {results['matrix']}")
    check.against("iterations", results["iters"], note="results.json iters")
    check.against("matmul FLOPs", matmul_flops(n), unit="FLOP", note="2 · n³ for the lab's n")
    check.measure("dtype", results["dtype"], holds=results["dtype"] == "float32",
                  expected="float32 (the post's 'float32')")


@pytest.mark.claim("W1-SPEEDUP-RANGE", source="recorded")
def test_lab_speedup(check) -> None:
    speedup = float(_lab()["gpu_fp32_speedup"])
    check.against("recorded speedup", speedup, note="results.json gpu_fp32_speedup")
    check.against("predicted speedup", speedup)


@pytest.mark.claim("W1-TF32-FASTER", source="recorded")
def test_lab_tf32_and_fp32(check) -> None:
    r = _lab()
    check.against("TF32 time", r["gpu_tf32_ms"], note="mean of 20, TF32 on")
    check.against("FP32 time", r["gpu_fp32_ms"], note="mean of 20, TF32 off")
    check.against("TF32 rate", r["gpu_tf32_tflops"])
    check.against("FP32 rate", r["gpu_fp32_tflops"])
    ratio = float(r["gpu_fp32_ms"]) / float(r["gpu_tf32_ms"])
    check.against("TF32 much faster than FP32", ratio, note="FP32 time / TF32 time")


@pytest.mark.claim("W1-COLD-KERNEL", source="recorded")
def test_lab_cold_call(check) -> None:
    r = _lab()
    check.against("cold first call", r["gpu_cold_ms"], note="results.json gpu_cold_ms: one call")
    check.against("warm call", r["gpu_fp32_ms"], note="results.json gpu_fp32_ms: mean of 20")


@pytest.mark.claim("W1-TORCH-VALIDATE", source="recorded")
def test_lab_device_name(check) -> None:
    check.against("device name", _lab()["device"], note="results.json device "
                  "(torch.cuda.get_device_name(0) in benchmark.py)")


@pytest.mark.claim("W1-COLD-VS-CPU-RUN", source="recorded")
def test_cold_call_against_the_whole_cpu_run(check) -> None:
    """'The cold GPU call took 135 ms, nearly as long as the whole CPU run': the CPU
    figure is a mean per matmul; the whole CPU run the script timed is iters of them."""
    r = _lab()
    cold, per_call, iters = float(r["gpu_cold_ms"]), float(r["cpu_ms"]), int(r["iters"])
    whole_run = per_call * iters
    check.observe("whole CPU run (iters × mean)", round(whole_run, 1), unit="ms",
                  note=f"{iters} × {per_call} ms")
    check.against("cold call / whole CPU run", cold / whole_run,
                  note=f"{cold} ms / {whole_run:.1f} ms")
    one_call = cold / per_call
    check.against("cold call / one CPU matmul", one_call,
                  note=f"{cold} ms / {per_call} ms (the reading that holds)")
