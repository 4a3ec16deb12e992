"""The summary ``claims inspect gguf PATH`` prints: header facts as JSON-able values.

Sizes and offsets are in bytes, bits per parameter are bytes x 8 / parameter
count; long arrays show their first items only, read on demand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claims.probes.files.gguf_file.header import GGUF_MAGIC, GGUFHeader, read_header
from claims.probes.files.gguf_file.values import thaw, type_name

__all__ = ["inspect", "inspect_header"]


def _preview(value: Any, limit: int = 200) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + "…"
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return str(value)
    if isinstance(value, list):
        return [_preview(v, limit) for v in value]
    return value


def inspect_header(header: GGUFHeader, *, head_items: int = 8) -> dict[str, Any]:
    """A JSON-able summary of a header (what ``claims inspect gguf`` prints)."""
    metadata: dict[str, Any] = {}
    for key, fld in header.fields.items():
        if fld.array is None:
            entry: dict[str, Any] = {"type": fld.type_name, "value": _preview(fld.scalar)}
            if isinstance(fld.scalar, str) and len(fld.scalar) > 200:
                entry["length"] = len(fld.scalar)
        else:
            entry = {
                "type": "array",
                "item_type": type_name(fld.array.item_type),
                "count": fld.array.count,
                "offset": fld.array.offset,
                "bytes": fld.array.nbytes,
            }
            shown = min(head_items, fld.array.count)
            entry["head"] = _preview(
                header.array(key)[:shown] if fld.eager is None else thaw(fld.eager)[:shown]
            )
        metadata[key] = entry
    ft = header.file_type
    return {
        "path": str(header.path),
        "file_bytes": header.file_size,
        "magic": GGUF_MAGIC.hex(" "),
        "version": header.version,
        "byte_order": header.byte_order,
        "tensor_count": header.tensor_count,
        "kv_count": header.kv_count,
        "alignment": header.alignment,
        "header_bytes": header.header_end,
        "data_offset": header.data_offset,
        "file_type": {"id": ft[0], "label": ft[1]} if ft else None,
        "parameter_count": header.parameter_count,
        "tensor_data_bytes": header.tensor_data_bytes,
        "bits_per_parameter": {
            "file": header.file_bits_per_parameter,
            "tensor_data": header.tensor_bits_per_parameter,
        },
        "tensor_census": header.census,
        "layout": header.layout(),
        "tokenizer": header.tokenizer.to_json(),
        "metadata": metadata,
        "tensors": [
            {
                "name": t.name,
                "type": t.type_name,
                "dims": list(t.dims),
                "offset": t.offset,
                "bytes": t.n_bytes,
            }
            for t in header.tensors
        ],
    }


def inspect(path: Path | str) -> dict[str, Any]:
    """Read a GGUF header and summarise it; raises InputError for malformed input."""
    return inspect_header(read_header(path))
