"""The report's charts: every kind draws, bad rows are refused with a reason, SVG ids are unique."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from claims.report import plots
from claims.report.plots import (
    CHART_KINDS,
    ChartError,
    caption,
    nominal_bits,
    render_chart,
    svg_with_prefix,
)


@pytest.fixture(autouse=True)
def no_kept_charts(tmp_path, monkeypatch):
    """Every test here draws its charts: the cache of drawn charts starts empty, in a
    folder of the test's own (the cache's own tests are at the end)."""
    monkeypatch.setattr(plots, "_charts_dir", lambda: tmp_path / "charts")


@pytest.fixture
def charts(evidence):
    found = {}
    for claim in evidence["claims"]:
        for check in claim["checks"]:
            for chart in check["charts"]:
                found.setdefault(chart["kind"], chart)
    return found


@pytest.mark.parametrize("kind", sorted(CHART_KINDS))
def test_every_kind_draws_a_small_standalone_svg(charts, kind):
    svg = render_chart(charts[kind])
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<?xml" not in svg and "<!DOCTYPE" not in svg and "<metadata" not in svg
    assert len(svg) < 40_000, "a plot should stay a few kilobytes"
    assert re.search(r"\burl\((?!#)", svg) is None
    assert re.search(r'href="(?!#)', svg) is None


def test_ttft_with_split_draws_the_server_phases(charts):
    svg = render_chart(charts["ttft"])
    assert "model load" in svg and "prompt prefill" in svg and "decode" in svg
    assert "6,123 ms" in svg and "180 ms" in svg


def test_ttft_without_split_draws_one_panel():
    svg = render_chart(
        {
            "kind": "ttft",
            "rows": [
                {"label": "x", "cold": True, "ttft_ms": 10.0},
                {"label": "x", "cold": False, "ttft_ms": 2.0},
            ],
        }
    )
    assert (
        "prompt prefill" not in svg
        and "Where the request" not in svg
        and "Time to first token" in svg
    )


def test_rendering_is_deterministic(charts):
    # Drawn twice, bypassing the cache of drawn charts: the same rows, the same bytes
    # (which is what lets that cache stand in for a drawing).
    rows = plots._rows(charts["matmul"])
    assert plots._draw_chart("matmul", rows, None) == plots._draw_chart("matmul", rows, None)


@pytest.mark.parametrize(
    ("label", "bits"),
    [
        ("Q4_K_M", 4.0),
        ("Q8_0", 8.0),
        ("F16", 16.0),
        ("BF16", 16.0),
        ("F32", 32.0),
        ("IQ2_XXS", 2.0),
        ("MXFP4", 4.0),
        ("q4_0", 4.0),
        ("Q5_K_S", 5.0),
        ("gemma3 270M", None),
        ("", None),
    ],
)
def test_nominal_bits_of_quantization_labels(label, bits):
    assert nominal_bits(label) == bits


def test_bits_chart_marks_the_nominal_bits_of_each_label():
    svg = render_chart(
        {
            "kind": "bits_per_param",
            "rows": [
                {"file": "a.gguf", "label": "Q4_K_M", "bits_per_param": 4.9},
                {"file": "b.gguf", "label": "Q8_0", "bits_per_param": 8.5},
            ],
        }
    )
    assert "nominal bits of the label" in svg and "4.9" in svg and "8.5" in svg


@pytest.mark.parametrize(
    ("chart", "why"),
    [
        ({"kind": "sparkline", "rows": [{"x": 1}]}, "unknown chart kind"),
        ({"kind": "matmul", "rows": []}, "no rows"),
        ({"kind": "matmul"}, "no rows"),
        ({"kind": "matmul", "rows": ["not an object"]}, "must be objects"),
        (
            {"kind": "matmul", "rows": [{"device": "cpu", "tflops": "fast"}]},
            "tflops is not a finite number",
        ),
        (
            {"kind": "ttft", "rows": [{"label": "x", "ttft_ms": float("nan")}]},
            "ttft_ms is not a finite number",
        ),
        (
            {
                "kind": "bits_per_param",
                "rows": [{"file": "f", "label": "Q4_0", "bits_per_param": True}],
            },
            "not a finite",
        ),
        (
            {"kind": "kv_growth", "rows": [{"context": 1}]},
            "neither measured_bytes nor formula_bytes",
        ),
        (
            {"kind": "matmul", "rows": [{"device": "cpu", "tflops": 1.0}] * 41},
            "more than a readable plot",
        ),
    ],
)
def test_malformed_charts_are_refused_with_a_reason(chart, why):
    with pytest.raises(ChartError, match=why):
        render_chart(chart)


def test_dollar_signs_in_labels_are_text_not_mathtext():
    svg = render_chart(
        {"kind": "matmul", "rows": [{"device": "$x^2$", "precision": "fp32", "tflops": 1.0}]}
    )
    assert "$X^2$" in svg  # upper-cased device name, dollars kept literally


def test_hostile_labels_are_escaped_inside_the_svg():
    svg = render_chart(
        {
            "kind": "bits_per_param",
            "rows": [{"file": "<script>alert(1)</script>", "label": "Q4_0", "bits_per_param": 4.5}],
        }
    )
    assert "<script>" not in svg and "&lt;script&gt;" in svg


@pytest.mark.parametrize(
    ("kind", "row"),
    [
        ("matmul", {"device": "cpu\u202eUPG", "precision": "fp32\u200b", "tflops": 1.0}),
        ("ttft", {"label": "phi4\u2066\x1b[2J\u3164", "ttft_ms": 10.0, "cold": True}),
        ("bits_per_param", {"file": "a\U000e0041.gguf", "label": "Q4_0\u00ad",
                            "bits_per_param": 4.5}),
    ],
)
def test_bidi_and_invisible_characters_in_labels_are_shown_as_escapes(kind, row):
    # The SVG goes into the page as trusted markup: its labels are sanitised here
    # (issue 22: a right-to-left override made the CPU bar read "GPU").
    svg = render_chart({"kind": kind, "rows": [row]})
    raw = [c for c in "\u202e\u2066\x1b\u200b\u3164\U000e0041\u00ad" if c in svg]
    assert raw == []
    escapes = re.findall(r"\\(?:u202e|u2066|x1b|u200b|u3164|U000e0041|xad)", svg)
    assert escapes  # each label still says what it held


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" and value:
                self.ids.append(value)
            if key in ("href", "xlink:href") and value and value.startswith("#"):
                self.refs.append(value[1:])
            if value and "url(#" in value:
                self.refs.extend(re.findall(r"url\(#([^)]+)\)", value))


def test_prefixed_copies_of_one_plot_share_no_ids_and_keep_references(charts):
    svg = render_chart(charts["kv_growth"])
    parser = _Ids()
    parser.feed(svg_with_prefix(svg, "one-") + svg_with_prefix(svg, "two-"))
    assert parser.ids and len(parser.ids) == len(set(parser.ids))
    assert parser.refs and set(parser.refs) <= set(parser.ids)


def test_a_chart_of_recorded_figures_never_says_measured():
    chart = {
        "kind": "kv_growth",
        "rows": [
            {"context": 4096, "measured_bytes": 2.5e9, "formula_bytes": 0.5e9},
            {"context": 16384, "measured_bytes": 3.9e9, "formula_bytes": 1.8e9},
        ],
    }
    recorded = render_chart(chart, "recorded")
    assert "measured" not in recorded.replace("not measured here", "")
    assert "recorded" in recorded and "The document" in recorded
    assert "measured" in render_chart(chart, "live")  # a live chart keeps its words


def test_every_kind_has_a_caption_and_an_odd_value_says_why():
    for kind in ("ttft", "matmul", "bits_per_param", "kv_growth"):
        assert len(caption({"kind": kind, "rows": []})) > 40, kind
    bits = caption({"kind": "bits_per_param", "rows": [
        {"file": "gemma.gguf", "label": "Q4_K_M", "bits_per_param": 7.55,
         "note": "its largest tensor, token_embd.weight, is Q8_0"},
        {"file": "other.gguf", "label": "Q4_K_M", "bits_per_param": 4.9, "note": "close"},
    ]})
    assert "gemma.gguf is at 7.55 bits against a nominal 4 because its largest tensor" in bits
    assert "other.gguf is at" not in bits  # near its label: its note is shown as it is
    kv = caption({"kind": "kv_growth", "rows": [
        {"context": 2048, "formula_bytes": 1, "stated_bytes": 1}]})
    assert "the document's printed values" in kv
    assert "\x1b" not in caption({"kind": "kv_growth", "rows": [{"note": "\x1b[2J"}]})


def test_the_kv_chart_is_log_log_with_the_documents_values_beside_the_formula():
    rows = [{"context": c, "formula_bytes": c * 131072, "stated_bytes": c * 125000}
            for c in (2048, 8192, 32768, 131072)]
    svg = render_chart({"kind": "kv_growth", "title": None, "rows": rows})
    assert "the document" in svg and "log scale" in svg


def test_precisions_chart_sets_the_documents_run_beside_this_machines(charts):
    svg = render_chart(charts["precisions"], "live")
    assert "Matrix multiply rate" in svg and "Peak memory" in svg
    assert "NVIDIA GB10 (the document" in svg
    assert "this machine" in svg
    # Every bar is labelled with its value: the document's 224 MiB and 88,808 GFLOP/s.
    assert "224" in svg and "88,808" in svg
    assert "FP16" in svg and "BF16" in svg and "FP32" in svg
    text = caption(charts["precisions"])
    assert "max_memory_allocated" in text and "recorded run beside this machine" in text


def test_precisions_chart_without_memory_draws_the_rate_alone():
    svg = render_chart({"kind": "precisions", "rows": [
        {"label": "this machine", "source": "measured", "precision": "fp32", "gflops": 1.0e4},
        {"label": "this machine", "source": "measured", "precision": "fp16", "gflops": 5.0e4},
    ]})
    assert "Matrix multiply rate" in svg and "Peak memory" not in svg


def test_precisions_row_with_neither_figure_is_refused():
    with pytest.raises(ChartError, match="neither gflops nor peak_mib"):
        render_chart({"kind": "precisions", "rows": [
            {"label": "x", "source": "measured", "precision": "fp16", "gflops": "fast"}]})


def test_a_chart_drawn_before_is_read_back_not_drawn_again(charts, tmp_path, monkeypatch):
    """Drawing is the report's largest cost (issue 51): the same rows, source, drawing code
    and matplotlib give the chart kept in the cache folder, byte for byte."""
    first = render_chart(charts["matmul"], "measured")
    drawn: list[str] = []
    monkeypatch.setattr(plots, "_draw_chart",
                        lambda kind, rows, source: drawn.append(kind) or "<svg>x</svg>")
    assert render_chart(charts["matmul"], "measured") == first and drawn == []
    # Another source, other rows, or another drawing code: drawn again.
    assert render_chart(charts["matmul"], "recorded") == "<svg>x</svg>"
    changed = {**charts["matmul"], "rows": charts["matmul"]["rows"][:1]}
    render_chart(changed, "measured")
    monkeypatch.setattr(plots, "_drawing_version", lambda: "other code")
    render_chart(charts["matmul"], "measured")
    assert drawn == ["matmul", "matmul", "matmul"]


def test_a_kept_chart_that_is_not_one_is_drawn_again(charts, tmp_path):
    first = render_chart(charts["matmul"])
    (kept,) = (tmp_path / "charts").glob("*.svg")
    for bad in ("<script>alert(1)</script>", first[:-3], "x" * 10):
        kept.write_text(bad, "utf-8")
        assert render_chart(charts["matmul"]) == first
    kept.write_bytes(b"<svg>\xff</svg>")
    assert render_chart(charts["matmul"]) == first


def test_no_cache_folder_only_costs_the_drawing(charts, monkeypatch):
    monkeypatch.setattr(plots, "_charts_dir", lambda: None)
    assert render_chart(charts["matmul"]).startswith("<svg")


def test_the_cache_keeps_the_newest_charts_only(tmp_path, monkeypatch):
    monkeypatch.setattr(plots, "MAX_CACHED", 3)
    for n in range(5):
        plots._keep(f"{n:064x}", "<svg></svg>")
    assert len(list((tmp_path / "charts").glob("*.svg"))) == 3
