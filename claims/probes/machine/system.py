"""Machine facts: OS, architecture, CPU cores by type, memory, and the GPU stack.

What this probe measures, and in which unit:

* OS name (``/etc/os-release``), kernel release and machine architecture
  (``uname -m``: ``aarch64`` on a DGX Spark, ``x86_64`` on an Intel Mac);
* CPU model names and how many online logical CPUs each has, from ``lscpu`` (which
  prints one "Model name" section per core type on a hybrid ARM chip such as
  the Spark's 10 Cortex-X925 + 10 Cortex-A725) cross-checked with
  ``/proc/cpuinfo`` (one block per logical CPU; on ARM only the numeric
  "CPU part", which :data:`ARM_PARTS` names); the CPUs this process may use
  (:func:`usable_cpus`: affinity mask and cgroup quota), for benchmark threads;
* total memory in bytes (``MemTotal`` of ``/proc/meminfo``), and the string
  ``free -h`` shows for it (:func:`free_h_size` reproduces procps's rounding:
  "121Gi" means at least 121 and less than 122 GiB, not 121 ± 0.5);
* the NVIDIA stack through :mod:`claims.probes.machine.nvidia` (driver, CUDA ceiling,
  GPU names and memory fields as nvidia-smi reports them).

``fingerprint()`` is what every evidence file records about the machine. It is
cheap and offline: it reads /proc and platform facts, asks ``lscpu`` and
``nvidia-smi`` only when they are on PATH (each bounded by a timeout), and reads
torch's version from package metadata without importing torch (an import costs
seconds). Parsers are pure functions of text, unit-tested on recorded output.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claims.probes.errors import InputError, ProbeError
from claims.probes.machine import nvidia
from claims.probes.machine.tools import run_tool

if TYPE_CHECKING:
    from claims.records import Gpu, Machine

__all__ = [
    "ARM_PARTS",
    "CpuInventory",
    "CpuModel",
    "LscpuInfo",
    "MemoryPool",
    "cgroup_cpu_limit",
    "count_cpu_list",
    "cpu_inventory",
    "cpu_model",
    "fingerprint",
    "free_h_size",
    "gpu_summary",
    "machine_arch",
    "memory_bytes",
    "memory_pool",
    "nvidia_smi_rows_or_none",
    "os_name",
    "package_version",
    "parse_cpuinfo",
    "parse_free",
    "parse_lscpu",
    "parse_meminfo",
    "usable_cpus",
]

NVIDIA_SMI_TIMEOUT_S = nvidia.NVIDIA_SMI_TIMEOUT_S
LSCPU_TIMEOUT_S = 10.0
# The fields the fingerprint and the gpu tier ask nvidia-smi's query interface for.
GPU_QUERY_FIELDS = ("index", "name", "driver_version", "memory.total", "memory.used",
                    "memory.free", "compute_cap", "pci.bus_id", "uuid", "mig.mode.current")

# ARM's "CPU part" numbers for implementer 0x41 (Arm Ltd), as util-linux's lscpu
# names them (lscpu-arm.c); only the cores a reader of these posts is likely to
# meet. An unknown part is reported by number, never guessed.
ARM_PARTS: dict[str, str] = {
    "0xd05": "Cortex-A55",
    "0xd0b": "Cortex-A76",
    "0xd0c": "Neoverse-N1",
    "0xd40": "Neoverse-V1",
    "0xd41": "Cortex-A78",
    "0xd44": "Cortex-X1",
    "0xd46": "Cortex-A510",
    "0xd47": "Cortex-A710",
    "0xd48": "Cortex-X2",
    "0xd49": "Neoverse-N2",
    "0xd4f": "Neoverse-V2",
    "0xd80": "Cortex-A520",
    "0xd81": "Cortex-A720",
    "0xd82": "Cortex-X4",
    "0xd84": "Neoverse-V3",
    "0xd85": "Cortex-X925",
    "0xd87": "Cortex-A725",
    "0xd8e": "Neoverse-N3",
}
MAX_TEXT_CHARS = 4_000_000  # /proc/cpuinfo of a 256-core machine is well under 1 MB


def _check_size(text: str, source: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"{len(text):,} characters exceed the {MAX_TEXT_CHARS:,}-character limit",
                         path=source)


# --- OS and architecture ----------------------------------------------------------
def os_name() -> str:
    """Pretty OS name from /etc/os-release when present, else platform.platform()."""
    release = Path("/etc/os-release")
    try:
        for line in release.read_text(encoding="utf-8").splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.platform()


def read_proc(name: str) -> str:
    """The text of ``/proc/NAME`` (cpuinfo, meminfo); the one place this module reads /proc."""
    return Path("/proc", name).read_text(encoding="utf-8", errors="replace")


def logical_cpus() -> int:
    """The machine's online logical CPUs (``os.cpu_count()``; 0 when unknown).

    Python asks the kernel for the CPUs *online* (``_SC_NPROCESSORS_ONLN``): a CPU taken
    offline, or SMT switched off at run time, is not counted, while lscpu's ``CPU(s)``
    counts every CPU present (its ``Off-line CPU(s) list`` names the others).
    """
    return os.cpu_count() or 0


CGROUP_ROOT = Path("/sys/fs/cgroup")


def cgroup_cpu_limit(root: Path = CGROUP_ROOT) -> float | None:
    """The CPU quota of this process's cgroup in CPUs (``cpu.max`` "200000 100000" = 2.0).

    cgroup v2 (``cpu.max`` of the process's own cgroup, read from ``/proc/self/cgroup``)
    first, then v1 (``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``). None without a quota
    ("max", -1) or where neither can be read.
    """
    try:
        lines = read_proc("self/cgroup").splitlines()
    except OSError:
        lines = []
    v2 = next((ln.split(":", 2)[2] for ln in lines if ln.startswith("0::")), None)
    candidates = []
    if v2 is not None:
        candidates.append(("v2", root / v2.lstrip("/"), "cpu.max"))
        candidates.append(("v2", root, "cpu.max"))
    candidates.append(("v1", root / "cpu", "cpu.cfs_quota_us"))
    candidates.append(("v1", root / "cpu,cpuacct", "cpu.cfs_quota_us"))
    for kind, folder, name in candidates:
        try:
            text = (folder / name).read_text(encoding="utf-8").split()
            if kind == "v2":
                if not text or text[0] == "max":
                    return None
                return int(text[0]) / int(text[1] if len(text) > 1 else 100000)
            quota = int(text[0])
            period = int((folder / "cpu.cfs_period_us").read_text(encoding="utf-8").split()[0])
        except (OSError, ValueError, IndexError, ZeroDivisionError):
            continue
        return None if quota <= 0 or period <= 0 else quota / period
    return None


def usable_cpus() -> int:
    """How many CPUs this process can keep busy: the CPUs its affinity mask allows
    (``os.sched_getaffinity``), at most its cgroup's CPU quota rounded up; at least 1.

    ``os.cpu_count()`` is the host's count, which inside a container limited to two
    CPUs is the wrong number of threads for a benchmark.
    """
    try:
        allowed = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity API (macOS)
        allowed = os.cpu_count() or 1
    limit = cgroup_cpu_limit()
    if limit is not None:
        allowed = min(allowed, max(1, -(-int(limit * 1000) // 1000)))
    return max(1, allowed)


def machine_arch() -> str:
    """The machine hardware name ``uname -m`` prints (``aarch64``, ``x86_64``)."""
    return os.uname().machine


def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


# --- CPU ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class CpuModel:
    """One core type: its model name and how many logical CPUs have it (None: unknown)."""

    name: str
    count: int | None


@dataclass(frozen=True)
class LscpuInfo:
    """The facts ``lscpu`` prints: architecture, logical CPU count, core types."""

    architecture: str | None
    cpus: int | None  # CPU(s): every CPU present, online or not
    models: tuple[CpuModel, ...]
    fields: dict[str, str] = field(default_factory=dict)  # top-level "Key: value" lines
    online: int | None = None  # how many CPUs the On-line CPU(s) list names
    offline: int | None = None  # how many the Off-line CPU(s) list names (0 when absent)


def count_cpu_list(text: str | None) -> int | None:
    """How many CPUs a kernel CPU list names ("0-254" -> 255, "0,2-3" -> 3); None if not one."""
    if text is None or not text.strip():
        return None
    total = 0
    for part in text.strip().split(","):
        m = re.fullmatch(r"\s*([0-9]+)(?:-([0-9]+))?\s*", part)
        if not m:
            return None
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            return None
        total += hi - lo + 1
    return total


_LSCPU_LINE = re.compile(r"^(?P<indent>\s*)(?P<key>[^:]+?):\s*(?P<value>.*?)\s*$")
_COUNT_KEYS = ("Thread(s) per core", "Core(s) per socket", "Core(s) per cluster", "Socket(s)",
               "Cluster(s)")


def _int_or_none(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isascii() and value.isdigit() else None


def parse_lscpu(text: str, *, source: str = "lscpu") -> LscpuInfo:
    """Parse ``lscpu`` output, one :class:`CpuModel` per "Model name" section.

    The logical CPUs of a section are threads per core x cores per socket (or
    per cluster) x sockets (or clusters); where lscpu prints ``-`` for sockets,
    as on some ARM systems, clusters count instead. A section whose counts are
    missing (a trimmed listing, like the one in the post) has ``count`` None.
    """
    _check_size(text, source)
    top: dict[str, str] = {}
    sections: list[dict[str, str]] = []
    for line in text.splitlines():
        m = _LSCPU_LINE.match(line)
        if not m:
            continue
        key, value = m.group("key").strip(), m.group("value")
        if key == "Model name":
            sections.append({"Model name": value})
        elif sections and len(m.group("indent")) >= 4:
            sections[-1].setdefault(key, value)  # a detail of the model above
        else:
            top.setdefault(key, value)
    # Older lscpu (util-linux < 2.37) prints one flat list: the counts of its
    # single model are top-level lines.
    if len(sections) == 1:
        for key in _COUNT_KEYS:
            if key not in sections[0] and key in top:
                sections[0][key] = top[key]
    cpus = _int_or_none(top.get("CPU(s)"))
    online = count_cpu_list(top.get("On-line CPU(s) list"))
    offline = count_cpu_list(top.get("Off-line CPU(s) list"))
    # The CPUs that run code: with a CPU offline (or SMT switched off at run time) lscpu's
    # CPU(s) still counts it; the On-line list does not.
    running = online if online is not None else cpus
    models = []
    for sec in sections:
        # The post's listing appends notes such as "(10 performance cores)"; the
        # model name is what precedes them.
        name = re.sub(r"\s*\(.*\)\s*$", "", sec["Model name"]).strip()
        threads = _int_or_none(sec.get("Thread(s) per core"))
        per_socket = _int_or_none(sec.get("Core(s) per socket"))
        per_cluster = _int_or_none(sec.get("Core(s) per cluster"))
        sockets = _int_or_none(sec.get("Socket(s)"))
        clusters = _int_or_none(sec.get("Cluster(s)"))
        count = None
        if threads is not None and per_socket is not None:
            count = threads * per_socket * (sockets if sockets is not None else clusters or 1)
        elif threads is not None and per_cluster is not None:
            count = threads * per_cluster * (clusters if clusters is not None else 1)
        if len(sections) == 1 and running is not None and count is not None \
                and count != running:
            # One model, but threads x cores x sockets is not the CPUs running: a hybrid
            # x86 CPU (Intel P-cores with two threads, E-cores with one) gets one section
            # whose "Thread(s) per core" is the P-cores' 2 and whose cores count both kinds
            # (2 x 24 = 48 for 32 logical CPUs); with a CPU offline lscpu recounts threads
            # and cores from what is left. The logical CPUs of the only model are the
            # online ones.
            count = running
        models.append(CpuModel(name, count))
    return LscpuInfo(
        architecture=top.get("Architecture") or None,
        cpus=cpus,
        models=tuple(models),
        fields=top,
        online=online,
        offline=offline if offline is not None else (0 if online is not None else None),
    )


def parse_cpuinfo(text: str, *, source: str = "/proc/cpuinfo") -> list[str]:
    """The model name of every logical CPU in ``/proc/cpuinfo``, in order.

    x86 blocks carry "model name"; ARM blocks carry "CPU implementer" and
    "CPU part", named through :data:`ARM_PARTS` ("ARM part 0xd99" if unknown).
    """
    _check_size(text, source)
    names: list[str] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                fields.setdefault(key.strip(), value.strip())
        if "processor" not in fields:
            continue  # the trailing "Hardware"/"Serial" block some ARM kernels add
        if fields.get("model name"):
            names.append(fields["model name"])
        elif fields.get("CPU part"):
            part = fields["CPU part"].lower()
            implementer = fields.get("CPU implementer", "").lower()
            known = ARM_PARTS.get(part) if implementer in ("0x41", "") else None
            names.append(known or f"ARM part {part} (implementer {implementer or '?'})")
        else:
            names.append("unknown")
    return names


@dataclass(frozen=True)
class CpuInventory:
    """CPU facts of this machine, with where each came from."""

    arch: str
    logical_cpus: int  # os.cpu_count(): the online CPUs
    models: tuple[CpuModel, ...]  # from lscpu when it gave counts, else /proc/cpuinfo
    lscpu: LscpuInfo | None
    cpuinfo_counts: dict[str, int]
    lscpu_text: str | None = None
    problems: tuple[str, ...] = ()

    @property
    def by_model(self) -> dict[str, int | None]:
        return {m.name: m.count for m in self.models}

    def to_json(self) -> dict[str, Any]:
        return {
            "arch": self.arch,
            "logical_cpus": self.logical_cpus,
            "models": [{"name": m.name, "count": m.count} for m in self.models],
            "lscpu_cpus": self.lscpu.cpus if self.lscpu else None,
            "lscpu_online": self.lscpu.online if self.lscpu else None,
            "lscpu_offline": self.lscpu.offline if self.lscpu else None,
            "cpuinfo_counts": dict(self.cpuinfo_counts),
            "problems": list(self.problems),
        }


def cpu_inventory(timeout: float = LSCPU_TIMEOUT_S) -> CpuInventory:
    """Core types and counts: ``lscpu`` first, ``/proc/cpuinfo`` as the cross-check."""
    problems: list[str] = []
    lscpu_text: str | None = None
    info: LscpuInfo | None = None
    exe = shutil.which("lscpu")
    if exe is not None:
        try:
            run = run_tool([exe], timeout=timeout, env={**os.environ, "LC_ALL": "C"})
            lscpu_text = run.stdout
            info = parse_lscpu(lscpu_text)
        except ProbeError as exc:
            problems.append(f"lscpu: {exc}")
    else:
        problems.append("lscpu is not on PATH")
    try:
        names = parse_cpuinfo(read_proc("cpuinfo"))
    except OSError as exc:
        names = []
        problems.append(f"/proc/cpuinfo: {exc.strerror}")
    counts = dict(Counter(names))
    if info is not None and info.models and all(m.count is not None for m in info.models):
        models = info.models
    elif counts:
        models = tuple(CpuModel(n, c) for n, c in counts.items())
    else:
        models = tuple(info.models) if info is not None else ()
    return CpuInventory(
        arch=machine_arch(),
        logical_cpus=logical_cpus(),
        models=models,
        lscpu=info,
        cpuinfo_counts=counts,
        lscpu_text=lscpu_text,
        problems=tuple(problems),
    )


def cpu_model() -> str:
    """CPU model name(s), deduplicated in order ("Cortex-X925 + Cortex-A725")."""
    try:
        names = parse_cpuinfo(read_proc("cpuinfo"))
    except (OSError, InputError):
        names = []
    unique = list(dict.fromkeys(names))
    return " + ".join(unique) or platform.processor() or platform.machine()


# --- memory -------------------------------------------------------------------------------
def parse_meminfo(text: str, *, source: str = "/proc/meminfo") -> dict[str, int]:
    """``/proc/meminfo`` as bytes per field (the kernel prints kB meaning KiB)."""
    _check_size(text, source)
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        key, sep, rest = line.partition(":")
        if not sep:
            continue
        parts = rest.split()
        if not parts or not (parts[0].isascii() and parts[0].isdigit()):
            raise InputError(f"line {number}: {key.strip()} has no numeric value", path=source,
                             field=key.strip())
        scale = 1024 if len(parts) > 1 and parts[1] == "kB" else 1
        out[key.strip()] = int(parts[0]) * scale
    if "MemTotal" not in out:
        raise InputError("no MemTotal line", path=source, field="MemTotal")
    return out


def memory_bytes() -> int:
    """Total memory in bytes (MemTotal from /proc/meminfo; sysconf fallback)."""
    try:
        return parse_meminfo(read_proc("meminfo"))["MemTotal"]
    except (OSError, InputError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def free_h_size(kib: int) -> str:
    """The string ``free -h`` (procps-ng 4) prints for a size of ``kib`` KiB.

    procps tries each binary unit in turn, first with one decimal ("6.2Gi")
    and, when that does not fit in five characters, as an integer: the C cast
    truncates, so 121.69 GiB prints "121Gi". Hand-written because no Python
    library reproduces procps's rules; tests/probes/machine/test_system.py checks it
    against the real ``free -h`` where one is installed.
    """
    if kib < 0:
        raise ValueError("a size cannot be negative")
    nbytes = kib * 1024
    if len(f"{nbytes}B") <= 4:
        return f"{nbytes}B"
    text = ""
    for power, unit in enumerate("KMGTP", 1):
        # procps divides in float (C float, 24-bit mantissa); at these magnitudes
        # double gives the same digits except on exact ties, which sizes in KiB avoid.
        value = nbytes / 1024.0**power
        text = f"{value:.1f}{unit}i"
        if len(text) <= 5:
            return text
        text = f"{int(value)}{unit}i"
        if len(text) <= 5:
            return text
    return text


def parse_free(text: str, *, source: str = "free -h") -> dict[str, dict[str, str]]:
    """``free`` output as {row: {column: cell}}: {"Mem": {"total": "121Gi", ...}, ...}."""
    _check_size(text, source)
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InputError("empty output", path=source)
    columns = lines[0].split()
    rows: dict[str, dict[str, str]] = {}
    for line in lines[1:]:
        label, sep, rest = line.partition(":")
        if not sep:
            raise InputError(f"row {line.strip()[:40]!r} has no 'Name:' label", path=source)
        cells = rest.split()
        rows[label.strip()] = dict(zip(columns, cells, strict=False))
    if "Mem" not in rows or "total" not in rows["Mem"]:
        raise InputError("no 'Mem:' row with a total", path=source, field="Mem")
    return rows


FREE_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class MemoryPool:
    """The system's memory as the kernel and ``free -h`` report it.

    ``total`` and ``available`` are bytes (/proc/meminfo's MemTotal and MemAvailable);
    ``implied`` is what ``free -h`` prints for ``total`` by procps's rounding
    (:func:`free_h_size`), ``printed`` what it did print ("121Gi"; None without a
    ``free`` on PATH), ``transcript`` its command and output.
    """

    total: int
    available: int | None
    implied: str
    printed: str | None = None
    transcript: str | None = None


def memory_pool(timeout: float = FREE_TIMEOUT_S) -> MemoryPool:
    """MemTotal and MemAvailable from /proc/meminfo, and ``free -h``'s total beside them.

    ``free`` runs with LC_ALL=C so its units and decimal point are procps's own.
    """
    meminfo = parse_meminfo(read_proc("meminfo"))
    total = meminfo["MemTotal"]
    implied = free_h_size(total // 1024)
    if not shutil.which("free"):
        return MemoryPool(total, meminfo.get("MemAvailable"), implied)
    run = run_tool(["free", "-h"], timeout=timeout, env={**os.environ, "LC_ALL": "C"})
    printed = parse_free(run.stdout)["Mem"]["total"]
    return MemoryPool(total, meminfo.get("MemAvailable"), implied, printed, run.transcript())


# --- GPU (through nvidia-smi) --------------------------------------------------------------
def nvidia_smi_rows_or_none(fields: list[str], timeout: float = NVIDIA_SMI_TIMEOUT_S
                            ) -> list[dict[str, str]] | None:
    """One row per GPU from ``nvidia-smi --query-gpu``; None when nvidia-smi is absent or fails."""
    try:
        rows, _ = nvidia.nvidia_smi_rows_and_run(fields, timeout=timeout)
    except ProbeError:
        return None
    return rows


def gpu_summary() -> Gpu | None:
    """GPU names, driver, the driver's CUDA ceiling and memory fields (None: no nvidia-smi)."""
    if shutil.which("nvidia-smi") is None:
        return None
    rows = nvidia_smi_rows_or_none(list(GPU_QUERY_FIELDS))
    if not rows:
        return None
    summary: Gpu = {"devices": rows, "count": len(rows)}
    try:
        header = nvidia.parse_smi_header(nvidia.nvidia_smi_text().stdout)
        summary["driver_version"] = header.driver_version
        summary["cuda_version"] = header.cuda_version
    except ProbeError as exc:
        summary["problem"] = str(exc)
    return summary


def fingerprint() -> Machine:
    """The machine record every evidence file carries (schema: run.machine)."""
    return {
        "os": os_name(),
        "arch": platform.machine(),
        "kernel": platform.release(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count() or 0,
        "memory_bytes": memory_bytes(),
        "python": platform.python_version(),
        "hostname": platform.node(),
        "gpu": gpu_summary(),
        "torch": package_version("torch"),
        "ollama": None,
        "packages": {
            name: package_version(name)
            for name in (
                "gguf", "tiktoken", "httpx", "llama_cpp_python", "pytest", "huggingface_hub"
            )
        },
    }
