"""W4's quantized-file claims, measured on GGUF files: bits per parameter beside
the quantization label, and the mix of tensor types behind one label.

The post's own figures are about Ollama's llama3.2:3b; they are compared when a
real store (``--ollama-models-dir``) holds that model. The general form is measured
on the bundled Gemma 3 270M Q4_K_M file every time.
"""

from __future__ import annotations

from typing import Any

import pytest

from claims.probes.files.gguf_file import GGUFHeader, read_header
from claims.testkit import ProbeError, not_run

pytestmark = pytest.mark.offline

LLAMA = "llama3.2:3b"
# The width a quantization label promises, in bits per weight (what "4-bit" means).
NOMINAL_BITS = {"Q4": 4, "Q5": 5, "Q6": 6, "Q8": 8, "F16": 16, "BF16": 16, "F32": 32}


def _nominal_bits(label: str) -> int | None:
    """MOSTLY_Q4_K_M -> 4, MOSTLY_F16 -> 16 (None when the label names no width)."""
    name = label.removeprefix("MOSTLY_").removeprefix("ALL_")
    for prefix, bits in sorted(NOMINAL_BITS.items(), key=lambda kv: -len(kv[0])):
        if name.startswith(prefix):
            return bits
    return None


def _bits_rows(header: GGUFHeader, label: str) -> list[dict[str, Any]]:
    name = header.path.name
    return [
        {
            "file": name,
            "label": f"{label} (whole file)",
            "bits_per_param": header.file_bits_per_parameter,
            "note": _largest_tensor_note(header),
        },
        {
            "file": name,
            "label": f"{label} (tensor data)",
            "bits_per_param": header.tensor_bits_per_parameter,
        },
    ]


def _largest_tensor_note(header: GGUFHeader) -> str:
    """Why a file can sit far above its label: its largest tensor's own type and share.

    (The bundled Gemma 3 270M "Q4_K_M" keeps its token-embedding table, 63 % of its
    parameters with a 262,144-token vocabulary, in Q8_0.)
    """
    largest = max(header.tensors, key=lambda t: t.n_elements)
    share = largest.n_elements / max(header.parameter_count, 1)
    bits = largest.n_bytes * 8 / max(largest.n_elements, 1)
    return (
        f"its largest tensor, {largest.name} ({share:.0%} of the parameters), is "
        f"{largest.type_name} at {bits:.2f} bits, not the label's type"
    )


@pytest.mark.claim("W4-Q4-BITS")
def test_q4_label_costs_more_than_four_bits_gemma(check, gemma_gguf):
    """General form: a file labelled Q4_K_M stores more than 4 bits per parameter."""
    header = read_header(gemma_gguf)
    file_type = header.file_type
    assert file_type is not None, "the Gemma file names its general.file_type"
    label = file_type[1]
    nominal = _nominal_bits(label)
    check.fact("gemma_gguf", str(gemma_gguf))
    check.observe("general.file_type", f"{file_type[0]} ({label})")
    check.observe("parameters", header.parameter_count)
    check.observe("file bytes", header.file_size, unit="B")
    check.observe("tensor data bytes", header.tensor_data_bytes, unit="B")
    check.observe(
        "clean estimate at the label's width",
        header.parameter_count * (nominal or 0) // 8,
        unit="B",
    )
    bpp = header.file_bits_per_parameter
    check.measure(
        "file bits per parameter",
        bpp,
        unit="bit/param",
        holds=nominal is not None and bpp is not None and bpp > nominal,
        expected=f"more than the label's nominal {nominal} bits",
    )
    check.measure(
        "tensor-data bits per parameter",
        header.tensor_bits_per_parameter,
        unit="bit/param",
        holds=nominal is not None and (header.tensor_bits_per_parameter or 0) > nominal,
        expected=f"more than {nominal} bits even without metadata",
    )
    check.chart(
        "bits_per_param",
        _bits_rows(header, label),
        title="Bits per parameter beside the file's label",
    )


def _store_header(store: Any, check: Any, name: str) -> GGUFHeader:
    try:
        blob = store.store.model_blob_path(name)
    except ProbeError as exc:
        not_run(
            f"no {name} in the {store.source} Ollama store at {store.root} "
            f"({getattr(exc, 'problem', exc)}); "
            f"pass --ollama-models-dir pointing at a store that holds {name}"
        )
    check.fact(f"{name} blob", str(blob))
    return read_header(blob)


@pytest.mark.claim("W4-Q4-BITS")
def test_llama32_3b_blob_bits_per_parameter(check, store):
    """The post's own figures, on llama3.2:3b's blob in a real store."""
    header = _store_header(store, check, LLAMA)
    params = header.parameter_count
    check.against("parameters", params, model=LLAMA, note="sum of tensor elements in the GGUF")
    check.against("clean INT4 bytes", params * 4 / 8, unit="B", model=LLAMA)
    check.against("blob bytes", header.file_size, unit="B", model=LLAMA)
    check.against("bits per parameter", header.file_size * 8 / params, model=LLAMA)
    check.against(
        "excess above INT4", (header.file_size / (params / 2) - 1) * 100, unit="%", model=LLAMA
    )
    label = header.file_type[1] if header.file_type else "unlabelled"
    check.chart("bits_per_param", _bits_rows(header, label), title=f"{LLAMA}: bits per parameter")


def _one_label_many_types(check, header) -> None:
    """W4-TENSOR-MIX's general form: one quantization label, several tensor formats."""
    label = header.file_type[1] if header.file_type else "unlabelled"
    check.observe("general.file_type", label)
    check.attach("tensor census", header.census, kind="json")
    check.measure(
        "ggml tensor types in one file",
        header.census,
        holds=len(header.census) > 1,
        expected=f"more than one tensor format behind the single label {label}",
    )
    nominal = _nominal_bits(label)
    bits = header.tensor_bits_per_parameter
    check.observe("tensor-data bits per parameter", bits, unit="bit/param",
                  note=f"the label {label} names {nominal} bits")
    check.against("bits per parameter exceed the label's width",
                  nominal is not None and (bits or 0) > nominal,
                  note=f"{bits} bits per parameter against {label}'s nominal {nominal}")


@pytest.mark.claim("W4-TENSOR-MIX")
def test_one_label_many_tensor_types_gemma(check, gemma_gguf):
    _one_label_many_types(check, read_header(gemma_gguf))


@pytest.mark.claim("W4-TENSOR-MIX")
def test_one_label_many_tensor_types_llama32(check, store):
    _one_label_many_types(check, _store_header(store, check, LLAMA))
