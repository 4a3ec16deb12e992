"""The ``ollama list`` view of a store: one row per model, sizes in decimal units."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ListEntry", "human_bytes"]

_UNITS = (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3))


@dataclass(frozen=True)
class ListEntry:
    """One row of ``ollama list`` as the store on disk implies it."""

    name: str
    id: str  # first 12 hex digits of the manifest file's SHA-256
    size: int  # bytes of config plus layers
    size_display: str  # ``size`` as ``ollama list`` prints it
    modified_ns: int  # the manifest file's mtime


def human_bytes(n: int) -> str:
    """A byte count the way ``ollama list`` prints it (decimal units: 1 GB = 10^9 B).

    Values of ten or more are truncated to an integer ("71 GB"), smaller ones
    with a fraction get one decimal ("9.1 GB"), whole ones none ("2 GB").
    """
    if n < 1000:
        return f"{n} B"
    unit, scale = next((u, s) for u, s in _UNITS if n >= s)
    value = n / scale
    if value >= 10 or value == int(value):
        return f"{int(value)} {unit}"
    return f"{value:.1f} {unit}"
