"""W4 claims checked against the author's raw results (fixtures/lab, Week 4's results.json).

No script writes that file (model_memory.py only prints; see fixtures/lab/manifest.json):
it is the author's record of the calculator runs, of the llama3.2:3b model blob and of
`ollama list` / `ollama ps`, which the post prints in part. Each figure the post states is
compared with it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from claims.probes.arithmetic.memory import PRECISION_BITS, weight_bytes_exact
from claims.probes.files.lab_notes import read_roadmap
from claims.probes.live.engine.bits import nominal_bits
from claims.testing import lab
from claims.testkit import convert

pytestmark = pytest.mark.offline

GIB = 1024**3


def _lab() -> dict[str, Any]:
    return lab.results("W4")


def _example(results: dict[str, Any], precision: str, count: int | None = None) -> dict[str, Any]:
    for ex in results["calculator_examples"]:
        if ex["precision"] == precision and (count is None or ex["parameter_count"] == count):
            return dict(ex)
    raise AssertionError(f"the lab records no {precision} calculator example")


@pytest.mark.claim("W4-70B-INT4", source="recorded")
def test_lab_70b_int4(check) -> None:
    r = _lab()
    check.fact("lab evidence", lab.PROVENANCE)
    ex = _example(r, "int4", round(convert(check.premise("parameters"), "B params", "params")))
    check.against("weight bytes", ex["weight_bytes"], unit="B", note=ex["label"])
    check.against("weight GB", ex["weight_gb"], unit="GB", note="results.json weight_gb")
    check.against("INT4 bytes per parameter", ex["weight_bytes"] / ex["parameter_count"],
                  unit="B", note="results.json's weight bytes over its parameter count")
    check.not_judged("weight GiB", "the lab records GB only")
    formula = weight_bytes_exact(ex["parameter_count"], PRECISION_BITS["int4"])
    check.measure("weight bytes = count × 4 / 8", ex["weight_bytes"],
                  holds=ex["weight_bytes"] == formula, expected=f"{int(formula):,}")


@pytest.mark.claim("W4-QWEN-EXACT", source="recorded")
def test_lab_qwen_bf16(check) -> None:
    r = _lab()
    ex = _example(r, "bf16")
    check.against("weight bytes", ex["weight_bytes"], unit="B", note=ex["label"])
    check.against("weight GB", ex["weight_gb"], unit="GB")
    check.against("weight GiB", ex["weight_bytes"] / GIB, unit="GiB",
                  note="from the lab's bytes (it records GB only)")
    check.measure("matches the safetensors index total (the author's check)",
                  ex.get("matches_safetensors_index_total_size"),
                  holds=ex.get("matches_safetensors_index_total_size") is True, expected="true")
    w3 = lab.results("W3")
    check.measure("Week 3's index total_size", w3["safetensors_total_bytes"], unit="B",
                  holds=w3["safetensors_total_bytes"] == ex["weight_bytes"],
                  expected=f"{ex['weight_bytes']:,} B")


@pytest.mark.claim("W4-Q4-BITS", source="recorded")
def test_lab_quantized_file(check) -> None:
    q = _lab()["quantized_reality"]
    model = str(q["model"])
    check.against("parameters", q["parameter_count"], model=model)
    check.against("clean INT4 bytes", q["clean_int4_weight_bytes"], unit="B", model=model)
    check.against("blob bytes", q["actual_weight_layer_bytes"], unit="B", model=model)
    check.against("bits per parameter", q["effective_on_disk_bits_per_parameter"], model=model,
                  note="results.json, three decimals")
    excess = (q["actual_weight_layer_bytes"] / q["clean_int4_weight_bytes"] - 1) * 100
    check.against("excess above INT4", excess, unit="%", model=model)
    for key in ("manifest_size_matches_blob", "manifest_digest_matches_blob"):
        check.measure(key, q[key], holds=q[key] is True, expected="true (the author's check)")


@pytest.mark.claim("W4-TENSOR-MIX", source="recorded")
def test_lab_tensor_type_census(check) -> None:
    """The census the post points to but does not print: llama3.2:3b's tensors per type."""
    q = _lab()["quantized_reality"]
    types = dict(q["tensor_types"])
    check.observe("tensors per type (llama3.2:3b)", types)
    check.measure("tensor formats in a file labelled " + str(q["quantization"]), len(types),
                  holds=len(types) > 1, expected="more than one")
    bits = q["actual_weight_layer_bytes"] * 8 / q["parameter_count"]
    nominal = nominal_bits(q["quantization"])
    check.observe("bits per parameter", round(bits, 3), unit="bit/param",
                  note=f"the label {q['quantization']} names {nominal} bits")
    check.against("bits per parameter exceed the label's width",
                  nominal is not None and bits > nominal,
                  note=f"{bits:.3f} bits per parameter against {q['quantization']}'s nominal "
                       f"{nominal}")


@pytest.mark.claim("W4-LOADED-GROWS", source="recorded")
def test_lab_loaded_sizes(check) -> None:
    rt = _lab()["runtime_versus_weights"]
    model = str(rt["model"])
    check.against("package", rt["on_disk_gb"], unit="GB", model=model)
    check.against("loaded at 4096", rt["loaded_gb_ctx_4096"], unit="GB", model=model)
    check.against("loaded at 16384", rt["loaded_gb_ctx_16384"], unit="GB", model=model)
    growth = rt["loaded_gb_ctx_16384"] - rt["loaded_gb_ctx_4096"]
    check.against("growth", round(growth, 1), unit="GB", model=model)
    check.observe("processor", rt["processor"])


@pytest.mark.claim("W4-70B-BF16", source="recorded")
def test_lab_spark_pool(check) -> None:
    r = _lab()
    check.against("Spark pool", r["hardware"]["unified_memory_gib"], unit="GiB",
                  note=f"results.json hardware ({r['hardware']['device']})")
    ex = _example(r, "int4", round(convert(check.premise("parameters"), "B params", "params")))
    check.against("ratio to INT4", 16 / 4, unit="x", note="bf16 / int4 bits")
    check.against("weight GB", ex["weight_bytes"] * 4 / 1e9, unit="GB",
                  note="4 × the lab's INT4 bytes")
    check.against("weight GiB", ex["weight_bytes"] * 4 / GIB, unit="GiB")


@pytest.mark.claim("W4-HUB-PARAMS", source="recorded")
def test_lab_hub_count(check) -> None:
    w3 = lab.results("W3")
    check.against("revision", w3["revision"], note="Week 3's lab results, same revision")
    check.against("parameters", w3["total_parameters"])
    check.against("BF16 parameters", w3["parameter_groups"].get("BF16"))



def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.casefold()) if len(w) > 4}


def _week_sharing_words(titles: dict[int, str], title: str) -> int:
    """The roadmap week whose title shares the most words (five letters or more) with
    ``title``; the earliest on a tie."""
    return max(sorted(titles), key=lambda w: len(_words(titles[w]) & _words(title)))


@pytest.mark.claim("W4-SERIES-PLAN", source="recorded")
def test_lab_roadmap_places_week_four(check, catalog) -> None:
    folder = lab.lab_dir() / "roadmap"
    roadmap = read_roadmap(folder)
    check.fact("lab roadmap", f"{lab.PROVENANCE}: roadmap/week-NN.md, each naming its phase")
    titles = roadmap.titles
    check.attach("roadmap titles", titles, kind="json")
    # The post's week: the roadmap week whose title shares the most words with the post's.
    post = next(d.title for d in catalog.documents if d.id == "W4")
    check.against("week", _week_sharing_words(titles, post),
                  note=f"the roadmap title sharing most words with {post!r}")
    week = round(check.premise("week"))
    check.against("phase of week 4", roadmap.phase_of_week.get(week), note=f"week-{week:02d}.md")
    check.against("phases", len(roadmap.phase_weeks()))
    check.against("weeks", roadmap.weeks)
    check.against("last week of phase 1", roadmap.phase_weeks()[roadmap.phase_of_week[week]][1])
    # The post names the quantization phase by its weeks: the phase holding the first of
    # them must be one of its own (not week 4's) and span exactly those weeks.
    low = int(str(catalog.get("W4-SERIES-PLAN").figure("quantization weeks").low))
    phase = roadmap.phase_of_week[low]
    check.measure("a phase of its own, after week 4's", phase,
                  holds=phase != roadmap.phase_of_week[week], expected="not week 4's phase")
    first, last = roadmap.phase_weeks()[phase]
    fig = catalog.get("W4-SERIES-PLAN").figure("quantization weeks")
    stated = (int(str(fig.low)), int(str(fig.high)))
    check.measure("quantization weeks: that phase's first and last week", f"{first}–{last}",
                  holds=(first, last) == stated, expected=f"{fig.display}, exactly")
    check.against("tensors week", roadmap.first_week_titled("tensors"),
                  note="the first week whose title names tensors")
    check.against("KV cache week", roadmap.first_week_titled("KV cache"),
                  note="the first week whose title names the KV cache")
