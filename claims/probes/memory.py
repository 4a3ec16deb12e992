"""Memory arithmetic: weight bytes, KV-cache bytes, GB vs GiB, bits per weight.

Units are explicit in every name: ``*_bytes`` are bytes, ``gb`` divides by 1e9
(decimal), ``gib`` by 1024**3 (binary). Bits per weight of a ggml quantization
type come from the block sizes gguf-py publishes (``GGML_QUANT_SIZES``: weights
per block, bytes per block), not from a hand-written table.
"""

from __future__ import annotations

from fractions import Fraction

GB = 1_000_000_000
GIB = 1024**3

# Bits per parameter of plain precisions (Week 4's table).
PRECISION_BITS: dict[str, int] = {"fp32": 32, "fp16": 16, "bf16": 16, "int8": 8, "int4": 4}


def weight_bytes(parameter_count: int | float, bits_per_parameter: float | Fraction) -> float:
    """Weight storage in bytes: parameters × bits / 8 (exact for a uniform precision)."""
    if parameter_count < 0 or bits_per_parameter < 0:
        raise ValueError("parameter count and bits must be non-negative")
    value = Fraction(parameter_count) * Fraction(bits_per_parameter) / 8
    return float(value)


def gb(n_bytes: float) -> float:
    """Decimal gigabytes (bytes / 1e9)."""
    return n_bytes / GB


def gib(n_bytes: float) -> float:
    """Binary gibibytes (bytes / 1024**3)."""
    return n_bytes / GIB


def kv_cache_bytes(
    layers: int, kv_heads: int, head_dim: int, context: int, bytes_per_element: float = 2
) -> float:
    """KV-cache size in bytes: 2 (K and V) × layers × KV heads × head dim × context × element bytes.

    This is the masterclass's formula; it assumes every layer attends over the
    whole context with equal key and value lengths.
    """
    for name, value in (("layers", layers), ("kv_heads", kv_heads), ("head_dim", head_dim), ("context", context)):
        if value < 0:
            raise ValueError(f"{name} must be non-negative")
    return 2 * layers * kv_heads * head_dim * context * bytes_per_element


def kv_cache_bytes_split(
    layers: int,
    kv_heads: int,
    key_length: int,
    value_length: int,
    context: int,
    bytes_per_element: float = 2,
) -> float:
    """KV-cache bytes when key and value head sizes differ (as GGUF metadata allows)."""
    return layers * kv_heads * (key_length + value_length) * context * bytes_per_element


def quant_block(type_name: str) -> tuple[int, int]:
    """(weights per block, bytes per block) of a ggml type, from gguf-py's constants."""
    import gguf

    try:
        qtype = gguf.GGMLQuantizationType[type_name.upper()]
    except KeyError:
        raise ValueError(f"unknown ggml type {type_name!r}") from None
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    return int(block), int(size)


def bits_per_weight(type_name: str) -> Fraction:
    """Exact bits per weight of a ggml type: 8 × bytes per block / weights per block."""
    block, size = quant_block(type_name)
    return Fraction(8 * size, block)
