"""Unit and property tests of the memory arithmetic probe (claims.probes.arithmetic.memory)."""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from pathlib import Path

import gguf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claims.probes.arithmetic import memory
from claims.probes.errors import InputError
from tests.extras import import_or_skip

ROOT = Path(__file__).resolve().parents[3]
QWEN_CONFIG = (
    ROOT
    / "fixtures/hub/Qwen--Qwen2.5-3B-Instruct/aa8e72537993ba99e69dfaafa59ed015b17504d1/config.json"
)

counts = st.integers(min_value=0, max_value=10**13)
bits = st.sampled_from(sorted(set(memory.PRECISION_BITS.values())))


# --- weight bytes --------------------------------------------------------------------


def test_units_are_decimal_and_binary() -> None:
    assert memory.GB == 10**9
    assert memory.GIB == 1024 * 1024 * 1024
    assert memory.gb(35_000_000_000) == 35.0
    assert memory.gib(2 * 1024**3) == 2.0


def test_weight_bytes_examples() -> None:
    assert memory.weight_bytes(70_000_000_000, 4) == 35_000_000_000
    assert memory.weight_bytes_exact(3_085_938_688, 16) == 6_171_877_376
    assert memory.weight_bytes_exact(3, 4) == Fraction(3, 2)  # half a byte per INT4 value


@pytest.mark.parametrize("count, nbits", [(-1, 16), (10, -4)])
def test_weight_bytes_rejects_negatives(count: int, nbits: int) -> None:
    with pytest.raises(ValueError):
        memory.weight_bytes(count, nbits)
    with pytest.raises(ValueError):
        memory.weight_bytes_exact(count, nbits)


def test_weight_bytes_exact_wants_an_integer_count() -> None:
    with pytest.raises(TypeError):
        memory.weight_bytes_exact(True, 16)
    with pytest.raises(TypeError):
        memory.weight_bytes_exact(1.5, 16)  # type: ignore[arg-type]


@given(counts, bits)
def test_weight_bytes_is_count_times_bits_over_eight(n: int, b: int) -> None:
    exact = memory.weight_bytes_exact(n, b)
    assert exact * 8 == n * b
    assert memory.weight_bytes(n, b) == pytest.approx(float(exact), rel=1e-15)


@given(counts, counts, bits)
def test_weight_bytes_adds_up_over_tensors(a: int, b: int, nbits: int) -> None:
    assert memory.weight_bytes_exact(a + b, nbits) == (
        memory.weight_bytes_exact(a, nbits) + memory.weight_bytes_exact(b, nbits)
    )


@given(counts)
def test_precisions_scale_by_their_bit_ratio(n: int) -> None:
    fp32 = memory.weight_bytes_exact(n, memory.PRECISION_BITS["fp32"])
    assert fp32 == 2 * memory.weight_bytes_exact(n, memory.PRECISION_BITS["bf16"])
    assert fp32 == 8 * memory.weight_bytes_exact(n, memory.PRECISION_BITS["int4"])


# --- KV cache ---------------------------------------------------------------------------

dims = st.integers(min_value=0, max_value=4096)


@given(dims, dims, dims, dims, dims)
def test_kv_cache_is_linear_in_context(
    layers: int, heads: int, head_dim: int, a: int, b: int
) -> None:
    total = memory.kv_cache_bytes(layers, heads, head_dim, a + b)
    assert total == memory.kv_cache_bytes(layers, heads, head_dim, a) + memory.kv_cache_bytes(
        layers, heads, head_dim, b
    )


@given(dims, dims, dims, dims)
def test_kv_cache_split_form_agrees_when_k_and_v_match(
    layers: int, heads: int, head_dim: int, ctx: int
) -> None:
    assert memory.kv_cache_bytes(layers, heads, head_dim, ctx) == memory.kv_cache_bytes_split(
        layers, heads, head_dim, head_dim, ctx
    )


def test_kv_cache_llama3_8b_at_8k() -> None:
    # 2 x 32 layers x 8 KV heads x 128 dims x 8192 tokens x 2 bytes = exactly 1 GiB.
    assert memory.kv_cache_bytes(32, 8, 128, 8192, 2) == 1024**3


def test_kv_cache_rejects_negative_shape() -> None:
    with pytest.raises(ValueError, match="context"):
        memory.kv_cache_bytes(1, 1, 1, -1)


def test_serving_memory_and_decode_ceiling() -> None:
    assert memory.serving_memory_bytes(5e9, 1e9, 4) == 9e9
    with pytest.raises(ValueError):
        memory.serving_memory_bytes(5e9, 1e9, 0)
    assert memory.max_decode_tokens_per_s(1008e9, 4.7e9) == pytest.approx(214.468, abs=1e-3)
    with pytest.raises(ValueError):
        memory.max_decode_tokens_per_s(1e9, 0)


# --- ggml block types -----------------------------------------------------------------------


@pytest.mark.parametrize("qtype", list(gguf.GGML_QUANT_SIZES))
def test_bits_per_weight_follow_gguf_block_sizes(qtype: gguf.GGMLQuantizationType) -> None:
    block, size = gguf.GGML_QUANT_SIZES[qtype]
    assert memory.bits_per_weight(qtype.name) == Fraction(8 * size, block)


def test_bits_per_weight_known_values() -> None:
    assert memory.bits_per_weight("Q8_0") == Fraction(17, 2)
    assert memory.bits_per_weight("q4_0") == Fraction(9, 2)
    assert memory.bits_per_weight("F16") == 16
    with pytest.raises(ValueError, match="unknown ggml type"):
        memory.bits_per_weight("Q4_K_M")  # a file profile, not a block type


@pytest.mark.parametrize(
    "profile, block_type",
    [
        ("Q4_K_M", "Q4_K"),
        ("q3_k_s", "Q3_K"),
        ("Q5_K_L", "Q5_K"),
        ("Q6_K", "Q6_K"),
        ("Q8_0", "Q8_0"),
        ("IQ4_XS", "IQ4_XS"),
        ("F16", "F16"),
    ],
)
def test_profile_block_type(profile: str, block_type: str) -> None:
    assert memory.profile_block_type(profile) == block_type


def test_profile_block_type_rejects_unknown() -> None:
    with pytest.raises(ValueError):
        memory.profile_block_type("Q9_K_M")


# --- parameter counts from config.json ---------------------------------------------------------


@pytest.fixture
def qwen_config() -> dict:
    return json.loads(QWEN_CONFIG.read_text("utf-8"))


def test_qwen_count_is_exact(qwen_config: dict) -> None:
    count = memory.parameters_from_config(qwen_config)
    assert count.total == 3_085_938_688
    assert sum(count.breakdown().values()) == count.total
    assert count.lm_head == 0  # tied
    assert memory.tensor_count_from_config(qwen_config) == 434


def test_untying_adds_an_output_head(qwen_config: dict) -> None:
    qwen_config["tie_word_embeddings"] = False
    count = memory.parameters_from_config(qwen_config)
    assert count.total == 3_085_938_688 + 151_936 * 2048
    assert memory.tensor_count_from_config(qwen_config) == 435


def test_llama_style_bias_flags(qwen_config: dict) -> None:
    cfg = dict(qwen_config, model_type="llama")
    plain = memory.parameters_from_config(cfg).total
    with_bias = memory.parameters_from_config(dict(cfg, attention_bias=True)).total
    # q (2048) + k, v (256 each) + o (2048) biases per layer
    assert with_bias - plain == 36 * (2048 + 256 + 256 + 2048)
    # Qwen2 hard-codes q/k/v biases only.
    assert memory.parameters_from_config(qwen_config).total - plain == 36 * (2048 + 256 + 256)


@pytest.mark.parametrize(
    "edit, field",
    [
        ({"hidden_size": None}, "hidden_size"),
        ({"hidden_size": "2048"}, "hidden_size"),
        ({"num_hidden_layers": True}, "num_hidden_layers"),
        ({"num_hidden_layers": 0}, "num_hidden_layers"),
        ({"model_type": "gpt2"}, "model_type"),
        ({"num_key_value_heads": 3}, "num_key_value_heads"),
        ({"hidden_size": 2047}, "hidden_size"),
        ({"tie_word_embeddings": "yes"}, "tie_word_embeddings"),
    ],
)
def test_bad_config_names_the_field(qwen_config: dict, edit: dict, field: str) -> None:
    cfg = copy.deepcopy(qwen_config)
    for key, value in edit.items():
        if value is None:
            del cfg[key]
        else:
            cfg[key] = value
    with pytest.raises(InputError) as info:
        memory.parameters_from_config(cfg, source="config.json")
    assert info.value.field == field
    assert "config.json" in str(info.value)


def test_config_must_be_an_object() -> None:
    with pytest.raises(InputError):
        memory.parameters_from_config([1, 2], source="x.json")  # type: ignore[arg-type]


small = st.integers(min_value=1, max_value=8)


@settings(max_examples=25, deadline=None)
@given(
    vocab=st.integers(min_value=1, max_value=64),
    kv_heads=small,
    group=st.integers(min_value=1, max_value=4),
    head_dim=st.integers(min_value=1, max_value=8),
    inter=st.integers(min_value=1, max_value=32),
    layers=st.integers(min_value=1, max_value=3),
    tied=st.booleans(),
    model_type=st.sampled_from(["qwen2", "llama"]),
    attention_bias=st.booleans(),
)
def test_count_matches_torch_modules(
    vocab: int,
    kv_heads: int,
    group: int,
    head_dim: int,
    inter: int,
    layers: int,
    tied: bool,
    model_type: str,
    attention_bias: bool,
) -> None:
    """The count equals the numel of the same shapes built from torch.nn layers."""
    torch = import_or_skip("torch", "gpu")
    nn = torch.nn
    heads = kv_heads * group
    hidden = heads * head_dim
    cfg = {
        "model_type": model_type,
        "vocab_size": vocab,
        "hidden_size": hidden,
        "intermediate_size": inter,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "tie_word_embeddings": tied,
        "attention_bias": attention_bias,
    }
    qkv_bias = model_type == "qwen2" or attention_bias
    o_bias = model_type == "llama" and attention_bias
    with torch.device("meta"):  # shapes only, no memory
        modules = [nn.Embedding(vocab, hidden), nn.RMSNorm(hidden)]
        for _ in range(layers):
            modules += [
                nn.Linear(hidden, heads * head_dim, bias=qkv_bias),
                nn.Linear(hidden, kv_heads * head_dim, bias=qkv_bias),
                nn.Linear(hidden, kv_heads * head_dim, bias=qkv_bias),
                nn.Linear(heads * head_dim, hidden, bias=o_bias),
                nn.Linear(hidden, inter, bias=False),
                nn.Linear(hidden, inter, bias=False),
                nn.Linear(inter, hidden, bias=False),
                nn.RMSNorm(hidden),
                nn.RMSNorm(hidden),
            ]
        if not tied:
            modules.append(nn.Linear(hidden, vocab, bias=False))
        expected = sum(p.numel() for m in modules for p in m.parameters())
        tensors = sum(1 for m in modules for _ in m.parameters())
    assert memory.parameters_from_config(cfg).total == expected
    assert memory.tensor_count_from_config(cfg) == tensors
