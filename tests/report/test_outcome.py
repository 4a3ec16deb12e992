"""The page's first answer: green only when the run checked something it was asked to.

A run whose pytest exit status is 0 can still have decided nothing (every claim not
run or not applicable) or, asked for a live tier, decided nothing live (no server:
0 passed, 56 skipped). Those are amber, with the reason, never "The run passed".
"""

from __future__ import annotations

import copy
from typing import Any

from claims.report.view import build_view

from .conftest import build_evidence


def _passing() -> dict[str, Any]:
    """The made-up run, with its failures taken out: pytest exit status 0."""
    evidence = build_evidence()
    evidence["claims"] = [
        c for c in evidence["claims"] if c["verdict"] not in ("refuted", "error")
        and not any(ch.get("failure") == "erratum-holds" for ch in c["checks"])
    ]
    evidence["run"]["pytest"]["exit_status"] = 0
    return evidence


def _not_run(claim: dict[str, Any], reason: str, tiers: list[str]) -> None:
    claim["verdict"], claim["reason"] = "not-run", reason
    claim["checks"] = [{
        "nodeid": f"tests/x.py::test_{claim['id']}", "outcome": "skipped", "verdict": "not-run",
        "source": "live" if "ollama" in tiers else "fixture", "message": reason,
        "tiers": tiers, "duration_s": 0.0, "measurements": [], "attachments": [],
        "facts": {}, "notes": [], "charts": [],
    }]


def test_a_run_that_decided_something_passes() -> None:
    outcome = build_view(_passing())["outcome"]
    assert outcome["state"] == "passed" and outcome["headline"] == "The run passed"


def test_a_run_that_decided_nothing_is_amber_with_the_reason() -> None:
    evidence = _passing()
    for claim in evidence["claims"]:
        if claim["verdict"] != "untestable":
            _not_run(claim, "no Ollama server at http://127.0.0.1:11434", ["ollama"])
    outcome = build_view(evidence)["outcome"]
    assert outcome["state"] == "undecided"
    assert outcome["headline"] == "Nothing was checked"
    assert "none of the" in outcome["meaning"] and "not run" in outcome["meaning"]


def test_asked_for_a_live_tier_and_decided_nothing_live_is_amber() -> None:
    evidence = _passing()
    evidence["run"]["markexpr"] = "ollama"
    evidence["run"]["tier_status"] = {
        "ollama": {"available": False, "reason": "no Ollama server at http://127.0.0.1:11434"}
    }
    for claim in evidence["claims"]:
        for check in claim["checks"]:
            if check.get("source") == "live":
                check["source"] = "recorded"
    outcome = build_view(evidence)["outcome"]
    assert outcome["state"] == "undecided"
    assert outcome["headline"] == "Nothing was decided live"
    assert "no Ollama server at" in outcome["meaning"]


def test_a_tier_left_out_with_not_is_not_asked_for() -> None:
    evidence = _passing()
    evidence["run"]["markexpr"] = "not ollama"
    assert build_view(evidence)["outcome"]["state"] == "passed"


def test_with_claim_the_deselected_claims_are_not_counted_as_not_run() -> None:
    evidence = _passing()
    everything = build_view(copy.deepcopy(evidence))["outcome"]
    not_run = [c["id"] for c in evidence["claims"] if c["verdict"] == "not-run"]
    assert everything["not_run_total"] == len(not_run) > 1
    evidence["run"]["options"]["claim_ids"] = [not_run[0]]
    outcome = build_view(evidence)["outcome"]
    assert outcome["not_run_total"] == 1
    assert outcome["selected_claims"] == [not_run[0]]


def test_an_offline_check_that_ran_is_not_told_to_run_offline_again() -> None:
    """MC-STORE-DEDUP: its offline check ran and could not decide; the hint names the tier
    that would decide it, not "run pytest -m offline"."""
    evidence = _passing()
    claim = next(c for c in evidence["claims"] if c["verdict"] == "consistent")
    claim["tiers"] = ["offline", "ollama"]
    _not_run(claim, "no two manifests in /tmp/store share a model blob", ["offline"])
    view = build_view(evidence)
    shown = next(c for d in view["documents"] for s in d["sections"] for c in s.claims
                 if c["id"] == claim["id"])
    assert "-m offline" not in (shown["hint"] or "")
    assert "ollama" in (shown["hint"] or "")


def test_the_page_says_what_the_transcriptions_were_checked_against() -> None:
    evidence = _passing()
    evidence["run"]["inputs"] = {
        "manifest": {"manifest": "fixtures/recorded/MANIFEST.sha256", "checked": 24,
                     "problems": []},
        "transcription": {"ran": True, "values": 547, "misplaced": [],
                          "documents": [{"file": "002_x.txt", "sha256": "ab" * 32}]},
    }
    provenance = build_view(evidence)["provenance"]
    assert provenance["Transcribed fixtures"].endswith("unchanged")
    assert f"002_x.txt (SHA-256 {'ab' * 32})" in provenance["Transcription check"]
    evidence["run"]["inputs"]["transcription"] = {"ran": False, "reason": "no documents given"}
    assert build_view(evidence)["provenance"]["Transcription check"] == (
        "not run: no documents given"
    )
