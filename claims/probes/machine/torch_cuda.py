"""PyTorch's view of CUDA: build, runtime, device, and where its CUDA libraries live.

What this probe measures:

* the torch build: version string (``2.13.0+cu130``), the CUDA version it was
  built for (``torch.version.cuda``, "13.0"; None for a CPU build), whether a
  GPU is usable (``torch.cuda.is_available()``) and how many;
* one device's name, compute capability (``(12, 1)`` on a GB10), total memory
  in bytes and whether it is an integrated GPU sharing system memory;
* the CUDA version the *driver* supports, asked from the driver itself
  (``cuDriverGetVersion`` in libcuda), to set beside nvidia-smi's header;
* which CUDA libraries a process that used the GPU has mapped, and whether each
  came from the Python environment (a pip wheel such as
  ``nvidia-cuda-runtime``) or from the system (a toolkit under
  ``/usr/local/cuda``), from ``/proc/self/maps`` and package metadata;
* torch's default TF32 settings, read in a fresh interpreter so nothing this
  process changed can leak in.

torch is imported lazily, inside the functions that need it, so importing this
module costs nothing and the offline tier never loads CUDA. Checks that must
not be disturbed by this process's state run in a fresh ``python -c``
subprocess with a timeout (:func:`fresh_python`).
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from claims.probes.errors import PrerequisiteMissing, ProbeError

__all__ = [
    "CUDA_TOOLKIT_WHEELS",
    "CudaRequirement",
    "DeviceFacts",
    "LibraryOrigin",
    "TorchBinary",
    "TorchBuild",
    "classify_libraries",
    "cuda_driver_version",
    "cuda_requirements",
    "cuda_torch",
    "device_facts",
    "elf_machine",
    "environment_distribution_files",
    "fresh_python",
    "import_torch",
    "parse_proc_maps",
    "runtime_wheels",
    "runtime_without_toolkit",
    "tensor_device",
    "tf32_defaults",
    "toolkit_hidden_env",
    "torch_binary",
    "torch_build",
    "torch_cuda_requirements",
    "torch_installed",
]

FRESH_TIMEOUT_S = 120.0  # a first CUDA initialisation can take tens of seconds
# Runtime libraries a CUDA build of torch loads (not libcuda: that is the driver).
CUDA_LIBRARY = re.compile(
    r"/lib(?P<name>cudart|cublas|cublasLt|cudnn[A-Za-z_]*|nvrtc|nvrtc-builtins|nvJitLink|"
    r"cusparse|cusparseLt|cufft|curand|cusolver|nccl|cupti|nvToolsExt|cufile)"
    r"(?:[.-][^/]*)?\.so(?:\.[0-9.]+)?$"
)


class FreshProcessError(ProbeError):
    """The helper interpreter failed, hung, or printed no JSON result."""


def torch_installed() -> bool:
    return importlib.util.find_spec("torch") is not None


def import_torch() -> Any:
    """The torch module, imported on first use (it costs seconds, so never at import time).

    Raises :class:`PrerequisiteMissing` when torch is not installed, or is installed but
    fails to import: a CUDA wheel on a machine missing one of its libraries raises an
    ImportError or an OSError from inside ``torch/__init__.py``; either is named, so the
    claim it stops says why instead of the run stopping on a traceback.
    """
    try:
        import torch
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise PrerequisiteMissing(f"torch is installed but does not import: {exc}") from None
        raise PrerequisiteMissing(f"torch is not installed ({exc})") from None
    except Exception as exc:  # whatever the broken install raises, named
        raise PrerequisiteMissing(
            f"torch is installed but does not import: {type(exc).__name__}: {exc}"
        ) from None
    return torch


def cuda_torch() -> Any:
    """The torch module, when it sees a CUDA device; else :class:`PrerequisiteMissing`."""
    torch = import_torch()
    if not torch.cuda.is_available():
        raise PrerequisiteMissing(f"torch {torch.__version__} sees no CUDA device")
    return torch


# --- build and device ------------------------------------------------------------------
@dataclass(frozen=True)
class TorchBuild:
    """What this torch was built for and what it can use here."""

    version: str  # "2.13.0+cu130"
    cuda: str | None  # torch.version.cuda: "13.0"; None for a CPU build
    local_tag: str | None  # the part after '+': "cu130", "cpu"; None for plain versions
    cuda_available: bool
    device_count: int

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def torch_build() -> TorchBuild:
    torch = import_torch()
    version = str(torch.__version__)
    available = bool(torch.cuda.is_available())
    return TorchBuild(
        version=version,
        cuda=torch.version.cuda,
        local_tag=version.split("+", 1)[1] if "+" in version else None,
        cuda_available=available,
        device_count=int(torch.cuda.device_count()) if available else 0,
    )


@dataclass(frozen=True)
class DeviceFacts:
    """One CUDA device as torch reports it. Memory in bytes.

    ``uuid`` and ``pci_bus_id`` identify the device across tools: torch's
    index counts only the devices CUDA_VISIBLE_DEVICES leaves visible, in
    CUDA's order, so torch's device 0 need not be nvidia-smi's row 0
    (:func:`claims.probes.machine.nvidia.match_smi_row`). A MIG slice has a MIG uuid
    and its parent GPU's bus id. ``free_memory`` is what
    ``torch.cuda.mem_get_info`` says is free now (None where it cannot be asked).
    """

    index: int
    name: str
    capability: tuple[int, int]
    total_memory: int
    is_integrated: bool | None  # True: the GPU shares system memory (GB10, Jetson)
    multiprocessors: int
    uuid: str | None = None  # as CUDA prints it: "GPU-…" or "MIG-…" (prefix added if absent)
    pci_bus_id: str | None = None  # "00000000:18:00.0", nvidia-smi's spelling
    free_memory: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "capability": list(self.capability)}


def _uuid_text(props: Any) -> str | None:
    raw = getattr(props, "uuid", None)
    if raw is None:
        return None
    text = str(raw).strip()
    if not text:
        return None
    # torch prints the 16 bytes as a bare uuid; nvidia-smi writes "GPU-<uuid>" (or "MIG-").
    return text if text.upper().startswith(("GPU-", "MIG-")) else f"GPU-{text}"


def _bus_id_text(props: Any) -> str | None:
    try:
        domain = int(props.pci_domain_id)
        bus = int(props.pci_bus_id)
        device = int(props.pci_device_id)
    except (AttributeError, TypeError, ValueError):
        return None
    return f"{domain:08X}:{bus:02X}:{device:02X}.0"


def device_facts(index: int = 0) -> DeviceFacts:
    torch = cuda_torch()
    props = torch.cuda.get_device_properties(index)
    integrated = getattr(props, "is_integrated", None)
    try:
        free, _total = torch.cuda.mem_get_info(index)
        free_memory: int | None = int(free)
    except (AttributeError, RuntimeError):
        free_memory = None
    return DeviceFacts(
        index=index,
        name=str(torch.cuda.get_device_name(index)),
        capability=tuple(torch.cuda.get_device_capability(index)),
        total_memory=int(props.total_memory),
        is_integrated=None if integrated is None else bool(integrated),
        multiprocessors=int(props.multi_processor_count),
        uuid=_uuid_text(props),
        pci_bus_id=_bus_id_text(props),
        free_memory=free_memory,
    )


# ELF e_machine values (System V ABI): what a shared object was built for.
ELF_MACHINES = {62: "x86_64", 183: "aarch64", 40: "arm", 3: "i386", 21: "ppc64", 243: "riscv64"}


def elf_machine(path: Path) -> str | None:
    """The architecture an ELF file was built for ("aarch64"), None if it is not ELF."""
    try:
        with path.open("rb") as fh:
            head = fh.read(20)
    except OSError:
        return None
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    code = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    return ELF_MACHINES.get(code, f"e_machine {code}")


@dataclass(frozen=True)
class TorchBinary:
    """torch's compiled extension module, the architecture it targets, and its wheel tags."""

    extension: str | None
    arch: str | None
    wheel_tags: tuple[str, ...]


def torch_binary() -> TorchBinary:
    """Where torch's ``_C`` extension is, what it was built for, and the wheel's tags."""
    torch = import_torch()
    found = sorted(Path(torch.__file__).parent.glob("_C*.so"))
    ext = found[0] if found else None
    try:
        text = metadata.distribution("torch").read_text("WHEEL") or ""
    except metadata.PackageNotFoundError:
        text = ""
    tags = tuple(line.split(":", 1)[1].strip() for line in text.splitlines()
                 if line.startswith("Tag:"))
    return TorchBinary(str(ext) if ext else None, elf_machine(ext) if ext else None, tags)


def tensor_device(device: str = "cuda") -> str:
    """Place a small random tensor on ``device`` and return where torch says it lives."""
    torch = import_torch()
    x = torch.rand(3, 3, device=device)
    # Reading a value back forces the work to finish on the device.
    float(x.sum().item())
    return str(x.device)


def cuda_driver_version() -> str | None:
    """The CUDA version the installed driver supports ("13.0"), from libcuda itself.

    This is the number nvidia-smi prints as "CUDA Version". None when libcuda
    cannot be loaded (no NVIDIA driver) or the call fails.
    """
    for name in ("libcuda.so.1", "libcuda.so"):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        version = ctypes.c_int(0)
        try:
            status = lib.cuDriverGetVersion(ctypes.byref(version))
        except AttributeError:
            return None
        if status != 0 or version.value <= 0:
            return None
        # CUDA encodes versions as 1000 * major + 10 * minor (13000 -> 13.0).
        return f"{version.value // 1000}.{(version.value % 1000) // 10}"
    return None


# --- where the CUDA libraries come from ---------------------------------------------------
def parse_proc_maps(text: str) -> list[str]:
    """Distinct file paths of the CUDA runtime libraries in a ``/proc/<pid>/maps`` text."""
    seen: dict[str, None] = {}
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 6:
            continue
        path = parts[5].strip()
        if path.endswith(" (deleted)"):
            path = path[: -len(" (deleted)")]
        if path.startswith("/") and CUDA_LIBRARY.search(path):
            seen.setdefault(path, None)
    return list(seen)


@dataclass(frozen=True)
class LibraryOrigin:
    """One loaded CUDA library and who brought it."""

    path: str
    in_environment: bool  # under this interpreter's prefix (a venv, a conda environment)
    distribution: str | None  # the installed distribution whose RECORD lists the file, if any

    @property
    def origin(self) -> str:
        if self.distribution:
            return f"wheel {self.distribution}"
        return "python environment" if self.in_environment else "system"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "origin": self.origin, "distribution": self.distribution,
                "in_environment": self.in_environment}


# Distributions that ship CUDA libraries as wheels: NVIDIA's nvidia-* runtime wheels, the
# cuda-* packages NVIDIA's cuda-toolkit meta-package resolves to, and torch itself.
CUDA_WHEEL_PREFIXES = ("nvidia-", "nvidia_", "cuda-", "cuda_", "torch")


def environment_distribution_files(prefixes: Iterable[str] = CUDA_WHEEL_PREFIXES
                                   ) -> dict[str, str]:
    """Real path -> distribution name for the shared libraries of CUDA-related wheels.

    Every distribution this interpreter can import from counts (a venv's, the
    user site, the system's dist-packages): what decides where a library came
    from is the RECORD that lists it, not the directory it lies under.
    """
    owners: dict[str, str] = {}
    wanted = tuple(p.lower() for p in prefixes)
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").strip()
        if not name.lower().startswith(wanted):
            continue
        for f in dist.files or ():
            if ".so" not in f.name:
                continue
            try:
                owners[os.path.realpath(f.locate())] = name
            except OSError:  # pragma: no cover - unreadable metadata entry
                continue
    return owners


def classify_libraries(paths: Iterable[str], *, prefix: str | None = None,
                       owners: Mapping[str, str] | None = None) -> list[LibraryOrigin]:
    """Say for each library path which installed wheel, if any, supplied it."""
    root = os.path.realpath(prefix if prefix is not None else sys.prefix)
    owners = environment_distribution_files() if owners is None else owners
    out = []
    for path in paths:
        real = os.path.realpath(path)
        inside = real == root or real.startswith(root.rstrip(os.sep) + os.sep)
        out.append(LibraryOrigin(path=path, in_environment=inside,
                                 distribution=owners.get(real) or owners.get(path)))
    return out


# The nvidia-* runtime wheels each component (extra) of NVIDIA's cuda-toolkit
# meta-package brings, as the Requires-Dist of cuda-toolkit 13.0.3 (the version torch
# 2.13.0 pins, on PyPI) lists them for Linux; torch's own extras only.
CUDA_TOOLKIT_WHEELS: dict[str, tuple[str, ...]] = {
    "cublas": ("nvidia-cublas", "nvidia-cuda-nvrtc"),
    "cudart": ("nvidia-cuda-runtime",),
    "cufft": ("nvidia-cufft", "nvidia-nvjitlink"),
    "cufile": ("nvidia-cufile",),
    "cupti": ("nvidia-cuda-cupti",),
    "curand": ("nvidia-curand",),
    "cusolver": ("nvidia-cusolver", "nvidia-cublas", "nvidia-cusparse", "nvidia-nvjitlink"),
    "cusparse": ("nvidia-cusparse", "nvidia-nvjitlink"),
    "nvjitlink": ("nvidia-nvjitlink",),
    "nvrtc": ("nvidia-cuda-nvrtc",),
    "nvtx": ("nvidia-nvtx",),
}


@dataclass(frozen=True)
class CudaRequirement:
    """One of torch's declared CUDA dependencies, in either of the two forms wheels use.

    ``nvidia-cublas==13.1.0.3`` names one runtime wheel; ``cuda-toolkit[cublas,cudart]==13.0.2``
    (the form of newer aarch64 wheels) names NVIDIA's meta-package with the components as
    extras, each of which resolves to an nvidia-* wheel.
    """

    name: str
    specifier: str
    extras: tuple[str, ...]
    form: str  # "nvidia-wheel" or "cuda-toolkit"

    def __str__(self) -> str:
        extras = f"[{','.join(self.extras)}]" if self.extras else ""
        return f"{self.name}{extras}{self.specifier}"

    @property
    def components(self) -> tuple[str, ...]:
        """What it brings: the wheel's own name, or the toolkit's components (its extras)."""
        return (self.name,) if self.form == "nvidia-wheel" else self.extras

    @property
    def wheels(self) -> tuple[str, ...]:
        """The nvidia-* wheels it installs: its own name, or what each toolkit component
        resolves to (:data:`CUDA_TOOLKIT_WHEELS`; an unknown component keeps its name)."""
        if self.form == "nvidia-wheel":
            return (self.name.lower().replace("_", "-"),)
        out: dict[str, None] = {}
        for extra in self.extras:
            for wheel in CUDA_TOOLKIT_WHEELS.get(extra, (f"cuda-toolkit[{extra}]",)):
                out.setdefault(wheel, None)
        return tuple(out)


def runtime_wheels(requirements: Iterable[CudaRequirement]) -> list[str]:
    """Every nvidia-* wheel torch's CUDA requirements install, in either form, sorted."""
    return sorted({w for r in requirements for w in r.wheels})


def cuda_requirements(requires: Iterable[str] | None = None) -> list[CudaRequirement]:
    """torch's CUDA dependencies for this platform, from its Requires-Dist lines.

    ``requires`` defaults to the installed torch's metadata; markers are
    evaluated for this interpreter (no extra), so Windows-only or optional
    lines drop out.
    """
    if requires is None:
        try:
            requires = metadata.requires("torch") or []
        except metadata.PackageNotFoundError:
            raise PrerequisiteMissing("torch is not installed") from None
    from packaging.requirements import InvalidRequirement, Requirement

    out = []
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        name = req.name.lower().replace("_", "-")
        if name.startswith("nvidia-"):
            form = "nvidia-wheel"
        elif name == "cuda-toolkit":
            form = "cuda-toolkit"
        else:
            continue
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        out.append(CudaRequirement(req.name, str(req.specifier), tuple(sorted(req.extras)), form))
    return out


def torch_cuda_requirements() -> list[str]:
    """torch's declared CUDA dependencies here, as text ("nvidia-cublas==13.1.0.3",
    "cuda-toolkit[cublas,cudart]==13.0.2")."""
    return [str(r) for r in cuda_requirements()]


# --- fresh interpreters ----------------------------------------------------------------------
def _package_root() -> str:
    """The folder holding the ``claims`` package (claims/probes/machine/ is three levels down)."""
    return str(Path(__file__).resolve().parents[3])


def fresh_python(code: str, *, env: Mapping[str, str] | None = None,
                 timeout: float = FRESH_TIMEOUT_S) -> dict[str, Any]:
    """Run ``code`` in a new interpreter (this one's executable); return the JSON it prints last.

    The child finds this package through PYTHONPATH even when it is not
    installed. Raises :class:`FreshProcessError` naming what went wrong.
    """
    child_env = dict(os.environ if env is None else env)
    root = _package_root()
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (root, child_env.get("PYTHONPATH", "")) if p
    )
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, env=child_env, stdin=subprocess.DEVNULL,
                              check=False)
    except subprocess.TimeoutExpired:
        raise FreshProcessError(f"the helper interpreter gave no answer within {timeout:g} s"
                                ) from None
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise FreshProcessError(f"the helper interpreter exited with status {proc.returncode}: "
                                f"{tail}")
    try:
        result = json.loads(lines[-1])
    except json.JSONDecodeError:
        raise FreshProcessError(f"the helper interpreter printed no JSON: {lines[-1][:200]!r}"
                                ) from None
    if not isinstance(result, dict):
        raise FreshProcessError("the helper interpreter's JSON is not an object")
    if TORCH_IMPORT_FAILED in result:
        raise PrerequisiteMissing(str(result[TORCH_IMPORT_FAILED]))
    return result


# The first lines of a helper that imports torch: where the import fails (not installed,
# or installed and raising, as a CUDA wheel missing a library does), the child prints
# import_torch's message under this key, and fresh_python raises PrerequisiteMissing with
# it, as in this process, instead of a FreshProcessError (which errs the claim).
TORCH_IMPORT_FAILED = "torch_import_failed"
_IMPORT_TORCH = f"""
import json
from claims.probes.errors import PrerequisiteMissing
from claims.probes.machine.torch_cuda import import_torch
try:
    torch = import_torch()
except PrerequisiteMissing as exc:
    print(json.dumps({{{TORCH_IMPORT_FAILED!r}: str(exc)}}))
    raise SystemExit(0)
"""

_TF32_DEFAULTS = _IMPORT_TORCH + """
matmul = torch.backends.cuda.matmul
out = {
    "torch": torch.__version__,
    "allow_tf32": bool(matmul.allow_tf32),
    "float32_matmul_precision": torch.get_float32_matmul_precision(),
    "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32),
}
try:
    out["fp32_precision"] = str(matmul.fp32_precision)
except AttributeError:
    out["fp32_precision"] = None
print(json.dumps(out))
"""


def tf32_defaults(timeout: float = FRESH_TIMEOUT_S) -> dict[str, Any]:
    """torch's TF32 settings as a fresh interpreter starts with them.

    TORCH_ALLOW_TF32_CUBLAS_OVERRIDE is removed from the child's environment:
    it exists to flip the default, and the claim is about the default.
    """
    if not torch_installed():
        raise PrerequisiteMissing("torch is not installed")
    env = {k: v for k, v in os.environ.items() if k != "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"}
    return fresh_python(_TF32_DEFAULTS, env=env, timeout=timeout)


_TOOLKIT_DIR = re.compile(r"(^|/)cuda[^/]*(/|$)")
_TOOLKIT_VARIABLES = ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDAToolkit_ROOT",
                      "LIBRARY_PATH", "CPATH")


def _holds_driver(directory: str) -> bool:
    """True when ``directory`` holds libcuda (the driver), as container hosts often arrange."""
    try:
        return any(name.startswith("libcuda.so") for name in os.listdir(directory))
    except OSError:
        return False


def _python_libraries() -> tuple[str, ...]:
    """The file names of this interpreter's shared library (``libpython3.12.so.1.0``), or
    none for an interpreter linked statically."""
    import sysconfig

    names = (sysconfig.get_config_var("INSTSONAME"), sysconfig.get_config_var("LDLIBRARY"))
    return tuple(n for n in names if isinstance(n, str) and n.startswith("libpython")
                 and ".so" in n)


def _holds_python(directory: str) -> bool:
    """True when ``directory`` holds this interpreter's shared library: an interpreter
    built with --enable-shared outside the loader's default folders (an HPC module, a
    copied or relocated build) starts only with that folder on LD_LIBRARY_PATH."""
    return any(os.path.isfile(os.path.join(directory, name)) for name in _python_libraries())


def toolkit_hidden_env(environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``environ`` from which the CUDA toolkit cannot be found.

    PATH loses every entry inside a CUDA install (``/usr/local/cuda*``, any
    ``cuda`` directory), and the variables that point programs at a toolkit are
    removed. LD_LIBRARY_PATH keeps the entries that hold the driver (libcuda):
    a container host may expose the driver only there, and hiding it would
    hide the GPU, not the toolkit; and those that hold this interpreter's own
    shared library, without which the new interpreter would not start at all.
    Whatever else the loader still finds is judged by where it came from
    (:func:`classify_libraries`).
    """
    env = {k: v for k, v in environ.items()
           if k not in _TOOLKIT_VARIABLES}
    parts = [p for p in environ.get("PATH", "").split(os.pathsep)
             if p and not _TOOLKIT_DIR.search(p)]
    env["PATH"] = os.pathsep.join(parts)
    kept = [p for p in environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
            if p and (_holds_driver(p) or (not _TOOLKIT_DIR.search(p) and _holds_python(p)))]
    if kept:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(kept)
    return env


_RUNTIME_CHECK = _IMPORT_TORCH + """
out = {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
       "available": bool(torch.cuda.is_available())}
if out["available"]:
    a = torch.rand(256, 256, device="cuda")
    b = (a @ a).sum().item()
    torch.cuda.synchronize()
    out["device"] = str(a.device)
    out["name"] = torch.cuda.get_device_name(0)
    out["result_finite"] = b == b
with open("/proc/self/maps") as fh:
    out["maps"] = [line.split(None, 5)[5].strip() for line in fh
                   if len(line.split(None, 5)) == 6 and ".so" in line]
print(json.dumps(out))
"""


def runtime_without_toolkit(timeout: float = FRESH_TIMEOUT_S) -> dict[str, Any]:
    """Run a CUDA matmul in a fresh interpreter that cannot see the CUDA toolkit.

    Returns what the child reported (torch version, device, a finite result)
    plus ``libraries``: the CUDA runtime libraries it had mapped, each with its
    origin (:func:`classify_libraries`), and the environment changes made.
    """
    if not torch_installed():
        raise PrerequisiteMissing("torch is not installed")
    env = toolkit_hidden_env(os.environ)
    result = fresh_python(_RUNTIME_CHECK, env=env, timeout=timeout)
    maps = result.pop("maps", [])
    paths = parse_proc_maps("\n".join(f"0-0 r-xp 0 0:0 0 {p}" for p in maps))
    result["libraries"] = [lib.to_json() for lib in classify_libraries(paths)]
    kept = env.get("LD_LIBRARY_PATH", "").split(os.pathsep)
    result["hidden"] = {
        "PATH removed": [p for p in os.environ.get("PATH", "").split(os.pathsep)
                         if p and p not in env["PATH"].split(os.pathsep)],
        "variables removed": sorted(set(os.environ) - set(env)),
        "LD_LIBRARY_PATH removed": [p for p in os.environ.get("LD_LIBRARY_PATH", "")
                                    .split(os.pathsep) if p and p not in kept],
        "LD_LIBRARY_PATH kept (driver)": [p for p in kept if p and _holds_driver(p)],
        "LD_LIBRARY_PATH kept (this Python's library)": [
            p for p in kept if p and not _holds_driver(p)],
    }
    return result
