"""What would run a check the report shows as "not run" or "not applicable".

The reason a check was skipped is written by the tier detector or the test
("no Ollama server at ...", "pass --ollama-allow-unload to allow it"). The hint adds
what a user types to get past it, derived from the check's tiers and from any
command-line flag or missing package the reason names, so the page answers
"how do I run this?" without the reader opening the test code. Each hint is a
command or an option with its argument spelled out (which directory, which
model), never a bare flag name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from claims.probes.live.ollama_defaults import DEFAULT_URL
from claims.tiers import TIERS

__all__ = ["FLAG_HINTS", "PACKAGE_HINTS", "not_applicable_hint", "run_hint"]

# Each tier's own hint is part of its record (claims.tiers).

# What each option the reasons name needs as its argument, and what it changes.
FLAG_HINTS: dict[str, str] = {
    "--ollama-models-dir": "pass --ollama-models-dir DIR, the Ollama models folder that holds "
    "manifests/ and blobs/ (a Linux service install keeps it in "
    "/usr/share/ollama/.ollama/models, a user install in ~/.ollama/models; the server's "
    "OLLAMA_MODELS setting overrides both), with the model the reason names pulled into it",
    "--ollama-allow-unload": "pass --ollama-allow-unload to let the suite unload the model "
    "from the live server (the next request loads it again)",
    "--ollama-allow-pull": "pass --ollama-allow-pull to let the suite pull the model onto the "
    "live server",
    "--ollama-allow-create": "pass --ollama-allow-create to let the suite create (and then "
    "delete) a derived model on the live server",
    "--ollama-tools-model": "pass --ollama-tools-model NAME, a tools-capable model the server "
    "has (e.g. llama3.2:3b)",
    "--ollama-model": "pass --ollama-model NAME, the model the figure was stated for (phi4)",
    "--ollama-host": "pass --ollama-host URL of a reachable Ollama server "
    f"(default {DEFAULT_URL})",
    "--claims-engine-model": "pass --claims-engine-model PATH to a GGUF file, or store:NAME "
    "for a model in the Ollama store",
}

# A package a reason says is missing, and how to install it. Keyed by the
# package name as the reasons write it ("torch is not installed").
PACKAGE_HINTS: dict[str, str] = {
    "torch": "install torch (pip install torch==2.13.0 for the CPU build; on a CUDA machine "
    "your CUDA build of torch)",
    "llama-cpp-python": "install the engine extra (pip install '.[engine]', which builds "
    "llama-cpp-python)",
    "huggingface_hub": "install the hub extra (pip install '.[hub]')",
    "pytest-benchmark": "install pytest-benchmark (pip install pytest-benchmark) and run "
    "without xdist (-p no:xdist)",
}

_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_MISSING = re.compile(r"(?<![\w-])([A-Za-z][\w.-]*) is not installed")


def _flags(reason: str | None) -> list[str]:
    return list(dict.fromkeys(_FLAG.findall(reason or "")))


def _missing_packages(reason: str | None) -> list[str]:
    return [p for p in dict.fromkeys(_MISSING.findall(reason or "")) if p in PACKAGE_HINTS]


def _rerun(tiers: list[str], claim_id: str | None) -> str:
    # No tier at all: the first of the table, which every machine has (offline).
    tier = next((t for t in tiers if TIERS.is_live(t)), tiers[0] if tiers else TIERS.names()[0])
    only = f" --claim {claim_id}" if claim_id else ""
    return f"then run pytest -m {tier}{only}"


def run_hint(
    tiers: Iterable[str],
    reason: str | None,
    claim_id: str | None = None,
    *,
    selected: bool = True,
) -> str:
    """One line telling the user how to get this check run (``selected``: a test of it ran)."""
    tiers = list(dict.fromkeys(str(t) for t in tiers))  # str: evidence is read, not trusted
    packages = _missing_packages(reason)
    # A flag the reason names (--ollama-allow-unload, --ollama-models-dir...) is the most
    # precise advice.
    flags = [f for f in _flags(reason) if f not in ("--claims-require-live", "--claims-profile")]
    parts: list[str] = []
    if packages:
        # The tier is available but a package the test needs is not: "run pytest -m
        # offline" would repeat the run that just skipped it.
        parts.extend(PACKAGE_HINTS[p] for p in packages)
        parts.append(_rerun(tiers, claim_id))
    elif flags:
        parts.extend(FLAG_HINTS.get(f, f"pass {f}") for f in flags)
    else:
        live = [t for t in tiers if TIERS.is_live(t)]
        parts.extend(TIERS[t].hint for t in (live or tiers) if t in TIERS)
    if not selected and claim_id:
        parts.append(f"to run only this claim, add --claim {claim_id}")
    return "; ".join(dict.fromkeys(parts)) or "see the reason above"


def not_applicable_hint(applies_to: Mapping[str, object] | None) -> str | None:
    """How to run a check that another profile or model owns, if that is the user's case.

    ``applies_to`` is the check record's own statement of what it applies to
    ({"profile": ...} or {"model": ...}), written where the check ended.
    """
    scope = applies_to if isinstance(applies_to, Mapping) else {}
    profile, model = scope.get("profile"), scope.get("model")
    if isinstance(profile, str) and profile:
        return (
            "applies on a DGX Spark: run there, or pass --claims-profile dgx-spark if this "
            "machine is one"
        )
    if isinstance(model, str) and model:
        return "pass --ollama-model NAME with the model the figure was stated for"
    return None
