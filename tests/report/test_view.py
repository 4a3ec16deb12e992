"""claims.report.view: figures derived from printed ones, shown readably."""

from __future__ import annotations

from claims.report.view import _derived_range, build_view


def test_a_derived_range_is_shown_at_the_precision_that_tells_its_ends_apart():
    value = {"lo": 129.385889792, "hi": 130.996502528}
    assert _derived_range(value, "GB") == "129.4 to 131.0 GB"
    assert _derived_range({"lo": 22.48403908794788, "hi": 22.514677103718196}, "x") == (
        "22.484 to 22.515 x"
    )
    assert _derived_range({"lo": 5, "hi": 5}, "GB") is None  # one value: as it is
    assert _derived_range(3.0, "GB") is None


def test_the_recorded_table_shows_a_derived_range_readably(make_evidence):
    evidence = make_evidence()
    claim = next(c for c in evidence["claims"] if any(
        k["source"] == "recorded" and k["measurements"] for k in c["checks"]))
    check = next(k for k in claim["checks"] if k["source"] == "recorded" and k["measurements"])
    check["measurements"][0]["measured"] = {"lo": 129.385889792, "hi": 130.996502528}
    check["measurements"][0].pop("measured_display", None)
    view = build_view(evidence)
    rows = [r for d in view["documents"] for s in d["sections"] for c in s.claims
            if c["id"] == claim["id"] for t in c["tables"] if t["source"] == "recorded"
            for r in t["rows"]]
    assert any(r["measured"].startswith("129.4 to 131.0") for r in rows), rows
    assert any("derived from the document's printed figures" in (r["note"] or "") for r in rows)
