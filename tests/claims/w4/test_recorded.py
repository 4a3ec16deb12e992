"""W4 claims checked on the figures the post records (fixtures/recorded/W4.json).

The ollama list / ollama ps lines are kept as printed and parsed here, so the
sizes carry the precision Ollama printed them with (0.1 GB): a difference of
two such labels is an interval, not a number.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from claims.probes.arithmetic.memory import weight_bytes_exact
from claims.testkit import Interval

pytestmark = pytest.mark.offline

MODEL = "llama3.2:3b"


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


@pytest.mark.claim("W4-LOADED-GROWS", source="recorded")
def test_loaded_size_grows_with_context(check, recorded):
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


@pytest.mark.claim("W4-GROWTH-IS-KV", source="recorded")
def test_growth_for_the_extra_context(check, recorded):
    """The post's own figures: 12,288 more tokens of context, 1.5 GB more loaded size.

    The post computes no KV figure and prints no model shape, so the KV formula's
    share of the growth needs the model's own metadata: the live tier reads it
    (tests/claims/w4/test_ollama.py). Offline, only what the post printed is checked.
    """
    rows = ps_rows(recorded("W4"))
    extra = int(rows[16384]["CONTEXT"]) - int(rows[4096]["CONTEXT"])
    check.against("extra context", extra, unit="tokens", note="the two CONTEXT columns")
    shown = size_gb(rows[16384]["SIZE"]) - size_gb(rows[4096]["SIZE"])
    check.against(
        "growth", shown, unit="GB", model=MODEL, note="difference of the two ollama ps labels"
    )
    check.note(
        "the KV cache's share of the growth needs the model's shape, which the post does not "
        "print: judged by the ollama tier from the model's metadata"
    )


@pytest.mark.claim("W4-Q4-BITS", source="recorded")
def test_q4_k_m_file_bits_per_parameter(check, recorded):
    q4 = recorded("W4")["q4_file"]
    params = int(q4["parameters"].replace(",", ""))
    blob = int(q4["blob_bytes"].replace(",", ""))
    clean = weight_bytes_exact(params, 4)
    check.against("clean INT4 bytes", float(clean), unit="B", model=q4["model"])
    bits = blob * 8 / params
    check.against("bits per parameter", bits, model=q4["model"])
    check.against("excess above INT4", (blob / float(clean) - 1) * 100, unit="%", model=q4["model"])
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
