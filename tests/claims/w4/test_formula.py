"""W4: the weight-memory formula, precisions, GB vs GiB, and the worked examples.

Measurements come from independent sources where one exists: the byte sizes
of real buffers (numpy, torch when importable), ggml's type sizes from gguf-py,
and the Qwen config in the pinned snapshot. The arithmetic itself is exact
(fractions), so a printed figure is compared at the precision it was printed
with and nothing else.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from claims.probes.arithmetic import memory
from claims.probes.arithmetic.memory import (
    GB,
    GIB,
    PRECISION_BITS,
    gb,
    gib,
    weight_bytes,
    weight_bytes_exact,
)
from claims.probes.machine.torch_cuda import import_torch
from claims.testkit import Interval, PrerequisiteMissing, convert

pytestmark = pytest.mark.offline

# The Hub's safetensors total at the pinned revision (W4-HUB-PARAMS) and the post's
# nominal 70B are catalog figures, read with check.premise.
QWEN = {"figure": "parameters", "claim": "W4-HUB-PARAMS"}


def _nominal_70b(check: Any) -> int:
    """The post's 70B parameters, a premise of the claim under test (B params -> params)."""
    return round(convert(check.premise("parameters"), "B params", "params"))

# Week 4's precision names -> the ggml type of one element of that precision.
GGML_ELEMENT_TYPES = {"FP32": "F32", "FP16": "F16", "BF16": "BF16", "INT8": "I8"}


def _torch() -> Any | None:
    """torch, or None where it is not installed or raises on import (then the sizes come
    from gguf alone; a broken CUDA wheel must not end the run)."""
    try:
        return import_torch()
    except PrerequisiteMissing:
        return None


@pytest.mark.claim("W4-PRECISION-BYTES")
def test_bytes_per_parameter_by_precision(check):
    for label, ggml_type in GGML_ELEMENT_TYPES.items():
        block, size = memory.quant_block(ggml_type)
        check.against(
            f"{label} bytes", size / block, unit="B", note=f"gguf GGML_QUANT_SIZES[{ggml_type}]"
        )
    # INT4: Q4_0 packs 32 four-bit values into 16 bytes next to its 2-byte scale.
    block, size = memory.quant_block("Q4_0")
    check.against(
        "INT4 bytes",
        (size - 2) / block,
        unit="B",
        note="gguf Q4_0 block: (18 B - 2 B fp16 scale) / 32 values",
    )
    torch = _torch()
    if torch is None:
        check.note("torch is not importable: element sizes from gguf only")
        return
    check.fact("torch", torch.__version__)
    dtypes = {
        "FP32": torch.float32,
        "FP16": torch.float16,
        "BF16": torch.bfloat16,
        "INT8": torch.int8,
    }
    for label, dtype in dtypes.items():
        check.against(
            f"{label} bytes",
            torch.empty(16, dtype=dtype).element_size(),
            unit="B",
            note=f"torch {dtype} element_size()",
        )
    quint4x2 = getattr(torch, "quint4x2", None)
    if quint4x2 is not None:
        values = torch.linspace(-1.0, 1.0, 64)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore"
                )  # quantized tensor creation is deprecated in torch 2.x
                packed = torch.quantize_per_tensor(values, 0.125, 8, quint4x2)
            per_value = packed.untyped_storage().nbytes() / packed.numel()
        except (RuntimeError, NotImplementedError) as exc:
            check.note(f"torch quint4x2 unavailable here ({exc}); INT4 from gguf only")
        else:
            check.against(
                "INT4 bytes", per_value, unit="B", note="torch quint4x2 storage bytes / values"
            )


def _calculator_field(lines: list[str], key: str) -> str:
    """The value printed after ``key`` in the calculator's output ("35.00" of "weight_gb ...")."""
    for line in lines:
        name, _, rest = line.partition(" ")
        if name == key:
            return rest.split()[0]
    raise AssertionError(f"no {key} line in the calculator output")


@pytest.mark.claim("W4-GB-GIB", source="recorded")
def test_gb_and_gib_divisors(check, recorded):
    """The divisors the post's own calculator output implies, not the suite's constants.

    Each run prints a byte count beside its GB and GiB figures rounded to 0.01, so
    bytes / [printed - 0.005, printed + 0.005] bounds the divisor it used; the two
    runs together pin it to within about 0.01%.
    """
    runs = recorded("W4")["calculator_runs"]
    bounds: dict[str, list[Interval]] = {"weight_gb": [], "weight_gib": []}
    for run in runs:
        lines = run["output"]
        check.attach(f"model_memory.py {' '.join(run['args'])} (the post)", "\n".join(lines))
        nbytes = int(_calculator_field(lines, "weight_bytes").replace(",", ""))
        for key in bounds:
            bounds[key].append(nbytes / Interval.stated(_calculator_field(lines, key)))
    implied = {
        key: Interval(max(i.lo for i in found), min(i.hi for i in found))
        for key, found in bounds.items()
    }
    check.against(
        "GB divisor", implied["weight_gb"], unit="B", note="weight_bytes / weight_gb, both runs"
    )
    check.against(
        "GiB divisor", implied["weight_gib"], unit="B", note="weight_bytes / weight_gib, both runs"
    )
    check.measure(
        "the GB and GiB figures imply different divisors",
        [str(implied["weight_gb"]), str(implied["weight_gib"])],
        holds=not implied["weight_gb"].overlaps(implied["weight_gib"]),
        expected="disjoint ranges: the two units are not the same size",
    )
    check.observe(
        "the suite's own divisors (claims.probes.arithmetic.memory)",
        {"GB": GB, "GiB": GIB},
        note="what the suite computes with; not the evidence for the claim",
    )


# Element counts the formula is tried on, for each precision: the edges where a byte
# count could round (0 to 3, around each power of two a buffer allocator cares for), and
# a fixed sample of the rest up to 200,000. Fixed, so every run's evidence names the same
# cases (a random search drew new ones each run, and cost the main job half a second to
# import its library).
EDGE_COUNTS = sorted({0, 1, 2, 3, *(2**k + d for k in range(2, 18) for d in (-1, 0, 1))})
SAMPLED_COUNTS = sorted(random.Random(4).sample(range(200_001), 40))


@pytest.mark.claim("W4-FORMULA")
def test_formula_matches_real_buffer_sizes(check):
    """parameters × bits / 8 equals the bytes of real arrays of that many elements."""
    np_types = {"fp32": np.float32, "fp16": np.float16, "int8": np.int8}
    torch = _torch()
    precisions = sorted(np_types) + (["bf16"] if torch is not None else [])
    tried = 0
    counterexample = None
    for precision in precisions:
        for n in (*EDGE_COUNTS, *SAMPLED_COUNTS):
            if precision == "bf16":
                nbytes = torch.empty(n, dtype=torch.bfloat16).untyped_storage().nbytes()
            else:
                nbytes = np.empty(n, dtype=np_types[precision]).nbytes
            tried += 1
            formula = weight_bytes_exact(n, PRECISION_BITS[precision])
            if formula != nbytes and counterexample is None:
                counterexample = f"{precision}, {n} elements: formula {formula} B, array {nbytes} B"
    check.measure(
        "formula = buffer bytes (numpy/torch arrays)",
        f"{tried} cases, precisions {precisions}",
        holds=counterexample is None,
        expected="equal for every count and precision",
        note=counterexample,
    )
    # The divisor as the post prints it: bits over it are each format's element size.
    divisor = check.premise("bits per byte")
    check.against("bits per byte", np.iinfo(np.uint8).bits, note="numpy: the bits of a uint8")
    for precision, np_type in sorted(np_types.items()):
        size = np.dtype(np_type).itemsize
        check.measure(f"{precision}: bits / {divisor:g}", PRECISION_BITS[precision] / divisor,
                      holds=PRECISION_BITS[precision] / divisor == size, unit="B",
                      expected=f"{size} B, numpy's element size")
    # Exact on a real checkpoint: the Qwen index total (W3, W4-QWEN-EXACT).
    exact = weight_bytes_exact(round(check.premise(**QWEN)), PRECISION_BITS["bf16"])
    total = check.premise("weight bytes", claim="W4-QWEN-EXACT")
    check.measure(
        "Qwen BF16 bytes",
        int(exact),
        holds=exact == total,
        expected=f"{total:,.0f} (the shard index total_size, W4-QWEN-EXACT)",
        unit="B",
    )


@pytest.mark.claim("W4-70B-INT4", source="recorded")  # the post's nominal 70e9 parameters
def test_70b_at_int4(check, recorded):
    n = weight_bytes_exact(_nominal_70b(check), PRECISION_BITS["int4"])
    check.against("INT4 bytes per parameter", PRECISION_BITS["int4"] / 8, unit="B",
                  note="the INT4 width the weight bytes are computed with, in bytes")
    check.against("weight bytes", int(n), unit="B")
    check.against("weight GB", float(n), unit="B")
    check.against("weight GB in prose", float(n), unit="B")
    check.against("weight GiB", float(n), unit="B")
    check.attach(
        "calculator output as printed", "\n".join(recorded("W4")["calculator_runs"][0]["output"])
    )


@pytest.mark.claim("W4-70B-BF16", source="recorded")  # the post's nominal 70e9 parameters
def test_70b_at_bf16(check):
    bf16 = weight_bytes_exact(_nominal_70b(check), PRECISION_BITS["bf16"])
    int4 = weight_bytes_exact(_nominal_70b(check), PRECISION_BITS["int4"])
    check.against("ratio to INT4", float(bf16 / int4), unit="x")
    check.against("weight GB", float(bf16), unit="B")
    check.against("weight GiB", float(bf16), unit="B")
    # The post compares with the Spark's pool as it states it (W1 measures the pool itself).
    pool = check.premise("Spark pool")
    check.measure(
        f"BF16 weights exceed a {pool:g} GiB pool",
        round(gib(float(bf16)), 2),
        holds=float(bf16) > pool * GIB,
        expected=f"> {pool:g} GiB",
        unit="GiB",
    )


@pytest.mark.claim("W4-QWEN-EXACT", source="recorded")
def test_formula_matches_index_total_exactly(check, qwen_snapshot):
    from claims.probes.files.hf_repo import index_total_size

    n = weight_bytes(round(check.premise(**QWEN)), PRECISION_BITS["bf16"])
    check.against("weight bytes", int(n), unit="B")
    check.against("weight GB", gb(n), unit="GB")
    check.against("weight GiB", gib(n), unit="GiB")
    total = index_total_size(qwen_snapshot.index())
    check.measure(
        "formula vs index total_size",
        total - int(n),
        holds=total == int(n),
        expected="0 bytes apart",
        unit="B",
        note="index from the pinned W3 snapshot",
    )


@pytest.mark.claim("W4-BIAS-COUNTED", source="recorded")
def test_reported_count_includes_biases(check, qwen_snapshot):
    config = qwen_snapshot.config()
    with_biases = memory.parameters_from_config(config, source="config.json")
    without = memory.parameters_from_config(config, source="config.json", biases=False)
    check.against("parameters", with_biases.total)
    bias_params = with_biases.total - without.total
    check.observe("bias parameters (q, k, v over 36 layers)", bias_params)
    check.measure(
        "count without biases",
        without.total,
        holds=without.total != with_biases.total,
        expected="falls short of the reported count",
    )
    check.attach("per-component count", with_biases.breakdown(), kind="json")
