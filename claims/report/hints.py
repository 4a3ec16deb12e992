"""What would run a check the report shows as "not run" or "not applicable".

The reason a check was skipped is written by the tier detector or the test
("no Ollama server at ...", "pass --allow-unload to allow it"). The hint adds
what a user types to get past it, derived from the check's tiers and from any
command-line flag the reason names, so the page answers "how do I run this?"
without the reader opening the test code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["TIER_HINTS", "not_applicable_hint", "run_hint"]

TIER_HINTS: dict[str, str] = {
    "offline": "run pytest -m offline",
    "engine": "install the engine extra (pip install '.[engine]', llama-cpp-python) and run "
    "pytest -m engine; --engine-model PATH picks another GGUF",
    "ollama": "start an Ollama server with the model, then run pytest -m ollama "
    "--ollama-host URL --ollama-model NAME",
    "gpu": "run pytest -m gpu on a CUDA machine "
    "(NVIDIA driver with nvidia-smi and a CUDA build of torch)",
    "hub": "run pytest -m hub on a machine that can reach huggingface.co",
}

_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def _flags(reason: str | None) -> list[str]:
    return list(dict.fromkeys(_FLAG.findall(reason or "")))


def run_hint(
    tiers: Iterable[str],
    reason: str | None,
    claim_id: str | None = None,
    *,
    selected: bool = True,
) -> str:
    """One line telling the user how to get this check run (``selected``: a test of it ran)."""
    tiers = list(dict.fromkeys(str(t) for t in tiers))  # str: evidence is read, not trusted
    # A flag the reason names (--allow-unload, --models-dir...) is the most precise advice.
    flags = [f for f in _flags(reason) if f not in ("--require-live", "--profile")]
    parts: list[str] = []
    if flags:
        parts.append("pass " + " ".join(flags))
    else:
        live = [t for t in tiers if t != "offline"]
        parts.extend(TIER_HINTS[t] for t in (live or tiers) if t in TIER_HINTS)
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
            "applies on a DGX Spark: run there, or pass --profile dgx-spark if this machine is one"
        )
    if isinstance(model, str) and model:
        return "pass --ollama-model with the model the figure was stated for"
    return None
