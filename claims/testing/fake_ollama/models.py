"""The models a fake Ollama serves: listings, /api/show replies, memory shapes, keep_alive.

:func:`default_models` gives phi4, llama3.2:3b and nomic-embed-text as Week 2 and
Week 4 list them; a transformer's KV cache per token (bytes) follows from its
shape, so /api/ps grows with num_ctx as the W4 formula predicts.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["IMPORTED_AS", "FakeModel", "default_models", "keep_alive_seconds"]


@dataclass
class FakeModel:
    """A model the fake serves: its listing, its /api/show reply, its memory shape."""

    name: str
    digest: str
    size: int
    family: str
    parameter_size: str
    quantization: str
    model_info: dict[str, Any]
    parameters: str = ""
    capabilities: tuple[str, ...] = ("completion",)
    base_bytes: int = 0  # loaded size before the KV cache
    kv_bytes_per_token: int = 0
    template: str = "{{ .Prompt }}"
    extra_show: tuple[tuple[str, Any], ...] = ()  # system, license, messages set by create
    license: str = ""

    def details(self) -> dict[str, Any]:
        return {
            "parent_model": "",
            "format": "gguf",
            "family": self.family,
            "families": [self.family],
            "parameter_size": self.parameter_size,
            "quantization_level": self.quantization,
        }


def _digest(prefix: str) -> str:
    # Only the 12-hex prefix is printed by the documents; the rest is made up.
    return prefix + hashlib.sha256(prefix.encode()).hexdigest()[: 64 - len(prefix)]


def _kv_per_token(layers: int, kv_heads: int, head_dim: int, bytes_per: int = 2) -> int:
    return 2 * layers * kv_heads * head_dim * bytes_per


def _transformer(
    name: str,
    digest_prefix: str,
    size: int,
    *,
    arch: str,
    parameter_size: str,
    parameter_count: int,
    shape: tuple[int, int, int, int, int],
    loaded_at_4096: int,
    model_info: dict[str, Any] | None = None,
    **fields: Any,
) -> FakeModel:
    """A Q4_K_M transformer whose model_info and KV cost follow from one shape.

    ``shape`` is (layers, attention heads, KV heads, embedding length, trained
    context); the f16 KV cache per token follows from it, so /api/ps grows with
    num_ctx exactly as the W4 formula predicts. ``loaded_at_4096`` is what
    /api/ps reports at the default context; ``model_info`` adds keys the shape
    does not give.
    """
    layers, heads, kv_heads, embedding, context = shape
    kv = _kv_per_token(layers, kv_heads, embedding // heads)
    info = {
        "general.architecture": arch,
        "general.parameter_count": parameter_count,
        f"{arch}.block_count": layers,
        f"{arch}.context_length": context,
        f"{arch}.embedding_length": embedding,
        f"{arch}.attention.head_count": heads,
        f"{arch}.attention.head_count_kv": kv_heads,
        **(model_info or {}),
    }
    return FakeModel(
        name=name, digest=_digest(digest_prefix), size=size, family=arch,
        parameter_size=parameter_size, quantization="Q4_K_M", model_info=info,
        base_bytes=loaded_at_4096 - 4096 * kv, kv_bytes_per_token=kv, **fields,
    )


# /api/show prints Modelfile parameters as "key<padding>value" lines.
PHI4_STOPS = "\n".join(f'stop{" " * 27}"{m}"' for m in ("<|im_start|>", "<|im_end|>", "<|im_sep|>"))


PHI4_TEMPLATE = (
    "{{- range $i, $_ := .Messages }}<|im_start|>{{ .Role }}<|im_sep|>"
    "{{ .Content }}<|im_end|>{{ end }}"
)


def default_models() -> list[FakeModel]:
    """phi4, llama3.2:3b and nomic-embed-text as Week 2 and Week 4 list them."""
    phi4 = _transformer(
        "phi4:latest", "ac896e5b8b34", 9_053_116_391, arch="phi3", parameter_size="14.7B",
        parameter_count=14_659_507_200, shape=(40, 40, 10, 5120, 16384),
        loaded_at_4096=9_700_000_000, parameters=PHI4_STOPS, template=PHI4_TEMPLATE,
        license="MIT License",
        model_info={"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "dbrx"},
    )
    llama = _transformer(
        "llama3.2:3b", "a80c4f17acd5", 2_019_393_189, arch="llama", parameter_size="3.2B",
        parameter_count=3_212_749_888, shape=(28, 24, 8, 3072, 131072),
        loaded_at_4096=2_600_000_000, capabilities=("completion", "tools"),
        model_info={"llama.attention.key_length": 128, "llama.attention.value_length": 128},
    )
    nomic = FakeModel(
        name="nomic-embed-text:latest",
        digest=_digest("0a109f422b47"),
        size=274_302_450,
        family="nomic-bert",
        parameter_size="137M",
        quantization="F16",
        model_info={
            "general.architecture": "nomic-bert",
            "nomic-bert.context_length": 2048,
            "nomic-bert.embedding_length": 768,
        },
        capabilities=("embedding",),
        base_bytes=300_000_000,
    )
    return [phi4, llama, nomic]


# What this fake says of any GGUF imported with /api/create (family, parameter size,
# quantization): the bundled Gemma 3 270M's, the one file the suite imports.
IMPORTED_AS = ("gemma3", "268.10M", "Q4_K_M")


_DURATION = re.compile(r"^(-?\d+(?:\.\d+)?)(ns|us|ms|s|m|h)$")


_UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def keep_alive_seconds(value: Any, default: float) -> float:
    """Ollama's keep_alive: number = seconds, Go duration string, negative = forever (inf)."""
    if value is None:
        return default
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        m = _DURATION.match(value.strip())
        if m is None:
            # Go's time.ParseDuration, its argument quoted as strconv.Quote does.
            raise ValueError(f"time: invalid duration {json.dumps(value)}")
        seconds = float(m.group(1)) * _UNIT_S[m.group(2)]
    else:
        raise ValueError(f"invalid keep_alive {value!r}")
    return math.inf if seconds < 0 else seconds
