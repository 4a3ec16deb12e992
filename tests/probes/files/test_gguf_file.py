"""The GGUF header reader: values, tensors, derived figures, laziness, and the
cross-check against gguf.GGUFReader on generated files and the real Gemma file."""

from __future__ import annotations

import math
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest
from gguf import GGMLQuantizationType as Q
from gguf import GGUFValueType as V
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claims.probes.errors import InputError
from claims.probes.files import gguf_file
from claims.probes.files.gguf_file import GGUFArray, GGUFHeader, GGUFTruncatedError, read_header
from claims.testing.gguf_corpus import corpus_builder, corpus_dir, reader_reference

CORPUS = corpus_dir()

SCALARS: dict[V, tuple[Any, ...]] = {
    V.UINT8: (0, 255),
    V.INT8: (-128, 127),
    V.UINT16: (0, 65_535),
    V.INT16: (-32_768, 32_767),
    V.UINT32: (0, 2**32 - 1),
    V.INT32: (-(2**31), 2**31 - 1),
    V.FLOAT32: (-1.5, 3.25),
    V.BOOL: (True, False),
    V.UINT64: (0, 2**64 - 1),
    V.INT64: (-(2**63), 2**63 - 1),
    V.FLOAT64: (-1e300, 2.5e-300),
}


def write_every_type(
    path: Path, *, endian: gguf.GGUFEndian = gguf.GGUFEndian.LITTLE, alignment: int | None = None
) -> Path:
    """A GGUF with every value type, as a scalar and as an array, nested arrays,
    long arrays (past the eager limit), Unicode strings and tensors of several types."""
    w = gguf.GGUFWriter(str(path), "llama", endianess=endian)
    if alignment is not None:
        w.add_custom_alignment(alignment)
    for vtype, values in SCALARS.items():
        name = vtype.name.lower()
        w.add_key_value(f"test.scalar.{name}", values[0], vtype)
        w.add_key_value(f"test.scalar.{name}.other", values[1], vtype)
        w.add_key_value(f"test.array.{name}", list(values) * 3, V.ARRAY, sub_type=vtype)
    w.add_string("test.string", "plain ascii")
    w.add_key_value("test.string.empty", "", V.STRING)  # add_string() drops empty strings
    w.add_string("test.string.unicode", "Grüße, 世界 🦙 \u0000 end")
    w.add_array("test.array.string", ["a", "", "ünïcödé", "🦙" * 10])
    w.add_array("test.array.nested", [[1, 2, 3], [4], [5, 6]])
    w.add_array("test.array.nested.string", [["x", "yz"], ["", "🦙"]])
    w.add_array("test.array.nested3", [[[1.5], [2.5, 3.5]], [[4.5]]])
    long_strings = [f"tok{i}-{'é' * (i % 5)}" for i in range(1000)]
    w.add_array("tokenizer.ggml.tokens", long_strings)
    w.add_key_value(
        "tokenizer.ggml.scores", [float(-i) for i in range(1000)], V.ARRAY, sub_type=V.FLOAT32
    )
    w.add_key_value(
        "tokenizer.ggml.token_type", [i % 6 for i in range(1000)], V.ARRAY, sub_type=V.INT32
    )
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_string("tokenizer.ggml.pre", "default")
    w.add_uint32("tokenizer.ggml.bos_token_id", 1)
    w.add_uint32("tokenizer.ggml.eos_token_id", 2)
    w.add_string(
        "tokenizer.chat_template",
        "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}",
    )
    w.add_block_count(2)
    w.add_context_length(128)
    w.add_tensor("embd", np.arange(64 * 3, dtype=np.float32).reshape(3, 64))
    w.add_tensor("half", np.linspace(-1, 1, 32, dtype=np.float16))
    w.add_tensor("quant", np.arange(2 * 34, dtype=np.uint8).reshape(2, 34), raw_dtype=Q.Q8_0)
    w.add_tensor("cube", np.ones((2, 3, 4), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.fixture(scope="module")
def every_type(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("gguf-every-type")
    return {
        "little": write_every_type(folder / "little.gguf"),
        "big": write_every_type(folder / "big.gguf", endian=gguf.GGUFEndian.BIG),
        "align64": write_every_type(folder / "align64.gguf", alignment=64),
    }


def flatten(value: Any) -> list[Any]:
    """GGUFReader.contents() flattens nested arrays to their leaves; do the same to ours."""
    if isinstance(value, list):
        return [leaf for item in value for leaf in flatten(item)]
    return [value]


def reference(path: Path) -> dict[str, Any]:
    """What gguf.GGUFReader reads from a file, with field types as GGUFValueType members."""
    ref = reader_reference(path)
    ref["fields"] = {
        name: ([V(t) for t in types], value) for name, (types, value) in ref["fields"].items()
    }
    return ref


def assert_same_as_reference(header: GGUFHeader, ref: dict[str, Any]) -> None:
    assert list(header.fields) == list(ref["fields"])
    for key, (types, value) in ref["fields"].items():
        fld = header.fields[key]
        assert fld.type is types[0], key
        ours = header.get(key)
        if fld.array is not None:
            assert fld.array.item_type is types[1], key
            assert fld.array.leaf_type is types[-1], key
            assert fld.array.depth == len(types) - 1, key
            assert flatten(ours) == value, key
        else:
            assert ours == value, key
    ours_tensors = [
        (t.name, list(t.dims), t.ggml_type, header.data_offset + t.offset, t.n_elements, t.n_bytes)
        for t in header.tensors
    ]
    assert ours_tensors == ref["tensors"]
    assert header.alignment == ref["alignment"]
    assert header.data_offset == ref["data_offset"]
    assert header.byte_order == ref["byte_order"]
    assert header.version == ref["version"]


# --- cross-check with gguf.GGUFReader -------------------------------------------------
@pytest.mark.parametrize("variant", ["little", "big", "align64"])
def test_every_value_type_matches_gguf_reader(every_type: dict[str, Path], variant: str) -> None:
    header = read_header(every_type[variant])
    assert_same_as_reference(header, reference(every_type[variant]))


def test_hostile_corpus_valid_files_match_gguf_reader() -> None:
    for name in ("valid-base", "valid-big-endian"):
        path = CORPUS / f"{name}.gguf"
        assert_same_as_reference(read_header(path), reference(path))


@pytest.mark.slow
def test_gemma_matches_gguf_reader(gemma_gguf: Path, gguf_reference_gemma: dict[str, Any]) -> None:
    header = read_header(gemma_gguf)
    ref = gguf_reference_gemma
    assert list(header.fields) == list(ref["fields"])
    for key, (types, value) in ref["fields"].items():
        fld = header.fields[key]
        assert [int(fld.type)] + ([int(fld.array.item_type)] if fld.array else []) == types, key
        assert header.get(key) == value, key
    ours = [
        (t.name, list(t.dims), t.ggml_type, header.data_offset + t.offset, t.n_elements, t.n_bytes)
        for t in header.tensors
    ]
    assert ours == ref["tensors"]
    assert (header.alignment, header.data_offset) == (ref["alignment"], ref["data_offset"])


# --- values and layout ----------------------------------------------------------------
def test_header_facts_of_a_generated_file(every_type: dict[str, Path]) -> None:
    path = every_type["little"]
    header = read_header(path)
    assert header.version == 3
    assert header.byte_order == "little"
    assert header.tensor_count == 4 == len(header.tensors)
    assert header.kv_count == len(header.fields)
    assert header.file_size == path.stat().st_size
    assert header.alignment == 32
    assert header.data_offset % 32 == 0
    assert header.data_offset - header.header_end < 32
    assert header.get("test.scalar.uint64") == 0
    assert header.get("test.scalar.uint64.other") == 2**64 - 1
    assert header.get("test.scalar.int64") == -(2**63)
    assert header.get("test.scalar.bool") is True
    assert header.get("test.scalar.float32") == -1.5
    assert header.get("test.string.unicode") == "Grüße, 世界 🦙 \u0000 end"
    assert header.get("test.string.empty") == ""
    assert header.get("test.array.nested") == [[1, 2, 3], [4], [5, 6]]
    assert header.get("test.array.nested3") == [[[1.5], [2.5, 3.5]], [[4.5]]]
    assert header.fields["test.array.nested3"].array.depth == 3  # type: ignore[union-attr]
    assert header.get("missing.key", "default") == "default"
    assert "test.string" in header and "missing.key" not in header


def test_tensor_infos_and_derived_figures(every_type: dict[str, Path]) -> None:
    header = read_header(every_type["little"])
    by_name = {t.name: t for t in header.tensors}
    # GGUF stores ne[0] (the fastest-varying dimension) first: numpy (3, 64) -> [64, 3].
    assert by_name["embd"].dims == (64, 3)
    assert by_name["cube"].dims == (4, 3, 2)
    assert by_name["quant"].type_name == "Q8_0"
    assert by_name["quant"].dims == (32, 2)  # two rows of one 34-byte block each
    # Bytes from ggml block sizes: Q8_0 packs 32 weights in 34 bytes.
    assert by_name["quant"].n_bytes == 2 * 34
    assert by_name["half"].n_bytes == 32 * 2
    assert header.census == {"F32": 2, "F16": 1, "Q8_0": 1}
    assert header.parameter_count == 64 * 3 + 32 + 2 * 32 + 24
    assert header.tensor_data_bytes == 64 * 3 * 4 + 32 * 2 + 68 + 24 * 4
    assert header.file_bits_per_parameter == pytest.approx(
        header.file_size * 8 / header.parameter_count
    )
    assert header.tensor_bits_per_parameter == pytest.approx(
        header.tensor_data_bytes * 8 / header.parameter_count
    )
    layout = header.layout()
    assert layout["misaligned_tensors"] == [] and layout["tensors_outside_file"] == []
    assert layout["contiguous_in_order"] is True
    assert layout["alignment_from"] == "default"


def test_custom_alignment_is_used(every_type: dict[str, Path]) -> None:
    header = read_header(every_type["align64"])
    assert header.alignment == 64
    assert header.layout()["alignment_from"] == "general.alignment"
    assert header.data_offset % 64 == 0
    assert all(t.offset % 64 == 0 for t in header.tensors)


def test_tokenizer_fields(every_type: dict[str, Path]) -> None:
    header = read_header(every_type["little"])
    tok = header.tokenizer
    assert tok.model == "gpt2"
    assert tok.pre == "default"
    assert tok.token_count == 1000
    assert tok.special_ids == {"bos": 1, "eos": 2}
    assert tok.has_chat_template is True
    assert tok.chat_template_bytes == len(header.get("tokenizer.chat_template").encode())
    assert header.tokens([0, 999, 3]) == {0: "tok0-", 999: "tok999-éééé", 3: "tok3-ééé"}


def test_file_type_label(tmp_path: Path) -> None:
    b = corpus_builder()
    spec = b.base_spec()
    spec.kvs.append(b.KV(b"general.file_type", b.UINT32, b.scalar(b.UINT32, 15)))
    path = tmp_path / "ft.gguf"
    path.write_bytes(b.build(spec).data)
    assert read_header(path).file_type == (15, "MOSTLY_Q4_K_M")


# --- laziness ---------------------------------------------------------------------------
def test_long_arrays_are_recorded_not_decoded(every_type: dict[str, Path]) -> None:
    header = read_header(every_type["little"])
    tokens = header.fields["tokenizer.ggml.tokens"]
    assert tokens.array is not None and tokens.eager is None
    assert tokens.array.count == 1000
    short = header.fields["test.array.string"]
    assert short.eager is not None
    # Items are found by walking only as far as asked.
    arr = header.array("tokenizer.ggml.tokens")
    assert arr[:8] == [f"tok{i}-{'é' * (i % 5)}" for i in range(8)]
    assert len(arr._starts) == 9
    assert arr[500] == "tok500-"
    assert len(arr._starts) == 502


# --- one parse per unchanged file ------------------------------------------------------
@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files really parsed from here on (files count as settled 50 ms after a write)."""
    import time

    from claims import file_cache
    from claims.file_cache import FileMemo
    from claims.probes.files.gguf_file import header as header_module

    monkeypatch.setattr(file_cache, "SETTLED_NS", 50_000_000)
    monkeypatch.setattr(header_module, "_HEADERS", FileMemo(header_module.MAX_KEPT_HEADERS))
    seen: list[Path] = []
    real = header_module._parse

    def counting(src: Any, path: Path, verify: bool) -> GGUFHeader:
        seen.append(path)
        return real(src, path, verify)

    monkeypatch.setattr(header_module, "_parse", counting)
    time.sleep(0.06)
    return seen


def test_an_unchanged_file_is_parsed_once_and_each_caller_gets_its_own_header(
        tmp_path: Path, every_type: dict[str, Path], parses: list[Path]) -> None:
    import shutil
    import time

    path = tmp_path / "copy.gguf"
    shutil.copyfile(every_type["little"], path)
    time.sleep(0.06)
    first = read_header(path)
    first.array("tokenizer.ggml.tokens")[:8]  # a walk this caller made
    again = read_header(path)
    assert parses == [path]
    assert again is not first and again.fields == first.fields
    assert again.fields is not first.fields
    assert again.array("tokenizer.ggml.tokens")._starts == [again.fields[
        "tokenizer.ggml.tokens"].array.offset]  # its own walk, not begun
    read_header(path, reuse=False)
    read_header(path, verify_layout=False)
    assert parses == [path, path, path]


def test_a_changed_or_just_written_file_is_parsed_again(
        tmp_path: Path, every_type: dict[str, Path], parses: list[Path]) -> None:
    import shutil
    import time

    path = tmp_path / "copy.gguf"
    shutil.copyfile(every_type["little"], path)
    read_header(path)
    read_header(path)  # too recent to keep: a same-tick edit would not show
    assert parses == [path, path]
    time.sleep(0.06)
    read_header(path)
    data = bytearray(path.read_bytes())
    shutil.copyfile(every_type["big"], path)
    assert read_header(path).byte_order == "big"
    path.write_bytes(bytes(data))
    assert read_header(path).byte_order == "little"
    assert len(parses) == 5


@pytest.mark.parametrize(
    "key", ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"]
)
def test_lazy_array_indexing_and_slicing(every_type: dict[str, Path], key: str) -> None:
    path = every_type["big"]
    header = read_header(path)
    full = gguf.GGUFReader(path).fields[key].contents()
    arr = header.array(key)
    assert isinstance(arr, GGUFArray)
    assert len(arr) == len(full) == 1000
    for i in (0, 1, 500, 999, -1, -1000):
        assert arr[i] == full[i]
    for sl in (
        slice(0, 10),
        slice(990, None),
        slice(None, None, 7),
        slice(900, 100, -3),
        slice(5, 5),
        slice(-3, None),
    ):
        assert arr[sl] == full[sl]
    assert list(arr) == full
    with pytest.raises(IndexError):
        arr[1000]
    with pytest.raises(IndexError):
        arr[-1001]


def test_array_of_a_scalar_key_is_a_type_error(every_type: dict[str, Path]) -> None:
    header = read_header(every_type["little"])
    with pytest.raises(TypeError):
        header.array("test.string")
    with pytest.raises(KeyError):
        header.array("no.such.key")


def test_lazy_read_refuses_a_changed_file(tmp_path: Path, every_type: dict[str, Path]) -> None:
    path = tmp_path / "copy.gguf"
    path.write_bytes(every_type["little"].read_bytes())
    header = read_header(path)
    with path.open("ab") as fh:
        fh.write(b"\0" * 32)
    with pytest.raises(InputError, match="changed since"):
        header.array("tokenizer.ggml.tokens")[0]


def _truncate_before_each_read(monkeypatch: pytest.MonkeyPatch, path: Path, keep: int) -> None:
    """Cut ``path`` to ``keep`` bytes right before every os.pread: another process
    truncating the file after the reader opened it and checked its size."""
    real_pread = os.pread

    def pread(fd: int, nbytes: int, offset: int) -> bytes:
        os.truncate(path, keep)
        return real_pread(fd, nbytes, offset)

    monkeypatch.setattr(os, "pread", pread)


def test_a_file_truncated_while_its_header_is_read(
    tmp_path: Path, every_type: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mapped file cut short under the reader ends the process with SIGBUS; ours
    reads with os.pread, so the short read is a clear error."""
    path = tmp_path / "copy.gguf"
    path.write_bytes(every_type["little"].read_bytes())
    _truncate_before_each_read(monkeypatch, path, keep=100)
    with pytest.raises(GGUFTruncatedError, match="truncated while being read") as info:
        read_header(path)
    assert isinstance(info.value, InputError)
    assert str(info.value).startswith(f"{path}, offset ")
    assert info.value.offset is not None and info.value.offset <= 100


@pytest.mark.parametrize("key", ["tokenizer.ggml.tokens", "tokenizer.ggml.scores"])
def test_a_file_truncated_between_open_and_a_lazy_read(
    tmp_path: Path, every_type: dict[str, Path], monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """The file passes the unchanged-file check when reopened, then loses all but
    the first bytes of the array before they are read (strings: the walk to the
    last item; float32: that item's own bytes)."""
    path = tmp_path / "copy.gguf"
    path.write_bytes(every_type["little"].read_bytes())
    header = read_header(path)
    arr = header.array(key)
    _truncate_before_each_read(monkeypatch, path, keep=arr.info.offset + 16)
    with pytest.raises(GGUFTruncatedError, match="truncated while being read") as err:
        arr[len(arr) - 1]
    assert str(err.value).startswith(f"{path}, offset ")


def test_nesting_limit_is_exact(tmp_path: Path) -> None:
    b = corpus_builder()
    limit = gguf_file.MAX_ARRAY_DEPTH
    for depth, ok in ((limit, True), (limit + 1, False)):
        spec = b.base_spec()
        spec.kvs[1] = b.KV(b"llama.block_count", b.ARRAY, b._nested(depth))
        path = tmp_path / f"nested-{depth}.gguf"
        path.write_bytes(b.build(spec).data)
        if ok:
            header = read_header(path)
            info = header.fields["llama.block_count"].array
            assert info is not None and info.depth == depth and info.leaf_type is V.UINT8
            value: Any = header.get("llama.block_count")
            for _ in range(depth - 1):
                assert isinstance(value, list) and len(value) == 1
                value = value[0]
            assert value == [7]
        else:
            with pytest.raises(gguf_file.GGUFValueError, match="nested more than"):
                read_header(path)


def test_empty_arrays_and_zero_tensors(tmp_path: Path) -> None:
    """Shapes GGUFWriter will not write but the format allows."""
    b = corpus_builder()
    spec = b.base_spec()
    spec.kvs.append(b.KV(b"test.empty", b.ARRAY, b.array(b.STRING, [])))
    spec.kvs.append(b.KV(b"test.empty.nested", b.ARRAY, b.array(b.ARRAY, [b.array(b.UINT8, [])])))
    spec.tensors = []
    path = tmp_path / "empty.gguf"
    path.write_bytes(b.build(spec).data)
    header = read_header(path)
    assert header.get("test.empty") == []
    assert header.get("test.empty.nested") == [[]]
    assert header.tensors == () and header.parameter_count == 0
    assert header.file_bits_per_parameter is None


def test_string_longer_than_the_cap_is_refused_without_reading_it(tmp_path: Path) -> None:
    """A length inside a (sparse) file but beyond the reader's cap: an error, not a 64 MiB copy."""
    b = corpus_builder()
    cap = gguf_file.MAX_STRING_BYTES
    spec = b.base_spec()
    spec.tensors = []
    spec.kvs = [b.KV(b"general.name", b.STRING, struct.pack("<Q", cap + 1))]
    path = tmp_path / "long-string.gguf"
    path.write_bytes(b.build(spec).data)
    with path.open("r+b") as fh:
        fh.truncate(path.stat().st_size + cap + 1)  # a hole: the string's bytes exist, all zeros
    with pytest.raises(gguf_file.GGUFValueError, match="exceeds the limit"):
        read_header(path)


def test_layout_problems_can_be_collected_instead_of_raised() -> None:
    path = CORPUS / "tensor-offset-misaligned.gguf"
    with pytest.raises(gguf_file.GGUFLayoutError):
        read_header(path)
    header = read_header(path, verify_layout=False)
    assert header.layout()["misaligned_tensors"] == ["q"]
    assert header.layout()["contiguous_in_order"] is False
    assert (
        len(header.layout_problems) == 1
        and "not a multiple of the alignment 32" in header.layout_problems[0]
    )


def test_not_a_regular_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a regular file"):
        read_header(tmp_path)
    with pytest.raises(InputError, match="cannot open"):
        read_header(tmp_path / "absent.gguf")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.gguf"
    os.mkfifo(fifo)
    # A plain open() of a FIFO blocks until a writer appears; the probe must not.
    with pytest.raises(InputError, match="not a regular file"):
        read_header(fifo)


def test_inspect_summary_is_json(every_type: dict[str, Path]) -> None:
    import json

    summary = gguf_file.inspect(every_type["little"])
    text = json.dumps(summary, allow_nan=False)
    assert json.loads(text)["magic"] == "47 47 55 46"
    assert summary["tensor_census"] == {"F32": 2, "F16": 1, "Q8_0": 1}
    assert summary["metadata"]["tokenizer.ggml.tokens"]["count"] == 1000
    assert summary["metadata"]["tokenizer.ggml.tokens"]["head"][:2] == ["tok0-", "tok1-é"]
    assert summary["metadata"]["test.scalar.float64"]["value"] == -1e300


# --- a property: whatever GGUFWriter writes, we read back -----------------------------------
_INT_RANGES = {
    V.UINT8: (0, 2**8 - 1),
    V.INT8: (-(2**7), 2**7 - 1),
    V.UINT16: (0, 2**16 - 1),
    V.INT16: (-(2**15), 2**15 - 1),
    V.UINT32: (0, 2**32 - 1),
    V.INT32: (-(2**31), 2**31 - 1),
    V.UINT64: (0, 2**64 - 1),
    V.INT64: (-(2**63), 2**63 - 1),
}


def _typed_value(vtype: V) -> st.SearchStrategy[Any]:
    if vtype in _INT_RANGES:
        lo, hi = _INT_RANGES[vtype]
        return st.integers(lo, hi)
    if vtype is V.FLOAT32:
        return st.floats(width=32, allow_nan=False)
    if vtype is V.FLOAT64:
        return st.floats(allow_nan=False)
    if vtype is V.BOOL:
        return st.booleans()
    return st.text(max_size=20)


_SCALAR_TYPES = [t for t in V if t is not V.ARRAY]
_entry = st.sampled_from(_SCALAR_TYPES).flatmap(
    lambda t: st.one_of(
        st.tuples(st.just(t), st.just(False), _typed_value(t)),
        st.tuples(st.just(t), st.just(True), st.lists(_typed_value(t), min_size=1, max_size=80)),
    )
)
_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz._", min_size=1, max_size=24).filter(
    lambda k: k not in ("general.architecture", "general.alignment")
)


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(entries=st.dictionaries(_keys, _entry, max_size=8), big_endian=st.booleans())
def test_whatever_gguf_writer_writes_reads_back(
    entries: dict[str, tuple[V, bool, Any]], big_endian: bool
) -> None:
    endian = gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "prop.gguf"
        w = gguf.GGUFWriter(str(path), "llama", endianess=endian)
        for key, (vtype, is_array, value) in entries.items():
            if is_array:
                w.add_key_value(key, value, V.ARRAY, sub_type=vtype)
            else:
                w.add_key_value(key, value, vtype)
        w.add_tensor("t", np.zeros(32, dtype=np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        header = read_header(path)
        for key, (vtype, is_array, value) in entries.items():
            got = header.get(key)
            expected = value
            if vtype is V.FLOAT32:  # stored at 32 bits
                expected = [_f32(v) for v in value] if is_array else _f32(value)
            assert got == expected, key
            fld = header.fields[key]
            assert (fld.array.item_type if is_array else fld.type) is vtype  # type: ignore[union-attr]
            if is_array:
                arr = header.array(key)
                assert arr[len(value) // 2] == (expected[len(value) // 2])


def _f32(value: float) -> float:
    out: float = struct.unpack("<f", struct.pack("<f", value))[0]
    assert math.isfinite(out) or not math.isfinite(value)
    return out
