"""Which GGUF file the engine tier runs.

``--engine-model`` takes a path (a ``.gguf`` file or an Ollama blob with no
extension) or ``store:NAME[:TAG]`` to pick that model's blob from the Ollama
store; without it the verified Gemma 3 270M file from PyPI is used.
"""

from __future__ import annotations

from pathlib import Path

from claims.probes.artifacts import gemma_gguf
from claims.probes.errors import PrerequisiteMissing


def resolve_engine_model(option: str | None, models_dir: str | None = None) -> Path:
    """The model file for the engine tier, checked to exist and be readable."""
    if not option:
        return gemma_gguf()
    if option.startswith("store:"):
        from claims.probes.ollama_store import OllamaStore, locate_store

        name = option.removeprefix("store:")
        store = OllamaStore(locate_store(models_dir))
        return store.model_blob_path(name)
    path = Path(option).expanduser()
    if not path.is_file():
        raise PrerequisiteMissing(f"--engine-model {option}: no such file")
    return path
