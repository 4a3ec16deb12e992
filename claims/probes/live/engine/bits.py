"""Bits per parameter of the file the engine runs, against the width its label promises.

Week 4's measure: on-disk bytes x 8 / parameters (bits), set against the bit
width named by the file's quantization label (``general.file_type``).
"""

from __future__ import annotations

import re

from claims.probes.files.gguf_file import GGUFHeader

__all__ = ["bits_per_parameter", "nominal_bits", "quantization_label"]

_NOMINAL_RE = re.compile(r"^I?Q(\d)")


def quantization_label(header: GGUFHeader) -> str | None:
    """The file's quantization label from ``general.file_type`` (15 -> "Q4_K_M"), if set."""
    found = header.file_type
    if found is None:
        return None
    return found[1].removeprefix("MOSTLY_").removeprefix("ALL_")


def nominal_bits(label: str | None) -> int | None:
    """The bit width a label promises: Q4_K_M -> 4, Q8_0 -> 8, F16/BF16 -> 16, F32 -> 32."""
    if not label:
        return None
    upper = label.upper()
    if upper in ("F16", "BF16"):
        return 16
    if upper == "F32":
        return 32
    m = _NOMINAL_RE.match(upper)
    return int(m.group(1)) if m else None


def bits_per_parameter(n_bytes: int | float, n_params: int) -> float:
    """On-disk bits per parameter: bytes x 8 / parameters (Week 4's measure)."""
    if n_params <= 0:
        raise ValueError("parameter count must be positive")
    return float(n_bytes) * 8 / n_params
