"""W4 claims checked on the figures the post records (fixtures/recorded/W4.json).

The ollama list / ollama ps lines are kept as printed and parsed here, so the
sizes carry the precision Ollama printed them with (0.1 GB): a difference of
two such labels is an interval, not a number.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from claims.figures import Interval
from claims.probes.memory import GB, kv_cache_bytes, weight_bytes_exact

pytestmark = pytest.mark.offline

MODEL = "llama3.2:3b"
# llama3.2:3b's attention shape as its GGUF metadata gives it (llama.block_count,
# llama.attention.head_count_kv, key_length = value_length); the post does not print it.
LLAMA32_3B_LAYERS = 28
LLAMA32_3B_KV_HEADS = 8
LLAMA32_3B_HEAD_DIM = 128
F16_BYTES = 2
# W4-GROWTH-IS-KV, "the main cause": the same bar as the claim's live tier
# (tests/claims/w4/test_ollama.py). The formula must account for at least three
# quarters of the growth, so everything else together (compute graph, buffers) is
# at most a third of the KV cache's share: a margin above a bare majority, since the
# recorded growth is itself the difference of two labels rounded to 0.1 GB.
KV_SHARE_MIN = 0.75


def table_row(header: str, line: str) -> dict[str, str]:
    """One row of an ollama CLI table as printed (columns are separated by 2+ spaces)."""
    names = re.split(r"\s{2,}", header.strip())
    cells = re.split(r"\s{2,}", line.strip())
    assert len(names) == len(cells), f"cannot split {line!r} under {header!r}"
    return dict(zip(names, cells, strict=True))


def size_gb(label: str) -> Interval:
    """'2.6 GB' -> the interval a label rounded to its last digit stands for, in GB."""
    number, unit = label.split()
    assert unit == "GB", label
    return Interval.stated(number)


def ps_rows(w4: dict[str, Any]) -> dict[int, dict[str, str]]:
    return {
        entry["num_ctx"]: table_row(entry["header"], entry["line"]) for entry in w4["ollama_ps"]
    }


@pytest.mark.claim("W4-LOADED-GROWS")
def test_loaded_size_grows_with_context(check, recorded):
    check.source = "recorded"
    w4 = recorded("W4")
    listed = table_row(w4["ollama_list"]["header"], w4["ollama_list"]["line"])
    rows = ps_rows(w4)
    package = size_gb(listed["SIZE"])
    small, large = size_gb(rows[4096]["SIZE"]), size_gb(rows[16384]["SIZE"])
    check.against("package", package, unit="GB", model=listed["NAME"])
    check.against("loaded at 4096", small, unit="GB", model=rows[4096]["NAME"])
    check.against("loaded at 16384", large, unit="GB", model=rows[16384]["NAME"])
    check.against(
        "growth",
        large - small,
        unit="GB",
        model=MODEL,
        note="difference of two labels rounded to 0.1 GB",
    )
    check.measure(
        "loaded at 4096 > package",
        f"{small} vs {package} GB",
        holds=small.lo > package.hi,
        expected="runtime memory beyond the package",
    )
    check.measure(
        "loaded at 16384 > loaded at 4096",
        f"{large} vs {small} GB",
        holds=large.lo > small.hi,
        expected="grows with num_ctx",
    )
    check.measure(
        "CONTEXT column",
        [rows[4096]["CONTEXT"], rows[16384]["CONTEXT"]],
        holds=[rows[4096]["CONTEXT"], rows[16384]["CONTEXT"]] == ["4096", "16384"],
        expected="the requested num_ctx",
    )
    check.attach(
        "ollama list / ps as printed",
        "\n".join([w4["ollama_list"]["line"]] + [e["line"] for e in w4["ollama_ps"]]),
    )


@pytest.mark.claim("W4-GROWTH-IS-KV")
def test_growth_matches_kv_formula(check, recorded):
    check.source = "recorded"
    rows = ps_rows(recorded("W4"))
    extra = int(rows[16384]["CONTEXT"]) - int(rows[4096]["CONTEXT"])
    check.against("extra context", extra, unit="tokens")
    kv = kv_cache_bytes(
        LLAMA32_3B_LAYERS, LLAMA32_3B_KV_HEADS, LLAMA32_3B_HEAD_DIM, extra, F16_BYTES
    )
    check.observe("KV bytes for the extra context (formula, f16)", int(kv), unit="B")
    check.against("growth", kv, unit="B", model=MODEL, note="KV formula for 28 x 8 x 128, f16")
    shown = size_gb(rows[16384]["SIZE"]) - size_gb(rows[4096]["SIZE"])
    share = Interval.point(kv / GB) / shown
    check.measure(
        "KV share of the shown growth",
        str(share),
        holds=share.lo >= KV_SHARE_MIN,
        expected=f"at least {KV_SHARE_MIN:g} of it (the main cause)",
    )
    check.chart(
        "kv_growth",
        [
            {
                "context": 4096,
                "measured_bytes": size_gb(rows[4096]["SIZE"]).mid * GB,
                "formula_bytes": kv_cache_bytes(
                    LLAMA32_3B_LAYERS, LLAMA32_3B_KV_HEADS, LLAMA32_3B_HEAD_DIM, 4096
                ),
            },
            {
                "context": 16384,
                "measured_bytes": size_gb(rows[16384]["SIZE"]).mid * GB,
                "formula_bytes": kv_cache_bytes(
                    LLAMA32_3B_LAYERS, LLAMA32_3B_KV_HEADS, LLAMA32_3B_HEAD_DIM, 16384
                ),
            },
        ],
        title="llama3.2:3b loaded size (ollama ps, recorded) vs KV formula",
    )


@pytest.mark.claim("W4-Q4-BITS")
def test_q4_k_m_file_bits_per_parameter(check, recorded):
    check.source = "recorded"
    q4 = recorded("W4")["q4_file"]
    params = int(q4["parameters"].replace(",", ""))
    blob = int(q4["blob_bytes"].replace(",", ""))
    check.against("parameters", params, model=q4["model"])
    check.against("blob bytes", blob, unit="B", model=q4["model"])
    clean = weight_bytes_exact(params, 4)
    check.against("clean INT4 bytes", float(clean), unit="B", model=q4["model"])
    bits = blob * 8 / params
    check.against("bits per parameter", bits, model=q4["model"])
    check.against("excess over INT4", (blob / float(clean) - 1) * 100, unit="%", model=q4["model"])
    check.chart(
        "bits_per_param",
        [
            {
                "file": f"{q4['model']} (recorded)",
                "label": q4["quantization"],
                "bits_per_param": bits,
            }
        ],
    )
