"""Which build of the pinned torch can run on this machine: one table, one choice.

A CUDA build of torch runs on a GPU only when both hold:

* the driver is new enough for the build's CUDA (NVIDIA's minor-version
  compatibility: CUDA 12.x runs on R525 or later, CUDA 13.x on R580 or later);
* the build ships kernels for the GPU's compute capability: machine code (SASS)
  for the same major and a lower or equal minor (sm_120 code runs on a 12.1 GB10),
  or PTX of a capability at or below it, which the driver compiles at load time.

:data:`BUILDS` lists the CUDA builds of the pinned series (2.13) with the driver
branch each needs and the capabilities it ships kernels for, per CPU architecture,
with the source of every fact. :func:`choose` picks the first build (newest CUDA first)
that covers the driver and every GPU, or says which torch or driver would work.
``scripts/gpu-certify.sh`` asks through ``python -m claims.probes.machine.torch_wheels``
(stdlib only: it runs before any environment exists), and so does its ``DRY_RUN=1``.

Sources, pytorch/pytorch on GitHub:

* #187075 (merged 2026-06-11) adds 2.13 to RELEASE.md's Release Compatibility Matrix:
  stable CUDA 12.6 (cuDNN 9.10.2.21, NCCL 2.29.3) and CUDA 13.0 (cuDNN 9.20.0.48, NCCL
  2.29.7), experimental CUDA 13.2; its CUDA Support Matrix heading covers 2.12 and 2.13.
* #182849 (the 2.12 CUDA Support Matrix that heading extends): 12.6.3 ships Maxwell(5.0),
  Pascal(6.0), Volta(7.0), Turing(7.5), Ampere(8.0, 8.6), Hopper(9.0) on x86_64 and
  Ampere(8.0), Hopper(9.0) on aarch64; 13.0.2 ships Turing(7.5), Ampere(8.0, 8.6),
  Hopper(9.0), Blackwell(10.0, 12.0+PTX) on x86_64 and Ampere(8.0), Hopper(9.0),
  Blackwell(10.0, 11.0, 12.0+PTX) on aarch64; 13.2.1 the same as 13.0.2.
* #197555 (2026-09-18): the matrix "for Release 2.12, 2.13 and 2.14" is one and the same.
* #178665 (RFC for 2.12): CUDA 12.8 removed from the build matrix, so 2.13 has no cu128
  wheels; 13.0 is the build published to PyPI.
* #175253 and #182250: torch 2.11's cu128 build ships sm_75 to sm_120 (the one older
  torch with Blackwell kernels for a CUDA 12 driver, named as an alternative below).
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from claims.probes.machine.nvidia import NvmlState, is_reported, nvml_state

__all__ = [
    "BUILDS",
    "SERIES",
    "Choice",
    "TorchBuild",
    "choose",
    "covers",
    "parse_capability",
]

SERIES = "2.13"
PYPI = "pypi"
_MATRIX = ("pytorch/pytorch#187075 (2.13 in RELEASE.md's Release Compatibility Matrix) and "
           "#182849 (the CUDA Support Matrix for 2.12 and 2.13)")


@dataclass(frozen=True)
class TorchBuild:
    """One CUDA build of the pinned torch series."""

    tag: str  # torch's local version tag: "cu130"
    cuda: str  # "13.0"
    min_driver: int  # the oldest driver branch it runs on (580 = R580)
    kernels: dict[str, tuple[str, ...]]  # CPU arch -> capabilities, "12.0+PTX" with PTX
    index: str  # "pypi", or the index URL pip installs it from
    source: str

    def kernels_for(self, arch: str) -> tuple[str, ...]:
        return self.kernels.get(arch, ())

    @property
    def where(self) -> str:
        return "PyPI" if self.index == PYPI else f"the {self.tag} index {self.index}"


# Newest CUDA first: a machine both builds can serve gets the newer one.
BUILDS: tuple[TorchBuild, ...] = (
    TorchBuild(
        "cu130", "13.0", 580,
        {"x86_64": ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0+PTX"),
         "aarch64": ("8.0", "9.0", "10.0", "11.0", "12.0+PTX")},
        PYPI,
        f"{_MATRIX}; PyPI's torch 2.13.0 wheels require cuda-toolkit==13.0.3 (their "
        "METADATA); NVIDIA: CUDA 13.x needs driver R580 or later"),
    TorchBuild(
        "cu126", "12.6", 525,
        {"x86_64": ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"),
         "aarch64": ("8.0", "9.0")},
        "https://download.pytorch.org/whl/cu126",
        f"{_MATRIX}; NVIDIA: CUDA 12.x runs on driver R525 or later (minor-version "
        "compatibility)"),
)
# A torch outside the pinned series that has Blackwell kernels for a CUDA 12 driver.
OLDER_BLACKWELL = ("torch 2.11 from https://download.pytorch.org/whl/cu128 (sm_75 to sm_120, "
                   "CUDA 12.8: R570 or later; pytorch/pytorch#175253, #182250): "
                   "TORCH_SPEC='torch==2.11.*' TORCH_INDEX_URL=https://download.pytorch.org/"
                   "whl/cu128, untested with this suite")


def parse_capability(text: str) -> tuple[int, int] | None:
    """'9.0' -> (9, 0); '12.1' -> (12, 1); None for '[N/A]' or anything else."""
    value = text.strip()
    if not is_reported(value):
        return None
    major, dot, minor = value.partition(".")
    if not (dot and major.isdigit() and minor.isdigit()):
        return None
    return int(major), int(minor)


def _entry(entry: str) -> tuple[tuple[int, int], bool]:
    ptx = entry.endswith("+PTX")
    cap = parse_capability(entry.removesuffix("+PTX"))
    assert cap is not None, entry  # the table's own entries
    return cap, ptx


def covers(kernels: Sequence[str], capability: tuple[int, int]) -> bool:
    """Whether a build with ``kernels`` can run on a GPU of ``capability``.

    Machine code runs on the same major at an equal or higher minor; PTX of any
    capability at or below the GPU's is compiled for it by the driver.
    """
    for entry in kernels:
        cap, ptx = _entry(entry)
        if cap[0] == capability[0] and cap[1] <= capability[1]:
            return True
        if ptx and cap <= capability:
            return True
    return False


@dataclass(frozen=True)
class Choice:
    """The build to install (None: none fits) and why, in lines a person reads."""

    build: TorchBuild | None
    why: tuple[str, ...]

    @property
    def index(self) -> str:
        return "none" if self.build is None else self.build.index


def _branch(driver: str) -> int | None:
    head = driver.strip().split(".", 1)[0]
    return int(head) if head.isdigit() else None


def _caps_text(caps: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"{a}.{b}" for a, b in caps)


def choose(driver: str, capabilities: Sequence[tuple[int, int] | None], arch: str,
           builds: Sequence[TorchBuild] = BUILDS) -> Choice:
    """The first build of ``builds`` this driver runs whose kernels cover every GPU.

    ``capabilities``: one per GPU, None where nvidia-smi did not report it (the
    choice then rests on the driver alone, and says so). ``arch``: ``uname -m``.
    """
    branch = _branch(driver)
    if branch is None:
        return Choice(None, (f"the driver version {driver!r} is not a version",))
    known = sorted({c for c in capabilities if c is not None})
    unknown = len(capabilities) - len([c for c in capabilities if c is not None])
    rejected: list[str] = []
    for build in builds:
        kernels = build.kernels_for(arch)
        if not kernels:
            rejected.append(f"{build.tag}: no {arch} wheels")
            continue
        missing = [c for c in known if not covers(kernels, c)]
        old_driver = branch < build.min_driver
        if not old_driver and not missing:
            why = [f"{build.tag} from {build.where}: driver {driver} is R{build.min_driver} or "
                   f"later, and its {arch} kernels ({', '.join(kernels)}) cover "
                   + (f"compute capability {_caps_text(known)}" if known else "(no capability)")]
            if unknown:
                why.append(f"{unknown} GPU(s) reported no compute capability: the smoke test "
                           "after the install checks that a kernel runs")
            why.extend(f"not {r}" for r in rejected)
            why.append(f"source: {build.source}")
            return Choice(build, tuple(why))
        reasons = []
        if old_driver:
            reasons.append(f"needs driver R{build.min_driver} or later (this one: {driver})")
        if missing:
            reasons.append(f"has no kernels for compute capability {_caps_text(missing)} "
                           f"(its {arch} kernels: {', '.join(kernels)})")
        rejected.append(f"{build.tag}: " + " and ".join(reasons))
    return Choice(None, (f"no CUDA build of torch {SERIES} runs here (driver {driver}, "
                         f"compute capability {_caps_text(known) or 'unknown'}, {arch}):",
                         *rejected, *_remedies(branch, known, arch, builds)))


def _remedies(branch: int, caps: Sequence[tuple[int, int]], arch: str,
              builds: Sequence[TorchBuild]) -> list[str]:
    """What would work instead: a newer driver, or another torch."""
    out = []
    for build in builds:
        kernels = build.kernels_for(arch)
        if kernels and all(covers(kernels, c) for c in caps) and branch < build.min_driver:
            out.append(f"what would work: a driver of R{build.min_driver} or later, then "
                       f"torch {SERIES} {build.tag} from {build.where}")
            break
    else:
        out.append(f"what would work: no torch {SERIES} build has kernels for compute "
                   f"capability {_caps_text(caps)} on {arch}; an older torch built for it "
                   "(set TORCH_SPEC and TORCH_INDEX_URL)")
    if any(c[0] in (10, 12) for c in caps) and arch == "x86_64" and 570 <= branch < 580:
        out.append(f"or, keeping this driver: {OLDER_BLACKWELL}")
    return out


def _from_state(state: NvmlState, arch: str) -> Choice:
    drivers = sorted({r.get("driver_version", "") for r in state.rows})
    caps = [parse_capability(r.get("compute_cap", "")) for r in state.rows]
    return choose(drivers[0], caps, arch)


def main(argv: Sequence[str] | None = None) -> int:
    """``nvml``: exit 0 when NVML works, else 4 with the state and its remedy.
    ``choose``: first line the index ("pypi", a URL, or "none"), then the reasons;
    exit 0, or 3 when no build fits, or 4 when NVML does not work."""
    parser = argparse.ArgumentParser(prog="python -m claims.probes.machine.torch_wheels")
    parser.add_argument("command", choices=("nvml", "choose"))
    parser.add_argument("--driver", help="driver version (default: ask nvidia-smi)")
    parser.add_argument("--capability", action="append", default=[],
                        help="a GPU's compute capability, e.g. 9.0 (repeat per GPU)")
    parser.add_argument("--arch", default=platform.machine())
    args = parser.parse_args(argv)
    if args.driver is not None:
        choice = choose(args.driver, [parse_capability(c) for c in args.capability], args.arch)
    else:
        state = nvml_state()
        if not state.ok:
            print(f"{state.state}: {state.reason}")
            return 4
        if args.command == "nvml":
            print(f"ok: {state.message}")
            return 0
        choice = _from_state(state, args.arch)
    print(choice.index)
    for line in choice.why:
        print(line)
    return 0 if choice.build is not None else 3


if __name__ == "__main__":
    sys.exit(main())
