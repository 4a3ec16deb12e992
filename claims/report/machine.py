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

from claims.records import Run
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


def fingerprint(run: Run) -> dict[str, str]:
    """Readable machine fields, in reading order (labels are the diff's field names)."""
    machine = run["machine"]
    tiers = run.get("tier_status", {})
    gpu_tier = tiers.get(GPU.name)
    ollama_tier = tiers.get(OLLAMA.name)
    out: dict[str, str] = {}
    out["OS"] = f"{text(machine['os'])} ({text(machine['arch'])})"
    if machine.get("kernel"):
        out["Kernel"] = text(machine.get("kernel"))
    cpu = text(machine["cpu"])
    if machine.get("cpu_count"):
        cpu += f", {text(machine.get('cpu_count'))} logical cores"
    out["CPU"] = cpu
    out["Memory"] = gib(machine["memory_bytes"])
    gpu = machine.get("gpu")
    devices = gpu["devices"] if gpu else []
    if gpu and devices:
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
    if gpu and gpu.get("cuda_version"):
        out["CUDA (driver's ceiling)"] = text(gpu.get("cuda_version"))
    cuda = gpu_tier.get("cuda") if gpu_tier else None
    out["CUDA (torch build)"] = text(cuda) if cuda else "— (gpu tier not used in this run)"
    out["torch"] = text(machine.get("torch")) if machine.get("torch") else "not installed"
    out["Python"] = text(machine["python"])
    server = machine.get("ollama")
    version = (server["version"] if server else None) or (
        ollama_tier.get("version") if ollama_tier else None
    )
    host = (server["host"] if server else None) or (
        ollama_tier.get("host") if ollama_tier else None
    )
    remote = (server.get("remote") if server else None) or (
        ollama_tier.get("remote") if ollama_tier else None
    )
    if version:
        out["Ollama"] = f"{text(version)}" + (f" at {text(host)}" if host else "") + (
            " (a remote server: its figures are that machine's, not this one's)"
            if remote else ""
        )
        versions = server.get("versions") if server else None
        if versions:
            out["Ollama"] += (
                "; its version changed during the run ("
                + " → ".join(text(v) for v in versions)
                + "): each check records the version it ran against"
            )
    elif ollama_tier:
        out["Ollama"] = "not reachable: " + text(ollama_tier["reason"])
    else:
        out["Ollama"] = "— (ollama tier not used in this run)"
    runner = server.get("runner_build") if server else None
    if isinstance(runner, dict):
        # Which llama.cpp the server ran models with: releases differ in it (issue 20).
        where = _RUNNER_SOURCES.get(runner["source"])
        out["Ollama runner"] = f"llama.cpp {text(runner['label'])}" + (
            f" ({where})" if where else ""
        )
    elif isinstance(runner, str) and runner:
        out["Ollama runner"] = runner
    out["Host name"] = text(machine.get("hostname"))
    for name, package in machine.get("packages", {}).items():
        out[f"package {name}"] = text(package) if package else "not installed"
    return out


def server_line(run: Run) -> str | None:
    """The report header's note of the Ollama the run measured: version and runner build.

    None when the ollama tier measured no server (its version is unknown).
    """
    fields = fingerprint(run)
    server = run["machine"].get("ollama")
    tier = run.get("tier_status", {}).get(OLLAMA.name)
    if not (server and server["version"]) and not (tier and tier.get("version")):
        return None
    runner = fields.get("Ollama runner")
    return f"Ollama {fields['Ollama']}" + (f", runner {runner}" if runner else "")


def options(run: Run) -> dict[str, str]:
    """What was asked of the run: selection, profile and every option, as readable strings."""
    out = {
        "-m expression": text(run["markexpr"]) if run["markexpr"] else "(none: all tiers)",
        "profile": text(run["profile"]),
    }
    for key, value in run["options"].items():
        out[key] = text(value)
    return out
