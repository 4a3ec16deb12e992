"""Machine profiles: the author's DGX Spark, any other machine, and detection.

A profile says which machine a run is certifying. ``dgx-spark`` carries the
values Week 1 records for the author's Spark; claims and stated figures tied
to it are "not applicable" on any other profile, while their general forms
still run. ``generic`` is every other machine. ``auto`` (the default of
``--claims-profile``) picks ``dgx-spark`` when this machine is one: an aarch64 host
whose GPU nvidia-smi names "NVIDIA GB10". :func:`choose_profile` says which
profile a run uses and why; a detection that could not ask nvidia-smi (absent,
failed, no answer within :data:`DETECT_TIMEOUT_S`) says so, and the plugin fails
a ``--claims-require-live`` run on it rather than certify a Spark as "generic".

:func:`compare` sets a machine's facts beside a profile and sorts what differs
into two kinds: *hardware* (architecture, cores, memory, GPU, compute
capability), where a difference means this is not the machine the profile
describes, and *versions* (driver, CUDA, toolkit, torch, the OS image's
memory reservation as free -h shows it), which move with every update and are
reported as differences, never failures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from claims.records import ProfileChoiceRecord

__all__ = [
    "AUTO",
    "CHOICES",
    "DGX_SPARK",
    "GENERIC",
    "PROFILES",
    "Difference",
    "Profile",
    "ProfileChoice",
    "choose_profile",
    "compare",
    "detect_profile",
    "resolve_profile",
]

# nvidia-smi's first call on an idle machine (persistence mode off) can take
# several seconds while the driver initialises the GPU; 30 s leaves room for that.
DETECT_TIMEOUT_S = 30.0

Kind = Literal["hardware", "version"]


@dataclass(frozen=True)
class Profile:
    """A named machine and the facts Week 1 recorded for it (empty for generic)."""

    name: str
    description: str
    hardware: Mapping[str, Any] = field(default_factory=dict)
    versions: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None


# Values as Week 1 prints them (seed 002, from line ~2127): uname, lscpu, free -h,
# nvidia-smi, nvcc --version, the pip install line and validate_gpu.py.
DGX_SPARK = Profile(
    name="dgx-spark",
    description="NVIDIA DGX Spark: GB10 Grace Blackwell, 20 Arm cores, unified memory",
    hardware={
        "arch": "aarch64",
        "cpu_count": 20,
        "cpu_models": {"Cortex-X925": 10, "Cortex-A725": 10},
        "gpu_name": "NVIDIA GB10",
        "capability": (12, 1),
        "gpu_memory_reported": False,  # nvidia-smi's Memory-Usage reads "Not Supported"
    },
    versions={
        "driver": "580.159.03",
        "cuda_ceiling": "13.0",
        "nvcc": "13.0.88",
        "torch": "2.13.0+cu130",
        "torch_cuda": "13.0",
        # free -h's total (a truncated whole number of GiB): MemTotal moves with what the
        # DGX OS image reserves (a Spark on another image prints 119Gi), so it is reported
        # beside the others that move with updates, never as another machine.
        "memory_free_h": "121Gi",
    },
    source="From API to GPU, Week 1 (seed 002)",
)
GENERIC = Profile(name="generic", description="any machine; only general forms of claims apply")
PROFILES: dict[str, Profile] = {p.name: p for p in (DGX_SPARK, GENERIC)}
AUTO = "auto"  # not a profile: detect which one this machine is (choose_profile)
CHOICES: tuple[str, ...] = (AUTO, *PROFILES)  # what --claims-profile accepts


@dataclass(frozen=True)
class Difference:
    """One fact of this machine that differs from the profile's."""

    key: str
    kind: Kind
    expected: Any
    measured: Any

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "expected": _plain(self.expected),
                "measured": _plain(self.measured)}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def compare(profile: Profile, facts: Mapping[str, Any]) -> list[Difference]:
    """The facts (same keys as the profile's) that differ from the profile's values.

    A key missing from ``facts`` was not measured and is not a difference.
    """
    out = []
    for kind, table in (("hardware", profile.hardware), ("version", profile.versions)):
        for key, expected in table.items():
            if key not in facts or facts[key] is None:
                continue
            measured = facts[key]
            if _plain(measured) != _plain(expected):
                out.append(Difference(key, kind, expected, measured))  # type: ignore[arg-type]
    return out


@dataclass(frozen=True)
class ProfileChoice:
    """The profile a run uses, how it was chosen, and whether detection failed."""

    name: str
    option: str  # what --claims-profile said: auto, dgx-spark or generic
    reason: str
    detection_failed: bool = False

    def to_json(self) -> ProfileChoiceRecord:
        return {"name": self.name, "option": self.option, "reason": self.reason,
                "detection_failed": self.detection_failed}


class DetectionFailed(Exception):
    """nvidia-smi could not be asked for the GPU's name."""


def _gpu_names() -> list[str]:
    from claims.probes.errors import ProbeError
    from claims.probes.machine import nvidia

    try:
        rows, _ = nvidia.nvidia_smi_rows_and_run(["index", "name"], timeout=DETECT_TIMEOUT_S)
    except ProbeError as exc:
        raise DetectionFailed(str(exc)) from None
    return [row.get("name", "") for row in rows]


def _detect(arch: str | None, gpu_names: Callable[[], list[str]] | None) -> ProfileChoice:
    if arch is None:
        from claims.probes.machine import system

        arch = system.machine_arch()
    machine = arch
    spark_arch = DGX_SPARK.hardware["arch"]
    gpu = DGX_SPARK.hardware["gpu_name"]
    if machine != spark_arch:
        return ProfileChoice(GENERIC.name, AUTO,
                             f"auto: this machine is {machine}, the Spark is {spark_arch}")
    try:
        names = (gpu_names or _gpu_names)()
    except DetectionFailed as exc:
        return ProfileChoice(GENERIC.name, AUTO,
                             f"auto: an {spark_arch} machine, but nvidia-smi could not name its "
                             f"GPU ({exc}); fell back to generic", detection_failed=True)
    if any(gpu in n for n in names):
        return ProfileChoice(DGX_SPARK.name, AUTO,
                             f"auto: an {spark_arch} machine whose GPU nvidia-smi names {gpu}")
    shown = ", ".join(names) or "no GPU"
    return ProfileChoice(GENERIC.name, AUTO,
                         f"auto: an {spark_arch} machine, but nvidia-smi lists {shown}, not {gpu}")


def detect_profile(arch: str | None = None,
                   gpu_names: Callable[[], list[str]] | None = None) -> str:
    """'dgx-spark' on an aarch64 machine whose GPU is an NVIDIA GB10, else 'generic'.

    nvidia-smi is only asked when the architecture already fits, so the check
    costs nothing on x86_64.
    """
    return _detect(arch, gpu_names).name


def choose_profile(option: str, *, arch: str | None = None,
                   gpu_names: Callable[[], list[str]] | None = None) -> ProfileChoice:
    """The profile for ``--claims-profile OPTION`` with the reason ('auto' detects)."""
    if option == AUTO:
        return _detect(arch, gpu_names)
    if option not in PROFILES:
        raise ValueError(f"unknown profile {option!r} (known: {', '.join(CHOICES)})")
    return ProfileChoice(option, option, f"named with --claims-profile {option}")


def resolve_profile(option: str) -> str:
    """The profile a run uses for ``--claims-profile OPTION`` ('auto' detects)."""
    return choose_profile(option).name
