"""claims.probes.machine.matmul, on CPU torch and the fake CUDA torch.

``CudaTorch`` (claims.testing.fake_cuda) is real torch whose "cuda" tensors stay on the CPU:
it counts ``torch.cuda.synchronize`` calls and what a caching allocator would hold, so these
tests check how each probe times and what it reads, without a GPU. A clock that records
the synchronize count at each reading shows where each clock stops.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.extras import import_or_skip

# A torch that is installed but raises on import skips this module with the error named,
# as a missing one does: pytest.importorskip lets it interrupt the whole collection.
torch = import_or_skip("torch", "gpu")

from claims.probes.errors import PrerequisiteMissing  # noqa: E402
from claims.probes.machine import matmul  # noqa: E402
from claims.testing.fake_cuda import CudaTorch  # noqa: E402

MIB = 2**20


class Clock:
    """perf_counter stand-in: each reading advances one second and notes the syncs so far."""

    def __init__(self, fake: CudaTorch) -> None:
        self.fake = fake
        self.readings: list[int] = []

    def __call__(self) -> float:
        self.readings.append(self.fake.synchronized)
        return float(len(self.readings))


def test_each_timed_product_ends_when_the_device_has_finished():
    fake = CudaTorch()
    clock = Clock(fake)
    result = matmul.time_matmul(fake, "cuda", "fp16", n=8, warmup=3, runs=4, clock=clock)
    assert result.times_s == (1.0,) * 4 and result.median_ms == 1000.0
    # The warm-up is drained before the first clock (one sync), then each product's clock
    # stops only after its own synchronize: start/stop readings see the count rise by one.
    starts, stops = clock.readings[0::2], clock.readings[1::2]
    assert starts == [1, 2, 3, 4] and stops == [2, 3, 4, 5]
    assert result.gflops == pytest.approx(2 * 8**3 / 1.0 / 1e9)


def test_a_cpu_product_needs_no_synchronize():
    fake = CudaTorch()
    result = matmul.time_matmul(fake, "cpu", "fp32", n=8, warmup=1, runs=2)
    assert fake.synchronized == 0 and len(result.times_s) == 2 and result.device == "cpu"


def test_the_launch_clock_stops_before_any_synchronize_and_the_other_after_one():
    fake = CudaTorch()
    clock = Clock(fake)
    timing = matmul.time_launch(fake, "cuda", n=8, pairs=2, clock=clock)
    # Per pair: sync, start, stop (no sync between: the launch), sync to drain, start,
    # sync, stop. Readings: [1, 1] launch, then [2, 3] synchronized, and so on.
    assert clock.readings == [2, 2, 3, 4, 5, 5, 6, 7]
    assert timing.ratios() == [1.0, 1.0]  # this clock ticks once per reading
    assert len(timing.launch_s) == len(timing.synchronized_s) == 2


def test_peak_memory_counts_the_matrices_and_the_workspace():
    fake = CudaTorch(workspace_bytes=32 * MIB)
    peaks = {p: matmul.peak_memory(fake, "cuda", p, n=64) for p in ("fp32", "fp16", "bf16")}
    fp32, fp16 = peaks["fp32"], peaks["fp16"]
    assert fp32.payload_bytes == 3 * 64 * 64 * 4 and fp16.payload_bytes == 3 * 64 * 64 * 2
    # The first product allocated the workspace; it stays, so the later peaks hold it too.
    assert fp32.peak_bytes == fp32.payload_bytes + 32 * MIB and fp32.before_bytes == 0
    assert fp16.peak_bytes == fp16.payload_bytes + 32 * MIB and fp16.before_bytes == 32 * MIB
    assert peaks["bf16"].peak_bytes == fp16.peak_bytes
    # Everything but the workspace was freed after each measurement.
    assert fake.allocated == 32 * MIB


def test_peak_memory_is_a_cuda_statistic():
    with pytest.raises(PrerequisiteMissing, match="not a CUDA device"):
        matmul.peak_memory(CudaTorch(), "cpu", "fp32", n=8)


@pytest.mark.parametrize(("k", "fixed"), [(2, 0), (2, 32 * MIB), (1, 5), (3, 7)])
def test_growth_exponent_sees_the_power_through_a_fixed_allocation(k, fixed):
    sides = (256, 512, 1024)
    sizes = [fixed + 12 * side**k for side in sides]
    assert matmul.growth_exponent(sides, sizes) == pytest.approx(k)


def test_growth_exponent_of_measured_peaks_is_two():
    fake = CudaTorch(workspace_bytes=8 * MIB)
    sides = (32, 64, 128)
    peaks = [matmul.peak_memory(fake, "cuda", "fp32", n=s).peak_bytes for s in sides]
    assert matmul.growth_exponent(sides, peaks) == 2.0


@pytest.mark.parametrize(("sides", "sizes", "why"), [
    ((32, 64, 96), (1, 2, 3), "n, 2n and 4n"),
    ((32, 64, 128), (5, 5, 9), "did not grow"),
    ((32, 64), (1, 2), "three sides"),
])
def test_growth_exponent_refuses_what_it_cannot_read(sides, sizes, why):
    with pytest.raises(ValueError, match=why):
        matmul.growth_exponent(sides, sizes)


def test_a_benchmark_pass_times_each_precision_then_the_cpu():
    fake = CudaTorch()
    one = matmul.benchmark_pass(fake, "cuda", n=16, warmup=1, iters=3, cpu_iters=3,
                                 order=("bf16", "fp16", "fp32"))
    assert one.order == ("bf16", "fp16", "fp32") and set(one.gpu) == {"fp32", "fp16", "bf16"}
    assert all(len(t.times_s) == 3 for t in one.gpu.values())
    assert one.cpu is not None and one.cpu.device == "cpu"
    assert one.cpu_threads == torch.get_num_threads()
    assert one.over("cpu", "fp32") == one.cpu.median_s / one.gpu["fp32"].median_s
    assert math.isfinite(one.over("fp32", "fp16"))
    without = matmul.benchmark_pass(fake, "cuda", n=16, warmup=0, iters=1, cpu_iters=None)
    with pytest.raises(ValueError, match="no CPU run"):
        without.over("cpu", "fp32")


@pytest.mark.parametrize("bad", [{"precision": "fp8"}, {"n": 0}, {"runs": 0}])
def test_bad_arguments_are_refused(bad: dict[str, Any]):
    kwargs: dict[str, Any] = {"precision": "fp32", "n": 8, "warmup": 0, "runs": 1, **bad}
    precision = kwargs.pop("precision")
    with pytest.raises(ValueError):
        matmul.time_matmul(CudaTorch(), "cuda", precision, **kwargs)
