"""Which GGUF file the engine tier runs.

``--claims-engine-model`` takes a path (a ``.gguf`` file or an Ollama blob with no
extension) or ``store:NAME[:TAG]`` to pick that model's blob from the Ollama
store; without it the verified Gemma 3 270M file from PyPI is used.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from claims.probes.errors import PrerequisiteMissing
from claims.probes.files.artifacts import (
    GEMMA_FILE_NAME,
    GEMMA_MODEL_NAME,
    cache_dir,
    gemma_expected_sha256,
    gemma_gguf,
    verified,
)
from claims.probes.files.ollama_store import OllamaStore, locate_store

__all__ = ["EngineModel", "describe_engine_model", "resolve_engine_model"]

STORE_PREFIX = "store:"


@dataclass(frozen=True)
class EngineModel:
    """The model file the engine tier runs and where it came from.

    ``source``: "default" (the verified Gemma file), "store" (a blob picked
    from an Ollama store by name) or "path" (a file the user named).
    ``name`` is the Ollama name when there is one, else the file name.
    ``sha256`` is the content hash when it is already known and verified
    (the default file's published hash), else None: a store blob's name is
    only what the manifest claims until the store probe hashes it.
    ``store_root`` is the store a "store" model came from.
    """

    path: Path
    source: Literal["default", "store", "path"]
    name: str
    sha256: str | None
    store_root: Path | None = None

    @property
    def is_store_blob(self) -> bool:
        return self.source == "store"


def describe_engine_model(option: str | None, models_dir: str | None = None) -> EngineModel:
    """Resolve ``--claims-engine-model`` and say what it is (PrerequisiteMissing when unusable)."""
    if not option:
        return EngineModel(gemma_gguf(), "default", GEMMA_MODEL_NAME, gemma_expected_sha256())
    if option.startswith(STORE_PREFIX):
        name = option.removeprefix(STORE_PREFIX)
        store = OllamaStore(locate_store(models_dir))
        path = store.model_blob_path(name)
        return EngineModel(path, "store", name, None, store_root=store.root)
    path = Path(option).expanduser()
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise PrerequisiteMissing(f"--claims-engine-model {option}: no such file") from None
    except OSError as exc:
        raise PrerequisiteMissing(
            f"--claims-engine-model {option}: cannot read ({exc.strerror})"
        ) from None
    if not stat.S_ISREG(mode):
        # A FIFO or device would block or never end; a folder is no model file.
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO, device or socket"
        raise PrerequisiteMissing(f"--claims-engine-model {option}: not a regular file ({kind})")
    cached = gemma_gguf_if_cached()
    known = (
        gemma_expected_sha256()
        if cached is not None and cached.resolve() == path.resolve()
        else None
    )
    return EngineModel(path, "path", path.name, known)


def gemma_gguf_if_cached() -> Path | None:
    """The default file's path when it is already assembled and verified (no work otherwise)."""

    try:
        target = cache_dir() / GEMMA_FILE_NAME
        return target if verified(target, gemma_expected_sha256()) else None
    except PrerequisiteMissing:
        return None


def resolve_engine_model(option: str | None, models_dir: str | None = None) -> Path:
    """The model file for the engine tier, checked to exist and be readable."""
    return describe_engine_model(option, models_dir).path
