"""Comparing two runs: verdict changes, moved figures, machines and options; identical runs."""

from __future__ import annotations

import json

import pytest

from claims.report.diff import (
    change_kind,
    diff_evidence,
    format_diff_text,
    relative_change,
    render_diff_html,
)


def claim(evidence, cid):
    return next(c for c in evidence["claims"] if c["id"] == cid)


def test_identical_runs_give_an_empty_diff(make_evidence):
    a, b = make_evidence(), make_evidence()
    b["run"]["started"] = "2026-12-01T10:00:00+00:00"  # timestamps are not differences
    b["run"]["finished"] = "2026-12-01T10:05:00+00:00"
    result = diff_evidence(a, b)
    assert result["identical"] is True
    for key in (
        "verdict_changes",
        "regressions",
        "moved_figures",
        "machine_differences",
        "option_differences",
        "only_in_a",
        "only_in_b",
    ):
        assert result[key] == [], key
    assert "identical: same verdicts" in format_diff_text(result)
    json.dumps(result)  # the --json output


def test_a_claim_that_became_refuted_is_a_regression(make_evidence):
    a, b = make_evidence(), make_evidence()
    claim(b, "D1-RECORDED-TTFT").update(
        verdict="refuted", reason="cold total: measured 9.8 s, stated 9.1 s"
    )
    claim(b, "D1-REFUTED").update(verdict="consistent", reason=None)
    result = diff_evidence(a, b, labels=("spark.json", "laptop.json"))
    changes = {c["id"]: c for c in result["verdict_changes"]}
    assert changes["D1-RECORDED-TTFT"]["kind"] == "regression"
    assert changes["D1-REFUTED"]["kind"] == "improvement"
    assert [c["id"] for c in result["regressions"]] == ["D1-RECORDED-TTFT"]
    text = format_diff_text(result)
    assert "verdict changes: 2 (1 regression)" in text
    assert (
        " ! D1-RECORDED-TTFT" in text and "consistent -> refuted" in text and "stated 9.1 s" in text
    )
    assert "spark.json" in text and "laptop.json" in text


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("reproduced", "refuted", "regression"),
        ("known-erratum", "error", "regression"),
        ("not-run", "refuted", "regression"),
        ("refuted", "reproduced", "improvement"),
        ("error", "not-run", "improvement"),
        ("reproduced", "not-run", "no longer checked"),
        ("not-applicable", "consistent", "newly checked"),
        ("reproduced", "consistent", "weaker evidence"),
        ("consistent", "reproduced", "stronger evidence"),
        ("known-erratum", "consistent", "changed"),
        ("refuted", "error", "changed"),
    ],
)
def test_verdict_changes_are_classified(a, b, kind):
    assert change_kind(a, b) == kind


def test_a_moved_figure_shows_both_values_and_the_relative_change(make_evidence):
    a, b = make_evidence(), make_evidence()
    m = claim(b, "D2-MATMUL")["checks"][0]["measurements"][0]
    m.update(measured=33.6, measured_display="33.6 x")
    result = diff_evidence(a, b)
    assert result["verdict_changes"] == [] and not result["identical"]
    (moved,) = result["moved_figures"]
    assert (moved["claim"], moved["name"]) == ("D2-MATMUL", "GPU faster than CPU")
    assert (moved["a"], moved["b"]) == (22.4, 33.6)
    assert moved["relative_change"] == pytest.approx(0.5)
    assert "D2-MATMUL  GPU faster than CPU: 22.4 x -> 33.6 x  (+50.0%)" in format_diff_text(result)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (100, 90, -0.1),
        (2.0, 3.0, 0.5),
        ({"lo": 22.45, "hi": 22.55}, {"lo": 44.9, "hi": 45.1}, 1.0),  # intervals by their midpoints
        (0, 5, None),
        ("abc", "abd", None),
        (True, False, None),
        (None, 1.0, None),
    ],
)
def test_relative_change(a, b, expected):
    got = relative_change(a, b)
    assert got == (pytest.approx(expected) if expected is not None else None)


def test_machines_and_options_that_differ_are_listed_field_by_field(make_evidence):
    a, b = make_evidence(), make_evidence()
    b["run"]["machine"].update(cpu="Cortex-X925 + Cortex-A725", cpu_count=20, arch="aarch64")
    b["run"]["tier_status"]["ollama"]["version"] = "0.13.0"
    b["run"]["facts"]["phi4 digest"] = "sha256:" + "0" * 64
    b["run"]["options"]["allow_unload"] = True
    b["run"]["markexpr"] = "gpu"
    result = diff_evidence(a, b)
    machines = {d["field"]: (d["a"], d["b"]) for d in result["machine_differences"]}
    assert machines["CPU"] == (
        "AMD EPYC, 2 logical cores",
        "Cortex-X925 + Cortex-A725, 20 logical cores",
    )
    assert machines["OS"][1].endswith("(aarch64)")
    assert machines["Ollama"][1].startswith("0.13.0")
    assert "fact phi4 digest" in machines
    assert "Memory" not in machines
    options = {d["field"]: (d["a"], d["b"]) for d in result["option_differences"]}
    assert options == {"-m expression": ("offline or gpu", "gpu"), "allow_unload": ("no", "yes")}
    text = format_diff_text(result)
    assert "machines differ: 4 fields" in text and "options differ: 2 fields" in text


def test_claims_only_in_one_run_are_named(make_evidence):
    a, b = make_evidence(), make_evidence()
    b["claims"] = [c for c in b["claims"] if c["id"] != "D1-OPINION"]
    result = diff_evidence(a, b)
    assert result["only_in_a"] == ["D1-OPINION"] and result["only_in_b"] == []
    assert "claims only in A: D1-OPINION" in format_diff_text(result)


def test_diff_page_is_self_contained_and_side_by_side(make_evidence, audit):
    a, b = make_evidence(), make_evidence(complete=False)
    claim(b, "D1-RECORDED-TTFT").update(verdict="refuted", reason='<script>alert("r")</script>')
    b["run"]["machine"]["hostname"] = "<b>spark</b>"
    result = diff_evidence(a, b, labels=("a.json", "b.json"))
    html = render_diff_html(result, a, b)
    assert html.startswith("<!DOCTYPE html>")
    check = audit(html)
    assert check.problems == []
    assert len(check.ids) == len(set(check.ids))
    assert (
        "<script" not in html
        and "&lt;script&gt;alert" in html
        and "&lt;b&gt;spark&lt;/b&gt;" in html
    )
    assert "1 regression:" in html and "(incomplete run)" in html
    assert html.count('class="diffgrid"') >= 2  # runs, then the plots side by side
    assert html.count("<svg") >= 8  # both runs' plots


def test_temporary_paths_are_not_differences(make_evidence):
    a, b = make_evidence(), make_evidence()
    for doc, n in ((a, 7), (b, 8)):
        doc["run"]["facts"]["store root"] = f"/tmp/pytest-of-ci/pytest-{n}/store0/models"
        doc["run"]["facts"]["scratch"] = f"/tmp/tmp{'abcdefgh' if n == 7 else 'zyxwvuts'}/x.gguf"
        m = claim(doc, "D2-MATMUL")["checks"][0]["measurements"][0]
        m.update(measured=f"/tmp/pytest-of-ci/pytest-{n}/blob", measured_display=None)
    assert diff_evidence(a, b)["identical"] is True
    b["run"]["facts"]["store root"] = "/srv/ollama/models"  # a real place is a difference
    assert diff_evidence(a, b)["identical"] is False


def test_context_values_are_shown_but_not_counted(make_evidence):
    a, b = make_evidence(), make_evidence()
    # "speedup" is a context value (compared: false), like a hash throughput or archive size.
    m = next(
        x for x in claim(b, "D2-MATMUL")["checks"][0]["measurements"] if x["name"] == "speedup"
    )
    m.update(measured=30.1, measured_display="30.1 x")
    result = diff_evidence(a, b)
    assert result["identical"] is True and result["moved_figures"] == []
    (context,) = result["context_changes"]
    assert context["name"] == "speedup" and context["b"] == 30.1
    assert "context values that differ (not claims' figures, not counted): 1" in (
        format_diff_text(result)
    )
    assert "speedup" in render_diff_html(result, a, b)


def test_measurements_present_in_only_one_run_are_listed(make_evidence):
    a, b = make_evidence(), make_evidence()
    check = claim(b, "D2-MATMUL")["checks"][0]
    check["measurements"].append(
        {"name": "fp16 speedup", "measured": 40.0, "measured_display": "40 x", "holds": True}
    )
    result = diff_evidence(a, b)
    assert result["identical"] is False
    (only,) = result["measurements_only_in_b"]
    assert (only["claim"], only["name"], only["display"]) == ("D2-MATMUL", "fp16 speedup", "40 x")
    assert "measured only in B: 1" in format_diff_text(result)
    assert "fp16 speedup" in render_diff_html(result, a, b)


def test_a_per_document_table_leads_the_diff(make_evidence):
    a, b = make_evidence(), make_evidence()
    claim(b, "D1-RECORDED-TTFT").update(verdict="refuted", reason="moved")
    result = diff_evidence(a, b)
    rows = {d["id"]: d for d in result["documents"]}
    assert set(rows) == {"D1", "D2"}
    assert rows["D1"]["changed"] == 1 and rows["D1"]["regressions"] == 1
    assert rows["D2"]["changed"] == 0 and rows["D2"]["a"] == rows["D2"]["b"]
    assert rows["D1"]["claims_a"] == rows["D1"]["claims_b"] == 10
    text = format_diff_text(result)
    assert text.index(" ! D1") < text.index("verdict changes:")
    html = render_diff_html(result, a, b)
    assert html.index('class="per-document"') < html.index('id="runs"') < html.index('id="changes"')


def test_diff_text_makes_every_field_terminal_safe(make_evidence):
    a, b = make_evidence(), make_evidence()
    claim(b, "D1-RECORDED-TTFT").update(
        verdict="refuted", reason="\x1b]0;owned\x07\x1b[2J\r\u202e\x9b1m\x00"
    )
    b["run"]["machine"]["hostname"] = "spark\x1b[31m"
    text = format_diff_text(diff_evidence(a, b, labels=("a\x1b.json", "b.json")))
    for raw in ("\x1b", "\x07", "\r", "\u202e", "\x9b", "\x00"):
        assert raw not in text
    assert "\\x1b]0;owned" in text and "\\u202e" in text and "a\\x1b.json" in text
