"""W1 claims checked on the figures the post records.

The benchmark lines come from fixtures/recorded/W1.json, the other command
output from the files it names under fixtures/system/w1-post/. Every figure is
recomputed with interval arithmetic on its printed precision (3.42 ms stands
for [3.415, 3.425] ms), so rounding in the post is never mistaken for an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims.probes.machine.gpu import matmul_flops
from claims.testkit import Interval

pytestmark = pytest.mark.offline

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.claim("W1-SPEEDUP-RANGE", source="recorded")
def test_recorded_speedup_lies_in_predicted_range(check, recorded):
    bench = recorded("W1")["benchmark"]
    # Recompute the speedup from the printed times, carrying their precision.
    speedup = Interval.stated(bench["cpu_ms"]) / Interval.stated(bench["gpu_fp32_ms"])
    check.against("recorded speedup", speedup, note="172.57 ms / 7.67 ms")
    check.against("predicted speedup", speedup)
    check.measure(
        "GPU faster than CPU", speedup.lo, unit="x", holds=speedup.lo > 1, expected="> 1x"
    )


def _bench(recorded: Any) -> dict[str, Any]:
    bench: dict[str, Any] = recorded("W1")["benchmark"]
    return bench


def _rate(n: int, ms: str) -> Interval:
    """TFLOP/s of one n-by-n matmul that took ``ms`` as printed, its rounding carried."""
    return matmul_flops(n) / (Interval.stated(ms) * 1e-3) * 1e-12


@pytest.mark.claim("W1-MATMUL-FLOPS", source="recorded")
def test_matmul_operation_count(check, recorded):
    bench = _bench(recorded)
    check.against("matmul FLOPs", matmul_flops(bench["n"]), unit="FLOP", note="2 · 4096³")


@pytest.mark.claim("W1-RECORDED-ARITH", source="recorded")
def test_printed_times_rates_and_speedups_agree(check, recorded):
    bench = _bench(recorded)
    n = bench["n"]
    check.attach("benchmark.py (the post)", bench, kind="json")
    cpu, fp32, tf32 = (Interval.stated(bench[k]) for k in ("cpu_ms", "gpu_fp32_ms", "gpu_tf32_ms"))
    check.against("CPU rate", _rate(n, bench["cpu_ms"]), note="2·4096³ / CPU time")
    check.against("FP32 rate", _rate(n, bench["gpu_fp32_ms"]), note="2·4096³ / FP32 time")
    check.against("TF32 rate", _rate(n, bench["gpu_tf32_ms"]), note="2·4096³ / TF32 time")
    check.against("FP32 speedup", cpu / fp32, note="CPU time / FP32 time")
    check.against("TF32 speedup", cpu / tf32, note="CPU time / TF32 time")
    check.chart(
        "matmul",
        [
            {"device": "cpu", "precision": "fp32", "tflops": float(bench["cpu_tflops"]),
             "ms": float(bench["cpu_ms"])},
            {"device": "gpu", "precision": "fp32", "tflops": float(bench["gpu_fp32_tflops"]),
             "ms": float(bench["gpu_fp32_ms"])},
            {"device": "gpu", "precision": "tf32", "tflops": float(bench["gpu_tf32_tflops"]),
             "ms": float(bench["gpu_tf32_ms"])},
        ],
        title="Week 1 benchmark as printed (4096x4096 on the author's DGX Spark)",
    )
    # The prose restates the printed lines; each restatement is judged against the line it restates.
    check.against("CPU time (prose)", cpu, note="'~173 ms' against 172.57 ms")
    check.against("FP32 time (prose)", fp32, note="'~7.7 ms' against 7.67 ms")
    check.against(
        "cold time (prose)",
        Interval.stated(bench["gpu_cold_ms"]),
        note="'135 ms' against 135.73 ms",
    )
    check.against(
        "TF32 rate (prose)",
        Interval.stated(bench["gpu_tf32_tflops"]),
        note="'40 TFLOP/s' against 40.1",
    )
    check.against(
        "TF32 speedup (prose)",
        Interval.stated(bench["gpu_tf32_speedup"]),
        note="'a 50x speedup' against 50.4x",
    )


def _free_total_gib(text: str) -> Interval:
    """The Mem: total of free -h output, as the interval of GiB it can stand for.

    free -h prints whole units above 10 and cuts the fraction off (procps), so
    "121Gi" is at least 121 GiB and less than 122; the interval also admits
    120.5 in case a build rounds instead, which only widens the GiB reading.
    """
    for line in text.splitlines():
        if line.startswith("Mem:"):
            total = line.split()[1]
            if not total.endswith("Gi"):
                raise AssertionError(f"free -h total {total!r} is not in Gi")
            whole = float(total.removesuffix("Gi"))
            return Interval(whole - 0.5, whole + 1.0)
    raise AssertionError("no Mem: line in the free -h output")


@pytest.mark.claim("W1-POOL-UNITS", source="recorded")
def test_pool_size_in_the_printed_and_the_prose_unit(check, recorded):
    rel = recorded("W1")["command_outputs"]["free -h"]
    text = (ROOT / rel).read_text("utf-8")
    check.attach("free -h (the post)", text)
    pool = _free_total_gib(text)
    check.against("pool (free -h)", pool, unit="GiB")
    check.against(
        "pool (prose)", pool, unit="GiB", note="the same pool converted to the prose's decimal GB"
    )


@pytest.mark.claim("W1-DECODE-BANDWIDTH", source="recorded")
def test_recorded_decode_is_far_from_compute_bound(check, recorded):
    """Week 2's phi4 decode on the same GPU, set against Week 1's matmul throughput."""
    reply = recorded("W2")["generate_reply"]
    layer = next(
        la["size"]
        for la in recorded("W2")["manifest"]["layers"]
        if la["mediaType"].endswith(".model")
    )
    bench = _bench(recorded)
    tokens_per_s = reply["eval_count"] / (reply["eval_duration"] / 1e9)
    params = Interval.stated("14.7") * 1e9  # /api/show parameter_size, printed to 0.1 B
    decode_tflops = 2 * params * tokens_per_s * 1e-12  # one multiply-add per parameter per token
    matmul_tflops = _rate(bench["n"], bench["gpu_fp32_ms"])
    check.observe("decode rate (Week 2)", round(tokens_per_s, 2), unit="tok/s")
    check.observe(
        "weights streamed per second in decode",
        round(layer * tokens_per_s / 1e9, 1),
        unit="GB/s",
        note=f"{layer:,} B model layer times tokens/s",
    )
    check.observe("decode arithmetic rate", decode_tflops, unit="TFLOP/s")
    # How small a share means "not compute-bound" is the catalog's reading.
    check.against(
        "decode arithmetic share",
        decode_tflops / matmul_tflops * 100,
        unit="%",
        note="decode's arithmetic rate as a share of the GPU's FP32 matmul rate",
    )
