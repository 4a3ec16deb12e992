"""Fields of a repository's small JSON files: dotted values, added tokens, chat template,
the safetensors index (total bytes, which shard holds each weight).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claims.probes.errors import InputError


def field_value(data: Mapping[str, Any], dotted: str, *, source: str | None = None) -> Any:
    """``data["a"]["b"]`` for ``"a.b"``; InputError naming the field when absent."""
    current: Any = data
    for part in dotted.split("."):
        if not isinstance(current, Mapping) or part not in current:
            raise InputError("missing", path=source, field=dotted)
        current = current[part]
    return current


def added_tokens(
    tokenizer_config: Mapping[str, Any], *, source: str | None = None
) -> dict[int, str]:
    """Token id -> text of the tokenizer's added (special) tokens, from added_tokens_decoder."""
    decoder = field_value(tokenizer_config, "added_tokens_decoder", source=source)
    if not isinstance(decoder, Mapping):
        raise InputError("must be an object", path=source, field="added_tokens_decoder")
    out: dict[int, str] = {}
    for key, entry in decoder.items():
        where = f"added_tokens_decoder.{key}"
        if not str(key).isdigit():
            raise InputError("token id is not a non-negative integer", path=source, field=where)
        if not isinstance(entry, Mapping) or not isinstance(entry.get("content"), str):
            raise InputError("entry has no text content", path=source, field=where)
        out[int(key)] = entry["content"]
    return out


def chat_template(tokenizer_config: Mapping[str, Any], *, source: str | None = None) -> str:
    """The default chat template (a string, or the "default" entry of a named list)."""
    value = field_value(tokenizer_config, "chat_template", source=source)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for entry in value:
            if isinstance(entry, Mapping) and entry.get("name") == "default":
                template = entry.get("template")
                if isinstance(template, str):
                    return template
        raise InputError("no template named 'default'", path=source, field="chat_template")
    raise InputError(
        f"must be a string, got {type(value).__name__}", path=source, field="chat_template"
    )


def index_total_size(index: Mapping[str, Any], *, source: str | None = None) -> int:
    """metadata.total_size of a safetensors shard index (bytes of tensor data)."""
    value = field_value(index, "metadata.total_size", source=source)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(
            f"must be a non-negative integer, got {value!r}",
            path=source,
            field="metadata.total_size",
        )
    return value


def index_weight_map(index: Mapping[str, Any], *, source: str | None = None) -> dict[str, str]:
    """Tensor name -> shard file of a safetensors shard index."""
    value = field_value(index, "weight_map", source=source)
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise InputError("must map tensor names to file names", path=source, field="weight_map")
    return dict(value)
