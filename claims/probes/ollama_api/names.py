"""Model names as Ollama compares them, and finding one in a model listing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["find_model", "normalize_model_name"]


def normalize_model_name(name: str) -> str:
    """'phi4' -> 'phi4:latest'; names with a tag or a namespace keep them."""
    name = name.strip()
    # Only the last path segment can carry the tag: "host:5000/ns/model" has none.
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


def find_model(models: Sequence[Mapping[str, Any]], name: str) -> dict[str, Any] | None:
    """The entry of /api/tags or /api/ps whose name (or model) is ``name``."""
    wanted = normalize_model_name(name)
    for entry in models:
        for key in ("name", "model"):
            value = entry.get(key)
            if isinstance(value, str) and normalize_model_name(value) == wanted:
                return dict(entry)
    return None
