"""Model names as Ollama compares them, and finding one in a model listing.

The rule itself lives in :mod:`claims.probes.files.ollama_store.names` (Ollama's
``ParseName`` and ``EqualFold``); this module applies it to API listings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from claims.probes.files.ollama_store.names import parse_name, same_model

__all__ = ["find_model", "normalize_model_name", "same_model"]


def normalize_model_name(name: str) -> str:
    """A name as ``ollama list`` shows it: 'phi4' and 'library/phi4' -> 'phi4:latest'.

    Ollama's DisplayShortest: the default host and namespace are dropped, the tag
    is always shown. Case is kept; compare names with :func:`same_model`.
    """
    return parse_name(name).display


def find_model(models: Sequence[Mapping[str, Any]], name: str) -> dict[str, Any] | None:
    """The entry of /api/tags or /api/ps whose name (or model) is ``name`` by Ollama's rule."""
    for entry in models:
        for key in ("name", "model"):
            value = entry.get(key)
            if isinstance(value, str) and same_model(value, name):
                return dict(entry)
    return None
