"""Week 5's matmul on the machine under test: a square product timed at FP32, FP16 and
BF16 as the lab's benchmark_matmul.py times it, the same product timed without
``torch.cuda.synchronize()``, and the peak memory torch's caching allocator reports around it.

Every function takes the torch module (or a stand-in with its API:
``claims.testing.fake_cuda.CudaTorch`` in the unit tests) and a device, and imports nothing
heavy itself. Units: seconds per product, medians in milliseconds, rates in GFLOP/s
(2n³ / t / 10⁹, as the benchmark's gflops()), memory in bytes (B). The arithmetic it
shares with the offline claims (gflops, payload_bytes) is
``claims.probes.arithmetic.tensors``'s.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from claims.probes.arithmetic.tensors import MIB, gflops, payload_bytes
from claims.probes.errors import PrerequisiteMissing
from claims.probes.machine.gpu import TimedSeries

# The benchmark's three precisions, by its own names, and the torch dtype each is.
PRECISION_DTYPES: dict[str, str] = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
# The clock every timing here reads (seconds, monotonic, the benchmark's own).
Clock = Callable[[], float]


def _dtype(torch: Any, precision: str) -> Any:
    try:
        return getattr(torch, PRECISION_DTYPES[precision])
    except KeyError:
        raise ValueError(f"precision must be one of {', '.join(PRECISION_DTYPES)}, "
                         f"not {precision!r}") from None


def _is_cuda(device: str) -> bool:
    return str(device).startswith("cuda")


def _synchronizer(torch: Any, device: str) -> Callable[[], None]:
    """What waits until the device has finished its queued work (the CPU never queues)."""
    if _is_cuda(device):
        sync: Callable[[], None] = torch.cuda.synchronize
        return sync
    return lambda: None


def _operands(torch: Any, device: str, precision: str, n: int, seed: int) -> tuple[Any, Any]:
    """Two n x n matrices of ``precision`` on ``device``, made from a seeded CPU generator so
    every run multiplies the same values; made and moved before any clock starts."""
    if n <= 0:
        raise ValueError(f"matrix side must be positive, got {n}")
    gen = torch.Generator(device="cpu").manual_seed(seed)
    dtype = _dtype(torch, precision)
    a = torch.rand(n, n, generator=gen, dtype=torch.float32).to(dtype=dtype).to(device)
    b = torch.rand(n, n, generator=gen, dtype=torch.float32).to(dtype=dtype).to(device)
    return a, b


def _warmed_up(torch: Any, device: str, precision: str, n: int, seed: int, warmup: int
               ) -> tuple[Callable[[], None], Any, Any]:
    """The device's synchronizer and the two operands, after ``warmup`` untimed products
    drained to the end: the first timed product waits behind none of them."""
    sync = _synchronizer(torch, device)
    a, b = _operands(torch, device, precision, n, seed)
    for _ in range(warmup):
        a @ b
    sync()
    return sync, a, b


@dataclass(frozen=True)
class MatmulTiming(TimedSeries):
    """The timed products of one precision on one device: seconds each (``times_s``).

    ``median_ms`` is their median in milliseconds and ``gflops`` the rate it implies
    (2n³ / median / 10⁹), the two figures benchmark_matmul.py prints per row.
    """

    precision: str
    device: str
    n: int
    warmup: int
    times_s: tuple[float, ...]
    synchronized: bool = True

    @property
    def gflops(self) -> float:
        return gflops(self.n, self.median_s)

    def to_json(self) -> dict[str, Any]:
        return {"precision": self.precision, "device": self.device, "n": self.n,
                "warmup": self.warmup, "synchronized": self.synchronized,
                "times_ms": [round(t * 1e3, 5) for t in self.times_s],
                "median_ms": self.median_ms, "gflops": self.gflops}


def time_matmul(torch: Any, device: str, precision: str, *, n: int, warmup: int, runs: int,
                seed: int = 0, clock: Clock = time.perf_counter) -> MatmulTiming:
    """Time ``a @ b`` for two n x n matrices of ``precision`` on ``device`` (seconds each).

    As the lab's time_matmul: ``warmup`` untimed products, then ``runs`` timed ones, each
    from a start time to the end of the product; on CUDA the end is when
    ``torch.cuda.synchronize()`` returns (the device finished), and the warm-up is drained
    the same way before the first clock starts, so no timed product waits behind another.
    """
    if runs < 1 or warmup < 0:
        raise ValueError("need at least one timed product and a non-negative warm-up")
    sync, a, b = _warmed_up(torch, device, precision, n, seed, warmup)
    times = []
    for _ in range(runs):
        start = clock()
        a @ b
        sync()
        times.append(clock() - start)
    return MatmulTiming(precision, str(device), n, warmup, tuple(float(t) for t in times))


@dataclass(frozen=True)
class LaunchTiming:
    """The same product timed two ways, pair by pair (seconds each).

    ``launch_s``: the clock stopped when ``a @ b`` returns, without synchronizing: on CUDA
    that is when the kernel is queued (the launch). ``synchronized_s``: stopped when
    ``torch.cuda.synchronize()`` returns after it (the compute). On a CPU both are the
    whole product: it does not queue.
    """

    precision: str
    device: str
    n: int
    launch_s: tuple[float, ...]
    synchronized_s: tuple[float, ...]

    def ratios(self) -> list[float]:
        """Synchronized over launch-only time, pair by pair (x)."""
        return [s / u for u, s in zip(self.launch_s, self.synchronized_s, strict=True) if u > 0]

    def to_json(self) -> dict[str, Any]:
        return {"precision": self.precision, "device": self.device, "n": self.n,
                "launch_ms": [round(t * 1e3, 5) for t in self.launch_s],
                "synchronized_ms": [round(t * 1e3, 5) for t in self.synchronized_s]}


def time_launch(torch: Any, device: str, precision: str = "fp32", *, n: int, pairs: int,
                warmup: int = 1, seed: int = 0, clock: Clock = time.perf_counter
                ) -> LaunchTiming:
    """Time one product without and one with ``torch.cuda.synchronize()``, ``pairs`` times.

    Each timed product starts from an idle device (synchronized before its clock starts),
    and the unsynchronized product is drained after its clock has stopped, so each
    measures its own product alone: the first its launch, the second its compute.
    """
    if pairs < 1 or warmup < 0:
        raise ValueError("need at least one pair and a non-negative warm-up")
    sync, a, b = _warmed_up(torch, device, precision, n, seed, warmup)
    launch, synchronized = [], []
    for _ in range(pairs):
        sync()
        start = clock()
        a @ b
        launch.append(clock() - start)
        sync()  # drained outside the clock: the next product starts from an idle device
        start = clock()
        a @ b
        sync()
        synchronized.append(clock() - start)
    return LaunchTiming(precision, str(device), n, tuple(launch), tuple(synchronized))


@dataclass(frozen=True)
class PeakMemory:
    """What torch's caching allocator reported around one product (bytes).

    ``peak_bytes``: ``torch.cuda.max_memory_allocated()`` after the product, its peak
    statistic reset just before the operands were made; ``before_bytes``: what was
    allocated at that reset (kept from earlier work: the peak counts it too);
    ``payload_bytes``: the three matrices, 3 x n² x bytes per element.
    """

    precision: str
    n: int
    element_size: int
    peak_bytes: int
    before_bytes: int

    @property
    def payload_bytes(self) -> int:
        return payload_bytes(self.n, self.element_size)

    @property
    def peak_mib(self) -> float:
        return self.peak_bytes / MIB

    def to_json(self) -> dict[str, Any]:
        return {"precision": self.precision, "n": self.n, "element_size": self.element_size,
                "peak_bytes": self.peak_bytes, "before_bytes": self.before_bytes,
                "payload_bytes": self.payload_bytes}


def peak_memory(torch: Any, device: str, precision: str, *, n: int, seed: int = 0
                ) -> PeakMemory:
    """The peak bytes allocated on ``device`` while two n x n matrices are made and multiplied.

    As the lab's benchmark: ``torch.cuda.empty_cache()`` and
    ``torch.cuda.reset_peak_memory_stats()``, then the operands and the product, then
    ``torch.cuda.max_memory_allocated()`` once the device has finished. CUDA only: a CPU
    tensor is not counted by torch's CUDA allocator (:class:`PrerequisiteMissing`).
    """
    if not _is_cuda(device):
        raise PrerequisiteMissing(f"peak memory is torch's CUDA allocator statistic; "
                                   f"{device!r} is not a CUDA device")
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    before = int(torch.cuda.memory_allocated())
    a, b = _operands(torch, device, precision, n, seed)
    product = a @ b
    torch.cuda.synchronize()
    peak = int(torch.cuda.max_memory_allocated())
    size = int(product.element_size())
    del a, b, product
    torch.cuda.empty_cache()
    return PeakMemory(precision, n, size, peak, before)


def growth_exponent(sides: Sequence[int], sizes: Sequence[int]) -> float:
    """The exponent k of memory growing as side^k, from three sides n, 2n, 4n (dimensionless).

    The growth from 2n to 4n over the growth from n to 2n is 2^k for any a + c·n^k: a
    fixed working allocation (``a``) cancels out of both growths.
    """
    if len(sides) != 3 or len(sizes) != 3:
        raise ValueError("need three sides and three sizes")
    n, n2, n4 = sides
    if not (n > 0 and n2 == 2 * n and n4 == 4 * n):
        raise ValueError(f"sides must be n, 2n and 4n, got {list(sides)}")
    first, second = sizes[1] - sizes[0], sizes[2] - sizes[1]
    if first <= 0 or second <= 0:
        raise ValueError(f"memory did not grow with the side: {list(sizes)} bytes")
    return math.log2(second / first)


@dataclass(frozen=True)
class BenchmarkPass:
    """One pass of the lab's benchmark: each precision on the GPU, then the CPU at FP32.

    ``gpu`` maps a precision to its timing (median of ``iters`` after the warm-up);
    ``cpu`` is the FP32 product on the CPU (None when the pass left it out).
    """

    order: tuple[str, ...]
    gpu: dict[str, MatmulTiming]
    cpu: MatmulTiming | None = None
    cpu_threads: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def over(self, slower: str, faster: str) -> float:
        """The median time of ``slower`` over that of ``faster`` ("cpu" names the CPU run)."""
        def median(name: str) -> float:
            timing = self.cpu if name == "cpu" else self.gpu[name]
            if timing is None:
                raise ValueError("this pass has no CPU run")
            return timing.median_s

        return median(slower) / median(faster)

    def to_json(self) -> dict[str, Any]:
        return {"order": list(self.order),
                "gpu": {k: v.to_json() for k, v in self.gpu.items()},
                "cpu": None if self.cpu is None else self.cpu.to_json(),
                "cpu_threads": self.cpu_threads, **self.extra}


def benchmark_pass(torch: Any, device: str, *, n: int, warmup: int, iters: int,
                   cpu_iters: int | None, order: Sequence[str] = tuple(PRECISION_DTYPES),
                   seed: int = 0, clock: Clock = time.perf_counter) -> BenchmarkPass:
    """One pass of benchmark_matmul.py's measurement, in seconds per product.

    Each precision of ``order`` on ``device`` (``warmup`` then ``iters`` timed products,
    synchronized), then, unless ``cpu_iters`` is None, FP32 on the CPU with one warm-up
    and ``cpu_iters`` timed products (the benchmark's max(3, iters // 4)), on the CPU
    threads torch uses (recorded).
    """
    gpu = {p: time_matmul(torch, device, p, n=n, warmup=warmup, runs=iters, seed=seed,
                          clock=clock) for p in order}
    cpu = None
    threads = None
    if cpu_iters is not None:
        cpu = time_matmul(torch, "cpu", "fp32", n=n, warmup=1, runs=cpu_iters, seed=seed,
                          clock=clock)
        threads = int(torch.get_num_threads())
    return BenchmarkPass(tuple(order), gpu, cpu, threads)
