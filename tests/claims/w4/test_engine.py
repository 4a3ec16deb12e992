"""W4's "a Q4 file costs more than 4 bits per parameter", on the file the engine runs.

The parameter count comes from llama.cpp (the tensors it loaded) and, as a
cross-check, from the file probe's tensor infos; the label from the file's
``general.file_type``. The post's own figures are about llama3.2:3b and are
compared only when the engine runs that model (``--claims-engine-model store:llama3.2:3b``).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.engine


@pytest.mark.claim("W4-Q4-BITS")
def test_bits_per_parameter_of_the_engine_model(check, engine_facts, engine_header, engine_model):
    from claims.probes.live.engine import bits_per_parameter, nominal_bits, quantization_label

    engine = engine_facts
    label = quantization_label(engine_header)
    nominal = nominal_bits(label)
    n_params = engine.n_params
    file_bytes = engine_header.file_size
    check.observe("quantization label (general.file_type)", label)
    check.observe("llama.cpp's description", engine.description)
    check.measure(
        "parameters: llama.cpp vs the file's tensor infos",
        [n_params, engine_header.parameter_count],
        holds=n_params == engine_header.parameter_count > 0,
        expected="equal",
    )
    file_bpp = bits_per_parameter(file_bytes, n_params)
    tensor_bpp = bits_per_parameter(engine.tensor_bytes, n_params)
    check.observe("file bytes", file_bytes, unit="B")
    check.observe("tensor bytes loaded by llama.cpp", engine.tensor_bytes, unit="B")
    check.observe(
        "tensor bits per parameter",
        round(tensor_bpp, 4),
        unit="bits",
        note="tensor data only, the figure llama.cpp prints as BPW",
    )
    # Why a "4-bit" file costs more: the census of tensor types and where the parameters sit.
    check.observe("tensors per type", engine_header.census)
    by_type: dict[str, int] = {}
    for tensor in engine_header.tensors:
        by_type[tensor.type_name] = by_type.get(tensor.type_name, 0) + tensor.n_elements
    check.observe("parameters per type", dict(sorted(by_type.items(), key=lambda kv: -kv[1])))
    model = engine_model.name
    check.against("parameters", n_params, model=model)
    check.against("blob bytes", file_bytes, unit="B", model=model)
    check.against("bits per parameter", file_bpp, model=model)
    if nominal is None:
        check.measure(
            "label's nominal width",
            label,
            holds=False,
            expected="a label with a bit width (Q4_K_M, Q8_0, F16...)",
        )
        return
    clean = n_params * nominal / 8
    check.observe(f"clean {nominal}-bit bytes", clean, unit="B")
    excess = (file_bytes / clean - 1) * 100
    if nominal == 4:
        check.against("clean INT4 bytes", clean, unit="B", model=model)
        check.against("excess above INT4", excess, unit="%", model=model)
    check.observe(f"excess over clean {nominal}-bit", round(excess, 2), unit="%")
    check.measure(
        "file bits per parameter vs label",
        round(file_bpp, 4),
        unit="bits",
        holds=file_bpp > nominal,
        expected=f"more than the label's {nominal} bits ({label})",
    )
    check.chart(
        "bits_per_param",
        [
            {"file": f"{model} (whole file)", "label": label, "bits_per_param": file_bpp},
            {"file": f"{model} (tensor data)", "label": label, "bits_per_param": tensor_bpp},
            {"file": f"clean {label}", "label": f"{nominal}-bit", "bits_per_param": float(nominal)},
        ],
        title="Bits per parameter of the engine model",
    )
