"""Machine facts: OS, architecture, CPU, memory, Python, GPU and torch.

``fingerprint()`` is what every evidence file records about the machine. It is
cheap and offline: it reads /proc and platform facts, asks ``nvidia-smi`` only
when it is on PATH (bounded by a timeout), and reads torch's version from
package metadata without importing torch (an import costs seconds).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

NVIDIA_SMI_TIMEOUT_S = 10.0


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


def cpu_model() -> str:
    """CPU model name(s) from /proc/cpuinfo, deduplicated in order; platform fallback."""
    names: list[str] = []
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model name", "Hardware") and value.strip():
            if value.strip() not in names:
                names.append(value.strip())
    return " + ".join(names) or platform.processor() or platform.machine()


def memory_bytes() -> int:
    """Total memory in bytes (MemTotal from /proc/meminfo; sysconf fallback)."""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def nvidia_smi_query(fields: list[str], timeout: float = NVIDIA_SMI_TIMEOUT_S) -> list[dict[str, str]] | None:
    """One row per GPU from ``nvidia-smi --query-gpu``; None when nvidia-smi is absent or fails."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        proc = subprocess.run(
            [exe, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    rows = []
    for line in proc.stdout.strip().splitlines():
        values = [v.strip() for v in line.split(",")]
        if len(values) == len(fields):
            rows.append(dict(zip(fields, values)))
    return rows


def gpu_summary() -> dict[str, Any] | None:
    rows = nvidia_smi_query(["name", "driver_version", "memory.total"])
    if not rows:
        return None
    return {"devices": rows, "count": len(rows)}


def fingerprint() -> dict[str, Any]:
    """The machine record every evidence file carries (schema: run.machine)."""
    return {
        "os": os_name(),
        "arch": platform.machine(),
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
            for name in ("gguf", "tiktoken", "httpx", "llama_cpp_python", "pytest", "huggingface_hub")
        },
    }


def detect_profile() -> str:
    """'dgx-spark' on an aarch64 machine whose GPU is an NVIDIA GB10, else 'generic'."""
    if platform.machine() != "aarch64":
        return "generic"
    rows = nvidia_smi_query(["name"]) or []
    return "dgx-spark" if any("GB10" in row.get("name", "") for row in rows) else "generic"
