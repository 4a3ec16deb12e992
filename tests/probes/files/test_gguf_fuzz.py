"""Fuzzing the GGUF header reader with mutated valid headers.

Each example takes a valid file (the corpus base, little- or big-endian, or a
GGUFWriter file with nested arrays and a long token list), applies a few
mutations (bit flips, a truncation, an integer spliced over a field) and reads
it. The only acceptable outcomes are a parse whose every value decodes, or an
InputError; anything else (IndexError, RecursionError, MemoryError, struct.error,
a hang, reads out of proportion to the file) fails. The example budget is fixed
and the search derandomized, so CI runs the same examples every time.
"""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import gguf
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claims.probes.errors import InputError
from claims.testing.gguf_corpus import corpus_builder, counting_reads, read_everything

EXAMPLES = 300


def _writer_file() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "seed.gguf"
        w = gguf.GGUFWriter(str(path), "llama")
        w.add_array("test.nested", [[1, 2], [3]])
        w.add_array("test.nested.strings", [["a"], ["bc", "d"]])
        w.add_array("tokenizer.ggml.tokens", [f"t{i}" for i in range(100)])
        w.add_bool("test.flag", False)
        w.add_float64("test.f64", 0.5)
        w.add_tensor("a", np.zeros(32, dtype=np.float32))
        w.add_tensor(
            "b", np.zeros((2, 34), dtype=np.uint8), raw_dtype=gguf.GGMLQuantizationType.Q8_0
        )
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        return path.read_bytes()


_B = corpus_builder()
SEEDS = [_B.build(_B.base_spec("<")).data, _B.build(_B.base_spec(">")).data, _writer_file()]
INTERESTING = [
    0,
    1,
    2,
    3,
    7,
    8,
    12,
    13,
    31,
    32,
    33,
    64,
    255,
    2**16,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**62,
    2**63 - 1,
    2**63,
    2**64 - 1,
]

_flip = st.tuples(st.just("flip"), st.floats(0, 1, exclude_max=True), st.integers(0, 7))
_splice = st.tuples(
    st.just("splice"),
    st.floats(0, 1, exclude_max=True),
    st.sampled_from(["<I", "<Q", ">I", ">Q"]),
    st.one_of(st.sampled_from(INTERESTING), st.integers(0, 2**64 - 1)),
)
_truncate = st.tuples(st.just("truncate"), st.floats(0, 1))
_mutation = st.one_of(_flip, _splice, _truncate)


def mutate(data: bytes, mutations: list[tuple[object, ...]]) -> bytes:
    buf = bytearray(data)
    for m in mutations:
        if not buf:
            break
        kind = m[0]
        if kind == "flip":
            pos = int(float(m[1]) * len(buf))  # type: ignore[arg-type]
            buf[pos] ^= 1 << int(m[2])  # type: ignore[call-overload]
        elif kind == "splice":
            fmt, value = str(m[2]), int(m[3])  # type: ignore[call-overload]
            size = struct.calcsize(fmt)
            if len(buf) < size:
                continue
            pos = int(float(m[1]) * (len(buf) - size + 1))  # type: ignore[arg-type]
            struct.pack_into(fmt, buf, pos, value & ((1 << (8 * size)) - 1))
        else:
            del buf[int(float(m[1]) * len(buf)) :]  # type: ignore[arg-type]
    return bytes(buf)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.sampled_from(range(len(SEEDS))), mutations=st.lists(_mutation, min_size=1, max_size=4)
)
def test_mutated_headers_parse_or_raise_input_error(
    seed: int, mutations: list[tuple[object, ...]]
) -> None:
    data = mutate(SEEDS[seed], mutations)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.gguf"
        path.write_bytes(data)
        with counting_reads() as work:
            try:
                read_everything(path)
            except InputError as exc:
                assert str(exc).startswith(str(path)), str(exc)
    # Fast, counted where no busy machine can move it (as in test_gguf_hostile): each
    # opening of the file reads a byte at most once, no more requests than it has bytes.
    assert work.bytes_read <= work.opens * len(data), work
    assert work.calls <= max(len(data), 1), work
