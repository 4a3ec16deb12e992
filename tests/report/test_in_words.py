"""claims.report.in_words: the first screen's sentences."""

from __future__ import annotations

from claims.report.in_words import in_words


def test_the_first_screen_in_words():
    totals = {"reproduced": 2, "consistent": 40, "refuted": 1, "known-erratum": 3}
    audit = {"problem": None, "sentence": "50 of 52 stated figures change their verdict when "
             "perturbed", "partial": False, "stale": False, "finished": "2026-12-01T10:00",
             "digest": "0123456789ab"}
    words = {w["id"]: w["text"] for w in in_words(totals, audit, None)}
    assert words["words-here"].startswith("2 claims were confirmed on this machine")
    assert words["words-documents"].startswith("40 claims agree only with the documents' own")
    assert words["words-wrong"].startswith("1 claim was refuted and 3 are known errata")
    assert words["words-audit"] == ("Audit: 50 of 52 stated figures change their verdict when "
                                    "perturbed (audit of 2026-12-01T10:00, checkout digest "
                                    "0123456789ab).")
    # An audit of another checkout is named, and its numbers are not shown as this one's.
    stale = {w["id"]: w["text"] for w in in_words(totals, {**audit, "stale": True}, None)}
    assert stale["words-audit"].startswith("Audit: none matches this checkout")
    assert "0123456789ab" in stale["words-audit"] and "50 of 52" not in stale["words-audit"]
    assert "need not be" in words["words-inputs"]
    ran = {"manifest": None, "transcription": {"ran": True}}
    words = {w["id"]: w["text"] for w in in_words({}, None, ran)}  # type: ignore[arg-type]
    assert words["words-here"].startswith("0 claims")
    assert "none beside this evidence" in words["words-audit"]
    assert "were given" in words["words-inputs"]
