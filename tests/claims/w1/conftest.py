"""Fixtures of the Week 1 claim tests: machine facts and matmul series, once per session.

The gpu tier measures live; what several tests need (nvidia-smi's three views,
the matmul series) is gathered once and shared, so a certification run stays
within minutes. Matrix size and run counts can be set from the environment for
a quick look (CLAIMS_MATMUL_N, CLAIMS_MATMUL_RUNS); the stated figures are for
n = 4096, so at another size only the general forms are compared.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from claims.testkit import Check, not_run

ROOT = Path(__file__).resolve().parents[3]
W1_POST = ROOT / "fixtures" / "system" / "w1-post"
STATED_N = 4096  # the matrix size of every figure Week 1 reports


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError:
        raise pytest.UsageError(f"{name}={raw!r} is not an integer") from None
    if value < 1:
        raise pytest.UsageError(f"{name} must be at least 1, got {value}")
    return value


@dataclass
class MatmulSettings:
    n: int
    runs: int
    warmup: int

    stated_n: int = STATED_N

    @property
    def stated_size(self) -> bool:
        """True when the run uses the size the post's figures are for."""
        return self.n == STATED_N

    def bench(self, device: str, precision: str, **timer: Any) -> Any:
        """``bench_matmul`` at this session's size and run counts (``timer``: its series)."""
        from claims.probes.machine.gpu import bench_matmul

        return bench_matmul(device, n=self.n, precision=precision,  # type: ignore[arg-type]
                            warmup=self.warmup, runs=self.runs, **timer)


@pytest.fixture(scope="session")
def matmul_settings() -> MatmulSettings:
    return MatmulSettings(n=_env_int("CLAIMS_MATMUL_N", STATED_N),
                          runs=_env_int("CLAIMS_MATMUL_RUNS", 10), warmup=3)


@dataclass
class MatmulStore:
    """Matmul results by (device, precision), measured at most once per session."""

    settings: MatmulSettings
    results: dict[tuple[str, str], Any] = field(default_factory=dict)

    def get(self, device: str, precision: str) -> Any:
        key = (device, precision)
        if key not in self.results:
            self.results[key] = self.settings.bench(device, precision)
        return self.results[key]

    def put(self, result: Any) -> None:
        self.results[(result.device, result.precision)] = result


@pytest.fixture(scope="session")
def matmul_store(matmul_settings: MatmulSettings) -> MatmulStore:
    return MatmulStore(matmul_settings)


@pytest.fixture
def benchmarked_cuda(request: pytest.FixtureRequest, benchmark: Any,
                     matmul_settings: MatmulSettings,
                     matmul_store: MatmulStore) -> Callable[[str], Any]:
    """``benchmarked_cuda(precision)``: the CUDA matmul series, timed by pytest-benchmark.

    The result joins the session's matmul store, and its settings (TF32,
    size, runs) go into the benchmark's ``extra_info`` beside its timings.
    pytest-benchmark switches itself off under pytest-xdist (and with
    --benchmark-disable) and then times nothing, so such a run is "not run"
    with the reason instead of a silently different measurement.
    """
    if hasattr(request.config, "workerinput") or os.environ.get("PYTEST_XDIST_WORKER"):
        not_run("the gpu tier's timing series need pytest-benchmark, which pytest-xdist "
                "disables: run `pytest -m gpu -p no:xdist` (without -n)")
    if getattr(benchmark, "disabled", False):
        not_run("pytest-benchmark is disabled in this run (--benchmark-disable); the gpu "
                "tier's timing series need it")

    def series(fn: Callable[[], None], warmup: int, runs: int) -> list[float]:
        benchmark.pedantic(fn, rounds=runs, warmup_rounds=warmup, iterations=1)
        return list(benchmark.stats.stats.data)

    def run(precision: str) -> Any:
        benchmark.group = f"w1-matmul-{matmul_settings.n}"
        result = matmul_settings.bench("cuda", precision, series=series,
                                       timer_name="pytest-benchmark")
        matmul_store.put(result)
        benchmark.extra_info.update({k: v for k, v in result.to_json().items()
                                     if k != "times_ms"})
        return result

    return run


@dataclass
class SmiViews:
    """nvidia-smi's table, -q report and CSV query, run once and parsed."""

    header: Any
    table: list[Any]
    report: Any
    query: list[dict[str, str]]
    transcripts: dict[str, str]

    def for_device(self, dev: Any) -> tuple[dict[str, str], Any, str]:
        """The --query-gpu row and table block of torch's device ``dev``, and how they matched.

        torch's index need not be nvidia-smi's (CUDA_VISIBLE_DEVICES, MIG, CUDA's own
        device order), so the match goes by UUID or PCI bus id; no match is "not run".
        """
        from claims.probes.machine.nvidia import match_smi_row

        row, how = match_smi_row(self.query, index=dev.index, uuid=dev.uuid,
                                 pci_bus_id=dev.pci_bus_id,
                                 visible=os.environ.get("CUDA_VISIBLE_DEVICES"))
        if row is None:
            not_run(f"cannot tell which GPU nvidia-smi lists is torch's device {dev.index}: {how}")
        table = next((t for t in self.table if str(t.index) == row.get("index")), None)
        if table is None:
            not_run(f"nvidia-smi's table has no GPU {row.get('index')} ({how})")
        return row, table, how


@pytest.fixture(scope="session")
def smi() -> SmiViews:
    from claims.probes.machine import nvidia
    from claims.probes.machine.system import GPU_QUERY_FIELDS
    from claims.testkit import ProbeError

    try:
        table_run = nvidia.nvidia_smi_text()
        report, q_run = nvidia.nvidia_smi_q()
        rows, query_run = nvidia.nvidia_smi_rows_and_run(list(GPU_QUERY_FIELDS))
        header = nvidia.parse_smi_header(table_run.stdout)
        table = nvidia.parse_smi_table(table_run.stdout)
    except ProbeError as exc:
        not_run(f"nvidia-smi could not be read: {exc}")
    return SmiViews(
        header=header,
        table=table,
        report=report,
        query=rows,
        transcripts={
            "nvidia-smi": table_run.transcript(),
            "nvidia-smi -q": q_run.transcript(),
            "nvidia-smi --query-gpu": query_run.transcript(),
        },
    )


def stated_text(check: Check, figure: str) -> str | None:
    """The text of a stated figure of the check's claims (versions are kept as text)."""
    for claim in check.claims:
        for fig in claim.stated:
            if fig.name == figure:
                if fig.kind == "list":
                    return ", ".join(fig.values)
                return fig.text
    return None


def _observe_version(check: Check, figure: str, measured: Any, *, unit: str | None = None) -> None:
    """Record a version beside the post's: a difference is reported, never a failure."""
    stated = stated_text(check, figure)
    # Lists (wheel names, install directories) compare as sets: order carries no meaning.
    shown = ", ".join(sorted(measured)) if isinstance(measured, (list, tuple)) else measured
    if stated is not None and isinstance(measured, (list, tuple)):
        stated = ", ".join(sorted(stated.split(", ")))
    if stated is None:
        note = None
    elif str(shown) == stated:
        note = f"same as the post ({stated})"
    else:
        note = (f"differs from the post's {stated} on its Spark: a version difference, "
                "reported, not a failure")
    check.observe(figure, measured, unit=unit, note=note)
    if stated is not None and str(shown) != stated:
        check.note(f"{figure}: this machine has {shown}; the post recorded {stated}")


@pytest.fixture(scope="session")
def stated() -> Callable[[Check, str], str | None]:
    """``stated(check, figure)``: the text of a stated figure of the check's claims."""
    return stated_text


@pytest.fixture(scope="session")
def observe_version() -> Callable[..., None]:
    """``observe_version(check, figure, measured)``: a version beside the post's, never failed."""
    return _observe_version


@pytest.fixture(scope="session")
def w1_post() -> Callable[[str], str]:
    """Command output as the Week 1 post prints it (fixtures/system/w1-post/NAME)."""

    def read(name: str) -> str:
        return (W1_POST / name).read_text(encoding="utf-8")

    return read
