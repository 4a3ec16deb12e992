"""What the ``ollama`` CLI prints from what the API reports, for claims quoted from its output."""

from __future__ import annotations

__all__ = ["processor_column"]


def processor_column(size: int, size_vram: int) -> str:
    """``ollama ps``'s PROCESSOR column from /api/ps ``size`` and ``size_vram`` (bytes).

    "100% GPU" when the whole loaded model is in GPU memory, "100% CPU" when
    none of it is, otherwise the CPU/GPU split in whole percent ("25%/75% CPU/GPU").
    """
    gpu = round(100 * size_vram / size)
    if gpu == 100:
        return "100% GPU"
    if gpu == 0:
        return "100% CPU"
    return f"{100 - gpu}%/{gpu}% CPU/GPU"
