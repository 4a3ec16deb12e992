"""Memory arithmetic: parameter counts, weight bytes, KV-cache bytes, GB vs GiB, bits per weight.

Units are explicit in every name: ``*_bytes`` are bytes, ``gb`` divides by 1e9
(decimal), ``gib`` by 1024**3 (binary); parameter counts are plain counts.
Bits per weight of a ggml quantization type come from the block sizes gguf-py
publishes (``GGML_QUANT_SIZES``: weights per block, bytes per block), not from a
hand-written table.

Everything here is exact where the inputs are integers (``fractions.Fraction``
under the hood); the float-returning helpers are for display and comparison
with printed figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from claims.probes.errors import InputError

GB = 1_000_000_000
GIB = 1024**3

# Bits per parameter of plain precisions (Week 4's table).
PRECISION_BITS: dict[str, int] = {"fp32": 32, "fp16": 16, "bf16": 16, "int8": 8, "int4": 4}


def weight_bytes_exact(parameter_count: int, bits_per_parameter: int | Fraction) -> Fraction:
    """Weight storage in bytes as an exact fraction: parameters × bits / 8."""
    if isinstance(parameter_count, bool) or not isinstance(parameter_count, int):
        raise TypeError(f"parameter count must be an int, got {parameter_count!r}")
    if parameter_count < 0 or bits_per_parameter < 0:
        raise ValueError("parameter count and bits must be non-negative")
    return Fraction(parameter_count) * Fraction(bits_per_parameter) / 8


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
    for name, value in (
        ("layers", layers),
        ("kv_heads", kv_heads),
        ("head_dim", head_dim),
        ("context", context),
    ):
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


def serving_memory_bytes(weights_bytes: float, kv_bytes_per_slot: float, slots: int) -> float:
    """Weights plus one KV cache per parallel slot (bytes): weights + slots × per-slot KV.

    The masterclass's model of ``OLLAMA_NUM_PARALLEL``: the weights are shared,
    every slot holds its own cache. Activations and runtime buffers are not in it.
    """
    if slots < 1:
        raise ValueError("a server has at least one slot")
    if weights_bytes < 0 or kv_bytes_per_slot < 0:
        raise ValueError("sizes must be non-negative")
    return weights_bytes + slots * kv_bytes_per_slot


def max_decode_tokens_per_s(bandwidth_bytes_per_s: float, model_bytes: float) -> float:
    """Decode ceiling in tokens/s: memory bandwidth / bytes read per token.

    Decoding one token streams every weight once, so bandwidth divided by the
    model's size bounds the rate from above (KV-cache reads and compute time
    only lower it).
    """
    if bandwidth_bytes_per_s <= 0 or model_bytes <= 0:
        raise ValueError("bandwidth and model size must be positive")
    return bandwidth_bytes_per_s / model_bytes


# --- ggml quantization types -------------------------------------------------


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


# llama.cpp names its K-quant file profiles after their main block type plus a
# size letter (Q4_K_M = mostly Q4_K, some tensors kept at Q5_K/Q6_K). gguf-py
# has the file-type enum but no profile -> main-type map, so the suffix rule is
# written out here.
_PROFILE_SUFFIXES = ("_XS", "_S", "_M", "_L")


def profile_block_type(profile: str) -> str:
    """The ggml block type a quantization profile is named after ("Q4_K_M" -> "Q4_K").

    Plain types ("Q8_0", "Q6_K", "F16") map to themselves. The result is a
    lower bound of a mixed profile's bits per weight, not its file average.
    """
    name = profile.strip().upper()
    if "_K_" in name:
        for suffix in _PROFILE_SUFFIXES:
            if name.endswith(suffix):
                name = name[: -len(suffix)]
                break
    quant_block(name)  # raises ValueError for a name gguf does not know
    return name


# --- parameter counts from a Hugging Face config ------------------------------

# Which linear layers carry a bias, by model_type. Qwen2 hard-codes bias on the
# q/k/v projections (not configurable); Llama-style configs say so in
# attention_bias / mlp_bias (both default false in transformers).
_SUPPORTED_MODEL_TYPES = ("qwen2", "llama", "mistral")


@dataclass(frozen=True)
class ParameterCount:
    """Parameters (a count, not bytes) of a decoder-only transformer, by component.

    ``per_layer`` holds one transformer block's tensors (weights and biases
    counted separately); the block repeats ``layers`` times. ``lm_head`` is 0
    when the output projection shares the embedding matrix (tied).
    """

    embedding: int
    per_layer: Mapping[str, int]
    layers: int
    final_norm: int
    lm_head: int
    notes: tuple[str, ...] = field(default=())

    @property
    def layer_total(self) -> int:
        return sum(self.per_layer.values())

    @property
    def total(self) -> int:
        return self.embedding + self.layers * self.layer_total + self.final_norm + self.lm_head

    def breakdown(self) -> dict[str, int]:
        """Each component summed over the model (counts), for evidence."""
        out = {"embed_tokens": self.embedding}
        out.update({f"layers.*.{k}": v * self.layers for k, v in self.per_layer.items()})
        out["norm"] = self.final_norm
        out["lm_head"] = self.lm_head
        return out


def _positive_int(
    config: Mapping[str, Any], key: str, source: str | None, default: Any = None
) -> int:
    value = config.get(key, default)
    if value is None:
        raise InputError("missing", path=source, field=key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InputError(f"must be a positive integer, got {value!r}", path=source, field=key)
    return value


def _flag(config: Mapping[str, Any], key: str, source: str | None, default: bool) -> bool:
    value = config.get(key, default)
    if not isinstance(value, bool):
        raise InputError(f"must be true or false, got {value!r}", path=source, field=key)
    return value


def parameters_from_config(
    config: Mapping[str, Any], *, source: str | None = None, biases: bool = True
) -> ParameterCount:
    """Count the parameters a Hugging Face ``config.json`` implies (Qwen2 / Llama / Mistral).

    Per block: q/k/v/o attention projections (grouped-query: k and v have
    ``num_key_value_heads × head_dim`` outputs), the gated MLP (gate, up,
    down), and two RMSNorm weight vectors; then the token embedding, a final
    RMSNorm, and an output head unless ``tie_word_embeddings``. Biases follow
    the architecture (see ``_SUPPORTED_MODEL_TYPES``); ``biases=False`` leaves
    them out, to show what they contribute. ``source`` names the file
    in error messages. Raises :class:`InputError` naming the field on a missing,
    mistyped or inconsistent value, or an unsupported ``model_type``.
    """
    if not isinstance(config, Mapping):
        raise InputError("config must be a JSON object", path=source)
    model_type = config.get("model_type")
    if model_type not in _SUPPORTED_MODEL_TYPES:
        supported = ", ".join(_SUPPORTED_MODEL_TYPES)
        raise InputError(
            f"unsupported model_type {model_type!r} (supported: {supported})",
            path=source,
            field="model_type",
        )
    vocab = _positive_int(config, "vocab_size", source)
    hidden = _positive_int(config, "hidden_size", source)
    inter = _positive_int(config, "intermediate_size", source)
    layers = _positive_int(config, "num_hidden_layers", source)
    heads = _positive_int(config, "num_attention_heads", source)
    kv_heads = _positive_int(config, "num_key_value_heads", source, default=heads)
    if heads % kv_heads:
        raise InputError(
            f"num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads}",
            path=source,
            field="num_key_value_heads",
        )
    if config.get("head_dim") is not None:
        head_dim = _positive_int(config, "head_dim", source)
    else:
        if hidden % heads:
            raise InputError(
                f"hidden_size {hidden} is not divisible by num_attention_heads {heads}",
                path=source,
                field="hidden_size",
            )
        head_dim = hidden // heads
    # transformers' Qwen2Config and LlamaConfig both default to untied heads.
    tied = _flag(config, "tie_word_embeddings", source, default=False)

    if model_type == "qwen2":
        qkv_bias, o_bias, mlp_bias = True, False, False
    else:
        qkv_bias = o_bias = _flag(config, "attention_bias", source, default=False)
        mlp_bias = _flag(config, "mlp_bias", source, default=False)
    if not biases:
        qkv_bias = o_bias = mlp_bias = False

    q_out, kv_out = heads * head_dim, kv_heads * head_dim
    per_layer = {
        "self_attn.q_proj.weight": hidden * q_out,
        "self_attn.k_proj.weight": hidden * kv_out,
        "self_attn.v_proj.weight": hidden * kv_out,
        "self_attn.o_proj.weight": q_out * hidden,
        "mlp.gate_proj.weight": hidden * inter,
        "mlp.up_proj.weight": hidden * inter,
        "mlp.down_proj.weight": inter * hidden,
        "input_layernorm.weight": hidden,
        "post_attention_layernorm.weight": hidden,
    }
    if qkv_bias:
        per_layer["self_attn.q_proj.bias"] = q_out
        per_layer["self_attn.k_proj.bias"] = kv_out
        per_layer["self_attn.v_proj.bias"] = kv_out
    if o_bias:
        per_layer["self_attn.o_proj.bias"] = hidden
    if mlp_bias:
        per_layer["mlp.gate_proj.bias"] = inter
        per_layer["mlp.up_proj.bias"] = inter
        per_layer["mlp.down_proj.bias"] = hidden
    notes = []
    if tied:
        notes.append("tie_word_embeddings: the output head reuses embed_tokens (counted once)")
    return ParameterCount(
        embedding=vocab * hidden,
        per_layer=per_layer,
        layers=layers,
        final_norm=hidden,
        lm_head=0 if tied else vocab * hidden,
        notes=tuple(notes),
    )


def tensor_count_from_config(config: Mapping[str, Any], *, source: str | None = None) -> int:
    """How many named tensors a checkpoint of this shape holds (a shard index's weight_map size)."""
    count = parameters_from_config(config, source=source)
    return 1 + count.layers * len(count.per_layer) + 1 + (1 if count.lm_head else 0)
