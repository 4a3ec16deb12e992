"""The machine a run measured on, as the report and the diff show it.

Facts about the machine come from three places in the evidence: ``run.machine``
(the plugin's fingerprint: OS, CPU, memory, GPU rows from nvidia-smi, torch),
``run.tier_status`` (what each tier's detector found: the Ollama server's
version, torch's CUDA build) and ``run.facts`` (what checks recorded: model
digests, driver strings). :func:`fingerprint` folds them into one ordered
mapping of readable fields, the unit in which two machines are compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claims.tiers import GPU, OLLAMA

__all__ = ["fingerprint", "gib", "options", "server_line", "text"]


def text(value: Any) -> str:
    """A JSON value as one short readable string."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return ", ".join(text(v) for v in value) if value else "(none)"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={text(v)}" for k, v in value.items()) if value else "(none)"
    return str(value)


def gib(n: Any) -> str:
    if isinstance(n, bool) or not isinstance(n, (int, float)) or n <= 0:
        return "unknown"
    return f"{n / 1024**3:.1f} GiB ({int(n):,} bytes)"


# How each RunnerBuild source reads in the report (claims.probes.live.ollama_serve.build).
_RUNNER_SOURCES = {
    "runner start line": "the runner's start-up line in the server log",
    "llama-server --version": "llama-server --version beside the ollama binary",
    "build info line": "the build line in the server log",
}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _gpu_devices(machine: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    devices = _mapping(machine.get("gpu")).get("devices")
    return [d for d in devices if isinstance(d, Mapping)] if isinstance(devices, list) else []


def fingerprint(run: Mapping[str, Any]) -> dict[str, str]:
    """Readable machine fields, in reading order (labels are the diff's field names)."""
    machine = _mapping(run.get("machine"))
    tiers = _mapping(run.get("tier_status"))
    gpu_tier = _mapping(tiers.get(GPU.name))
    ollama_tier = _mapping(tiers.get(OLLAMA.name))
    out: dict[str, str] = {}
    out["OS"] = f"{text(machine.get('os'))} ({text(machine.get('arch'))})"
    if machine.get("kernel"):
        out["Kernel"] = text(machine.get("kernel"))
    cpu = text(machine.get("cpu"))
    if machine.get("cpu_count"):
        cpu += f", {text(machine.get('cpu_count'))} logical cores"
    out["CPU"] = cpu
    out["Memory"] = gib(machine.get("memory_bytes"))
    gpu = _mapping(machine.get("gpu"))
    devices = _gpu_devices(machine)
    if devices:
        names = []
        for d in devices:
            memory = str(d.get("memory.total") or "").strip()
            # "[N/A]" is what nvidia-smi prints on unified-memory machines such as the Spark.
            names.append(
                text(d.get("name")) + (f" ({memory} MiB)" if memory and memory[0].isdigit() else "")
            )
        out["GPU"] = "; ".join(names)
        drivers = {text(d.get("driver_version")) for d in devices if d.get("driver_version")}
        out["NVIDIA driver"] = (
            text(gpu.get("driver_version"))
            if gpu.get("driver_version")
            else ", ".join(sorted(drivers)) or "—"
        )
    else:
        out["GPU"] = "none detected (no nvidia-smi, or it listed no GPU)"
        out["NVIDIA driver"] = "—"
    if gpu.get("cuda_version"):
        out["CUDA (driver's ceiling)"] = text(gpu.get("cuda_version"))
    cuda = gpu_tier.get("cuda") or machine.get("cuda")
    out["CUDA (torch build)"] = text(cuda) if cuda else "— (gpu tier not used in this run)"
    out["torch"] = text(machine.get("torch")) if machine.get("torch") else "not installed"
    out["Python"] = text(machine.get("python"))
    ollama = _mapping(machine.get("ollama"))
    version = ollama.get("version") or ollama_tier.get("version")
    host = ollama.get("host") or ollama_tier.get("host")
    remote = ollama.get("remote") or ollama_tier.get("remote")
    if version:
        out["Ollama"] = f"{text(version)}" + (f" at {text(host)}" if host else "") + (
            " (a remote server: its figures are that machine's, not this one's)"
            if remote else ""
        )
    elif ollama_tier:
        out["Ollama"] = "not reachable: " + text(ollama_tier.get("reason"))
    else:
        out["Ollama"] = "— (ollama tier not used in this run)"
    runner = ollama.get("runner_build")
    if isinstance(runner, Mapping) and runner.get("label"):
        # Which llama.cpp the server ran models with: releases differ in it (issue 20).
        where = _RUNNER_SOURCES.get(str(runner.get("source")))
        out["Ollama runner"] = f"llama.cpp {text(runner.get('label'))}" + (
            f" ({where})" if where else ""
        )
    elif isinstance(runner, str) and runner:
        out["Ollama runner"] = runner
    out["Host name"] = text(machine.get("hostname"))
    for name, version in _mapping(machine.get("packages")).items():
        out[f"package {name}"] = text(version) if version else "not installed"
    return out


def server_line(run: Mapping[str, Any]) -> str | None:
    """The report header's note of the Ollama the run measured: version and runner build.

    None when the ollama tier measured no server (its version is unknown).
    """
    fields = fingerprint(run)
    if not _mapping(_mapping(run.get("machine")).get("ollama")).get("version") and not _mapping(
        _mapping(run.get("tier_status")).get(OLLAMA.name)
    ).get("version"):
        return None
    runner = fields.get("Ollama runner")
    return f"Ollama {fields['Ollama']}" + (f", runner {runner}" if runner else "")


def options(run: Mapping[str, Any]) -> dict[str, str]:
    """What was asked of the run: selection, profile and every option, as readable strings."""
    out = {
        "-m expression": text(run.get("markexpr")) if run.get("markexpr") else "(none: all tiers)",
        "profile": text(run.get("profile")),
    }
    for key, value in _mapping(run.get("options")).items():
        out[key] = text(value)
    return out
