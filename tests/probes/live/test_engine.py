"""Tests of the llama.cpp engine probe (claims.probes.live.engine).

The offline tests cover what needs no engine: log parsing, the KV formula from
GGUF metadata, token-string reconstruction, labels and input errors. The
engine tests load the real Gemma 3 270M file once for the module (a fraction
of a second) and check the probe's measurements for internal consistency.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from gguf.vocab import bytes_to_unicode
from hypothesis import given, settings
from hypothesis import strategies as st

from claims.probes.arithmetic.memory import kv_cache_bytes
from claims.probes.errors import InputError, PrerequisiteMissing
from claims.probes.files.gguf_file import read_header
from claims.probes.live import engine as eng
from claims.probes.live.engine.kv import SWA_CELL_PAD
from tests.extras import import_or_skip

# The probe's own tests need llama-cpp-python, as the engine tier does; they are not
# claim tests, so they carry no tier marker (those select claims) but skip the same way.
engine_tier = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="llama-cpp-python is not installed (pip install -e '.[engine]')",
)

# The two lines a current llama.cpp prints for Gemma 3 at n_ctx 2048 with
# window-sized caches, and the single line older builds printed.
ISWA_LOG = [
    "llama_kv_cache_iswa: creating non-SWA KV cache, size = 2048 cells",
    "llama_kv_cache:        CPU KV buffer size =     6.00 MiB",
    "llama_kv_cache: size =    6.00 MiB (  2048 cells,   3 layers,  1/1 seqs), "
    "K (f16):    3.00 MiB, V (f16):    3.00 MiB",
    "llama_kv_cache_iswa: creating     SWA KV cache, size = 1024 cells",
    "llama_kv_cache: size =   15.00 MiB (  1024 cells,  15 layers,  1/1 seqs), "
    "K (f16):    7.50 MiB, V (f16):    7.50 MiB",
]
OLD_LOG = [
    "llama_new_context_with_model: KV self size  =  256.00 MiB, K (f16):  128.00 MiB, "
    "V (f16):  128.00 MiB"
]


# --- log parsing ------------------------------------------------------------------
def test_parse_kv_log_reads_both_caches_of_a_sliding_window_model():
    parts = eng.parse_kv_log(ISWA_LOG)
    assert [(p.cells, p.layers, p.size_mib) for p in parts] == [(2048, 3, 6.0), (1024, 15, 15.0)]
    assert {p.k_type for p in parts} == {"f16"} and parts[1].v_mib == 7.5


def test_parse_kv_log_reads_the_older_single_line():
    (part,) = eng.parse_kv_log(OLD_LOG)
    assert part.size_mib == 256.0 and part.cells is None and part.layers is None


@pytest.mark.parametrize(
    "line",
    ["", "llama_context: n_ctx = 2048", "size = 6.00 MiB", "llama_kv_cache: size = lots MiB"],
)
def test_parse_kv_log_ignores_other_lines(line):
    assert eng.parse_kv_log([line]) == ()


def test_allocation_agreement_uses_the_printed_precision():
    alloc = eng.KVAllocation(2048, 512, False, eng.parse_kv_log(ISWA_LOG), ())
    exact = 21 * 2**20
    assert alloc.agrees_with(exact)
    assert alloc.agrees_with(exact + 0.009 * 2**20)  # two parts, each ±0.005 MiB
    assert not alloc.agrees_with(exact + 0.011 * 2**20)


def test_load_failure_keeps_the_reason_not_the_generic_last_line():
    lines = [
        "llama_model_loader: - kv 0: general.architecture str = llama",
        "llama_model_load: error loading model: tensor 'x' data is not within the file bounds",
        "llama_model_load_from_file_impl: failed to load model",
    ]
    assert eng.load_failure(lines) == lines[1]
    assert eng.load_failure(["all fine"]) is None


# --- the formula side ---------------------------------------------------------------
def _gemma_like(make_gguf: Any, **extra: Any) -> Path:
    metadata = {
        "gemma3.attention.head_count": 4,
        "gemma3.attention.head_count_kv": 1,
        "gemma3.attention.key_length": 256,
        "gemma3.attention.value_length": 256,
        "gemma3.attention.sliding_window": 512,
        **extra,
    }
    return make_gguf(arch="gemma3", metadata=metadata)


def test_kv_shape_of_the_real_gemma_file(gemma_gguf):
    shape = eng.KVShape.from_header(read_header(gemma_gguf))
    assert (shape.layers, shape.kv_heads[0], shape.key_length, shape.sliding_window) == (
        18,
        1,
        256,
        512,
    )
    # llama.cpp's Gemma 3 pattern: layers 5, 11 and 17 are global.
    assert [il for il, slides in enumerate(shape.swa_layers or ()) if not slides] == [5, 11, 17]
    assert shape.naive_bytes(2048) == 18 * 512 * 2 * 2048  # 36 MiB
    assert shape.swa_aware_bytes(2048, 512) == (3 * 2048 + 15 * 1024) * 512 * 2  # 21 MiB


def test_kv_shape_takes_an_explicit_per_layer_pattern(make_gguf):
    path = _gemma_like(make_gguf, **{"gemma3.attention.sliding_window_pattern": [True, False]})
    shape = eng.KVShape.from_header(read_header(path))
    assert shape.swa_layers == (True, False) and "per layer" in shape.swa_source


def test_kv_shape_without_a_known_pattern_reports_no_window_aware_figure(make_gguf):
    path = make_gguf(
        arch="llama",
        metadata={
            "llama.attention.head_count": 8,
            "llama.attention.head_count_kv": 2,
            "llama.embedding_length": 256,
            "llama.attention.sliding_window": 64,
        },
    )
    shape = eng.KVShape.from_header(read_header(path))
    assert shape.key_length == shape.value_length == 32  # 256 / 8 heads
    assert shape.swa_layers is None and "unknown" in shape.swa_source
    assert shape.swa_aware_bytes(1024, 512) is None
    assert shape.naive_bytes(1024) == kv_cache_bytes(2, 2, 32, 1024, 2)


def test_kv_shape_without_kv_heads_uses_all_heads(make_gguf):
    path = make_gguf(
        arch="llama", metadata={"llama.attention.head_count": 4, "llama.embedding_length": 64}
    )
    shape = eng.KVShape.from_header(read_header(path))
    assert shape.kv_heads == (4, 4) and shape.sliding_window is None
    assert shape.swa_aware_bytes(256, 512) == shape.naive_bytes(256)


def test_kv_shape_names_a_missing_key(make_gguf):
    path = make_gguf(arch="llama", metadata={"llama.attention.head_count_kv": 2})
    with pytest.raises(InputError) as info:
        eng.KVShape.from_header(read_header(path))
    assert info.value.field == "llama.embedding_length" and str(path) in str(info.value)


@settings(max_examples=60, deadline=None)
@given(
    layers=st.integers(1, 96),
    heads=st.integers(1, 64),
    head=st.sampled_from([64, 80, 128, 256]),
    ctx=st.integers(1, 1 << 17),
)
def test_naive_bytes_is_the_masterclass_formula(layers, heads, head, ctx):
    shape = eng.KVShape("x", layers, (heads,) * layers, head, head, None, None, "none")
    assert shape.naive_bytes(ctx) == kv_cache_bytes(layers, heads, head, ctx, 2)


@settings(max_examples=60, deadline=None)
@given(
    window=st.integers(1, 8192),
    ubatch=st.sampled_from([32, 512, 2048]),
    ctx=st.integers(256, 1 << 16).map(lambda n: n // 256 * 256),
    period=st.integers(2, 8),
)
def test_window_caches_never_exceed_full_ones(window, ubatch, ctx, period):
    layers = 3 * period
    swa = tuple(il % period != period - 1 for il in range(layers))
    shape = eng.KVShape("x", layers, (1,) * layers, 128, 128, window, swa, "test")
    cells = shape.swa_cells(ctx, ubatch)
    assert cells % SWA_CELL_PAD == 0 and cells <= max(ctx, SWA_CELL_PAD)
    aware = shape.swa_aware_bytes(ctx, ubatch)
    assert aware is not None and aware <= shape.naive_bytes(ctx)
    if ctx <= window + ubatch:
        assert aware == shape.naive_bytes(ctx)


def test_element_bytes_of_kv_types():
    assert eng.element_bytes("f16") == 2
    assert eng.element_bytes("f32") == 4
    assert eng.element_bytes("q8_0") == Fraction(34, 32)


# --- tokens, labels, bits ---------------------------------------------------------------
def test_sentencepiece_pieces_rebuild_text():
    pieces = ["Explain", "\u2581Kubernetes", "\u2581", "<0xF0>", "<0x9F>", "<0x9A>", "<0x80>", "\n"]
    assert eng.reconstruct_text(pieces, "llama") == "Explain Kubernetes 🚀\n"
    assert eng.reconstruct_text(["\u2581Hi"], "llama", add_space_prefix=True) == "Hi"


@given(st.binary(max_size=64))
def test_gpt2_byte_level_pieces_round_trip(data):
    encoder = bytes_to_unicode()
    assert len(encoder) == 256
    piece = "".join(encoder[b] for b in data)
    assert eng.reconstruct_text([piece], "gpt2") == data.decode("utf-8", errors="replace")


def test_gpt2_known_pieces():
    assert (
        eng.reconstruct_text(["Ex", "plain", "\u0120Kubernetes", "\u010a"], "gpt2")
        == "Explain Kubernetes\n"
    )
    assert eng.reconstruct_text(["x"], "bert") is None


@pytest.mark.parametrize(
    ("label", "bits"),
    [
        ("Q4_K_M", 4),
        ("Q8_0", 8),
        ("IQ4_XS", 4),
        ("Q2_K", 2),
        ("F16", 16),
        ("BF16", 16),
        ("F32", 32),
        (None, None),
        ("TQ1_0", None),
    ],
)
def test_nominal_bits(label, bits):
    assert eng.nominal_bits(label) == bits


def test_quantization_label_and_bits_of_the_gemma_file(gemma_gguf, make_gguf):
    header = read_header(gemma_gguf)
    assert eng.quantization_label(header) == "Q4_K_M"
    assert eng.bits_per_parameter(header.file_size, header.parameter_count) == pytest.approx(
        7.5528, abs=1e-4
    )
    assert eng.quantization_label(read_header(make_gguf())) is None
    with pytest.raises(ValueError):
        eng.bits_per_parameter(10, 0)


# --- input errors (no engine needed: checked before llama.cpp is touched) -----------------
def test_load_refuses_a_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such model file"):
        eng.Engine.load(tmp_path / "absent")


def test_load_refuses_a_file_that_is_not_gguf(tmp_path):
    path = tmp_path / ("sha256-" + "0" * 64)  # a blob name says nothing about the content
    path.write_bytes(b"hello, not a model")
    with pytest.raises(InputError) as info:
        eng.Engine.load(path)
    assert info.value.offset == 0 and "68 65 6c 6c" in str(info.value)


def test_missing_llama_cpp_is_a_prerequisite(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(PrerequisiteMissing, match="llama-cpp-python"):
        eng.llama_cpp_module()


def test_default_threads_leave_room():
    assert eng.default_threads() >= 1


# --- with the engine ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gemma_engine(gemma_gguf: Path) -> Any:
    import_or_skip("llama_cpp", "engine")
    loaded = eng.Engine.load(gemma_gguf, n_ctx=512, seed=7)
    yield loaded
    loaded.close()


@engine_tier
def test_load_keeps_llama_cpp_quiet_and_its_log(gemma_gguf, capfd):
    import_or_skip("llama_cpp", "engine")
    with eng.loaded(gemma_gguf, n_ctx=256) as e:
        assert e.load_s > 0 and e.n_ctx == 256
        assert any("llama_context" in ln for ln in e.load_log)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


@engine_tier
def test_truncated_model_is_an_input_error_with_the_reason(gemma_gguf, tmp_path, capfd):
    import_or_skip("llama_cpp", "engine")
    cut = tmp_path / "truncated.gguf"
    with gemma_gguf.open("rb") as src:
        cut.write_bytes(src.read(10_000_000))
    with pytest.raises(InputError) as info:
        eng.Engine.load(cut)
    assert "could not load" in str(info.value) and str(cut) in str(info.value)
    assert "not within the file bounds" in str(info.value)
    assert capfd.readouterr().err == ""


@engine_tier
def test_generation_is_consistent_with_itself(gemma_engine):
    g = gemma_engine.generate("The capital of France is", max_tokens=6, temperature=0.0)
    again = gemma_engine.generate("The capital of France is", max_tokens=6, temperature=0.0)
    assert g.text == again.text and g.token_ids == again.token_ids
    assert 1 <= g.completion_tokens <= 6
    assert g.finish_reason in ("length", "stop")
    assert g.ttft_s is not None and 0 < g.ttft_s <= g.total_s
    # llama.cpp counted the whole prompt as one batch and each later token as one step.
    assert g.perf.prompt_tokens == g.prompt_tokens
    assert g.perf.eval_tokens in (g.completion_tokens - 1, g.completion_tokens)
    assert g.to_json()["completion_tokens"] == g.completion_tokens
    with pytest.raises(ValueError):
        gemma_engine.generate("x", max_tokens=0, temperature=0.0)


@engine_tier
def test_kv_allocation_of_a_context_matches_the_window_aware_formula(gemma_engine, gemma_gguf):
    shape = eng.KVShape.from_header(read_header(gemma_gguf))
    for swa_full in (True, False):
        alloc = gemma_engine.kv_cache_allocation(1536, swa_full=swa_full)
        expected = (
            shape.naive_bytes(1536) if swa_full else shape.swa_aware_bytes(1536, alloc.n_ubatch)
        )
        assert alloc.n_ctx == 1536 and expected is not None
        assert alloc.agrees_with(expected), (alloc.parts, expected)


@engine_tier
def test_vocabulary_comparison_on_gemma(gemma_engine, gemma_gguf):
    found = eng.compare_vocabulary(gemma_engine, read_header(gemma_gguf), "Hello world, 東京!")
    assert found.mismatches == [] and found.file_vocab_size == found.engine_vocab_size == 262144
    assert found.file_reconstruction == found.text == found.engine_detokenized
    assert gemma_engine.chat_template() is None


@engine_tier
def test_cold_start_includes_the_load(gemma_gguf):
    import_or_skip("llama_cpp", "engine")
    cold = eng.cold_start(gemma_gguf, "Hello", max_tokens=2, n_ctx=256)
    try:
        assert cold.ttft_s is not None and cold.ttft_s > cold.load_s > 0
    finally:
        cold.engine.close()


# --- which model the engine runs ------------------------------------------------------------
def test_default_engine_model_is_the_verified_gemma_file(gemma_gguf):
    from claims.probes.files.artifacts import gemma_expected_sha256
    from claims.probes.live.engine.model_file import describe_engine_model

    model = describe_engine_model(None)
    assert (model.path, model.source, model.sha256) == (
        gemma_gguf,
        "default",
        gemma_expected_sha256(),
    )


def test_engine_model_from_a_path_and_a_store(gemma_gguf, tmp_path):
    from claims.probes.files.artifacts import gemma_expected_sha256
    from claims.probes.live.engine.model_file import describe_engine_model, resolve_engine_model
    from claims.testing.store_builder import build_fixture_store

    by_path = describe_engine_model(str(gemma_gguf))
    assert by_path.source == "path" and by_path.sha256 == gemma_expected_sha256()
    built = build_fixture_store(
        tmp_path / "models", gemma_gguf, gemma_sha256=gemma_expected_sha256()
    )
    in_store = describe_engine_model(f"store:{built.base}", str(built.root))
    assert in_store.source == "store" and in_store.name == built.base
    assert in_store.path.name == "sha256-" + gemma_expected_sha256() and in_store.path.suffix == ""
    assert in_store.sha256 is None  # a blob's name is a claim until the store probe hashes it
    assert in_store.store_root == built.root.resolve()
    assert resolve_engine_model(f"store:{built.base}", str(built.root)) == in_store.path
    with pytest.raises(PrerequisiteMissing, match="no such file"):
        describe_engine_model(str(tmp_path / "absent.gguf"))
    fifo = tmp_path / "fifo.gguf"
    os.mkfifo(fifo)  # it exists: "no such file" (issue 22) was wrong, and a read would block
    with pytest.raises(PrerequisiteMissing, match=r"fifo.gguf: not a regular file \(a FIFO"):
        describe_engine_model(str(fifo))
    with pytest.raises(InputError):
        describe_engine_model("store:not-there", str(built.root))


# --- llama.cpp's repeat penalty ---------------------------------------------------------------
@engine_tier
def test_penalties_divide_positive_and_multiply_negative_logits():
    import_or_skip("llama_cpp", "engine")
    after = eng.apply_penalties([4.0, -4.0, 1.0, -1.0], [0, 1, 0], last_n=64, repeat=2.0)
    assert after == [2.0, -8.0, 1.0, -1.0]
    # Frequency and presence penalties subtract: count x frequency + presence.
    after = eng.apply_penalties(
        [4.0, 0.0], [0, 0, 0], last_n=64, repeat=1.0, frequency=0.5, presence=1.0
    )
    assert after == [4.0 - 3 * 0.5 - 1.0, 0.0]


@engine_tier
@pytest.mark.parametrize("last_n", [0, 1, 3, 64, 100])
def test_penalty_window_is_measured_not_assumed(last_n):
    import_or_skip("llama_cpp", "engine")
    assert eng.penalty_window(last_n, probe_up_to=128) == min(last_n, 129)
