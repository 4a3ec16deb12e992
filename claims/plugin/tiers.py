"""Is each tier's prerequisite present? Detected lazily, once per session.

Nothing is probed until a test of that tier is about to run, so ``-m offline``
touches neither the network nor a GPU driver. Each answer carries a precise
reason a user can act on ("no Ollama server at http://127.0.0.1:11434
(connection refused)", "torch 2.13.0+cpu was built without CUDA").
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from claims.plugin.options import Settings

__all__ = ["TierStatus", "Tiers"]

# The hub tier talks to the public Internet, so it runs only when asked for by name.
HUB_PROBE_URL = "https://huggingface.co/api/models/Qwen/Qwen2.5-3B-Instruct"


@dataclass(frozen=True)
class TierStatus:
    available: bool
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def _offline(_: Settings) -> TierStatus:
    return TierStatus(True)


def _engine(settings: Settings) -> TierStatus:
    if importlib.util.find_spec("llama_cpp") is None:
        return TierStatus(
            False, "engine tier needs llama-cpp-python (pip install 'claims-suite[engine]')"
        )
    from claims.probes.errors import ProbeError

    try:
        # Installed is not enough: a wheel built for another CPU or a missing
        # runtime library fails only when libllama is loaded.
        from claims.probes.live.engine import llama_cpp_module

        llama = llama_cpp_module()
    except ProbeError as exc:
        return TierStatus(False, f"engine tier needs a working llama-cpp-python: {exc}")
    try:
        from claims.probes.live.engine.model_file import describe_engine_model

        model = describe_engine_model(settings.engine_model, settings.models_dir)
    except ProbeError as exc:
        return TierStatus(False, f"engine tier has no model file: {exc}")
    return TierStatus(True, details={"model_path": str(model.path), "model": model.name,
                                     "model_source": model.source,
                                     "llama_cpp": getattr(llama, "__version__", "unknown")})


def _ollama(settings: Settings) -> TierStatus:
    from claims.probes.errors import ProbeError
    from claims.probes.live.ollama_api import OllamaClient

    serve = settings.extra.get("ollama_serve")  # --ollama-serve: start the suite's own server
    if serve is not None:
        try:
            serve.use()
        except ProbeError as exc:
            return TierStatus(False, f"--ollama-serve: {exc}")
    try:
        with OllamaClient(settings.ollama_host, connect_timeout=3.0, read_timeout=10.0) as client:
            version = client.version()
    except ProbeError as exc:
        return TierStatus(False, f"no Ollama server at {settings.ollama_host} ({exc})")
    return TierStatus(True, details={"version": version, "host": settings.ollama_host,
                                     "server": "user's" if serve is None else "private"})


def _gpu(_: Settings) -> TierStatus:
    if importlib.util.find_spec("torch") is None:
        return TierStatus(
            False, "gpu tier needs torch with CUDA (install a CUDA build of torch for this machine)"
        )
    if shutil.which("nvidia-smi") is None:
        # Name the torch build too (from metadata: no import), so one run tells
        # a user everything missing; a "+cpu" build needs replacing as well.
        from importlib.metadata import PackageNotFoundError, version

        try:
            build = version("torch")
        except PackageNotFoundError:
            build = "unknown version"
        return TierStatus(False, "gpu tier needs an NVIDIA driver: nvidia-smi is not on PATH "
                          f"(torch here: {build})")
    import torch

    if not torch.cuda.is_available():
        built = torch.version.cuda
        why = "was built without CUDA" if built is None else f"(CUDA {built}) sees no usable GPU"
        return TierStatus(False, f"torch {torch.__version__} {why}")
    return TierStatus(True, details={"torch": torch.__version__, "cuda": torch.version.cuda})


def _hub(settings: Settings) -> TierStatus:
    selected = "hub" in settings.markexpr.replace("not hub", "")
    if not selected:
        return TierStatus(
            False, "the hub tier reaches huggingface.co; select it explicitly with -m hub"
        )
    if importlib.util.find_spec("huggingface_hub") is None:
        return TierStatus(False, "hub tier needs huggingface_hub (pip install 'claims-suite[hub]')")
    import httpx

    try:
        resp = httpx.head(
            HUB_PROBE_URL, timeout=httpx.Timeout(10.0, connect=5.0), follow_redirects=True
        )
    except httpx.HTTPError as exc:
        reason = f"{type(exc).__name__}: {exc}"
        return TierStatus(False, f"the Hugging Face Hub cannot be reached ({reason})")
    if resp.status_code >= 500:
        return TierStatus(False, f"the Hugging Face Hub answered HTTP {resp.status_code}")
    return TierStatus(True)


_DETECTORS: dict[str, Callable[[Settings], TierStatus]] = {
    "offline": _offline,
    "engine": _engine,
    "ollama": _ollama,
    "gpu": _gpu,
    "hub": _hub,
}


class Tiers:
    """Session cache of tier availability."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[str, TierStatus] = {}

    def status(self, tier: str) -> TierStatus:
        if tier not in self._cache:
            try:
                self._cache[tier] = _DETECTORS[tier](self.settings)
            except Exception as exc:  # a detector must never crash the session
                self._cache[tier] = TierStatus(False, f"{tier} prerequisite check failed: {exc!r}")
        return self._cache[tier]

    def known(self) -> dict[str, TierStatus]:
        return dict(self._cache)
