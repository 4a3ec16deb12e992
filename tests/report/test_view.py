"""claims.report.view: the first screen's sentences and the figures derived from printed ones."""

from __future__ import annotations

from claims.report.view import _derived_range, build_view, in_words


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


def test_the_first_screen_in_words():
    totals = {"reproduced": 2, "consistent": 40, "refuted": 1, "known-erratum": 3}
    audit = {"problem": None, "sentence": "50 of 52 stated figures change their verdict when "
             "perturbed", "partial": False}
    words = {w["id"]: w["text"] for w in in_words(totals, audit, None)}
    assert words["words-here"].startswith("2 claims were confirmed on this machine")
    assert words["words-documents"].startswith("40 claims agree only with the documents' own")
    assert words["words-wrong"].startswith("1 claim was refuted and 3 are known errata")
    assert words["words-audit"] == ("Audit: 50 of 52 stated figures change their verdict when "
                                    "perturbed.")
    assert "need not be" in words["words-inputs"]
    ran = {"manifest": None, "transcription": {"ran": True}}
    words = {w["id"]: w["text"] for w in in_words({}, None, ran)}  # type: ignore[arg-type]
    assert words["words-here"].startswith("0 claims")
    assert "none beside this evidence" in words["words-audit"]
    assert "were given" in words["words-inputs"]
