"""claims.inputs.audit_result: the audit result kept for the report, read back."""

from __future__ import annotations

import json
from pathlib import Path

from claims.inputs.audit_digest import audit_digest
from claims.inputs.audit_result import (
    current_audit,
    load_summary,
    print_audit,
    reused_line,
    write_audit,
)

ROOT = Path(__file__).resolve().parents[2]


def result(digest: str) -> dict:
    return {
        "finished": "2026-12-01T10:00:00+00:00",
        "digest": digest,
        "documents": None,
        "selected": None,
        "defects": [],
        "summary": "1 of 2 judged figures change their verdict when perturbed",
        "partial": False,
        "figures": [
            {"claim": "A-B", "figure": "x", "stated": "1", "sensitive": True, "reason": None},
            {"claim": "A-B", "figure": "y", "stated": "2", "sensitive": False, "reason": "live"},
        ],
        "transcriptions": {"values": 3, "mutations": 9, "caught": 9},
    }


def test_summary_of_this_checkouts_audit(tmp_path):
    digest = audit_digest(ROOT)
    write_audit(tmp_path / "audit.json", result(digest))
    summary = load_summary(tmp_path / "audit.json", ROOT)
    assert summary is not None
    assert (summary["total"], summary["sensitive"], summary["stale"]) == (2, 1, False)
    assert summary["digest"] == digest
    assert summary["insensitive"] == [
        {"claim": "A-B", "figure": "y", "stated": "2", "reason": "live"}
    ]


def test_an_audit_of_another_checkout_is_stale_and_garbage_is_a_problem(tmp_path):
    write_audit(tmp_path / "audit.json", result("0" * 64))
    summary = load_summary(tmp_path / "audit.json", ROOT)
    assert summary is not None and summary["stale"] is True
    del_digest = {k: v for k, v in result("x").items() if k != "digest"}
    write_audit(tmp_path / "old.json", del_digest)  # kept before audits carried a digest
    assert (load_summary(tmp_path / "old.json", ROOT) or {})["stale"] is True
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe not json")
    problem = {"problem": "bad.json is not an audit result"}
    assert load_summary(tmp_path / "bad.json", ROOT) == problem
    (tmp_path / "list.json").write_text(json.dumps([1, 2]), "utf-8")
    assert "problem" in (load_summary(tmp_path / "list.json", ROOT) or {})
    assert load_summary(tmp_path / "absent.json", ROOT) is None


def test_a_kept_audit_is_current_only_for_the_same_checkout_documents_and_claims(tmp_path):
    path = tmp_path / "audit.json"
    write_audit(path, result("d" * 64))
    assert current_audit(path, "d" * 64, None, None) is not None
    assert current_audit(path, "e" * 64, None, None) is None  # another checkout
    assert current_audit(path, "d" * 64, "f" * 64, None) is None  # now with documents
    assert current_audit(path, "d" * 64, None, ["W1-X"]) is None  # some claims only
    write_audit(path, {**result("d" * 64), "selected": ["W1-X"], "partial": True})
    assert current_audit(path, "d" * 64, None, ["W1-X"]) is not None
    assert current_audit(path, "d" * 64, None, None) is None
    # A result that lacks what the terminal prints is rerun, not trusted.
    write_audit(path, {**result("d" * 64), "summary": None})
    assert current_audit(path, "d" * 64, None, None) is None
    assert current_audit(tmp_path / "absent.json", "d" * 64, None, None) is None
    line = reused_line(result("d" * 64))
    assert "reused the result kept, made 2026-12-01T10:00:00+00:00" in line
    assert "dddddddddddd" in line


def test_the_printout_lists_what_was_perturbed_by_kind_above_the_three_summary_lines(capsys):
    printed = {
        **result("0" * 64),
        "summary": "1 of 2 judged figures change their verdict when perturbed",
        "slips": {"unit": {"cases": 2, "caught": 1}, "scope": {"cases": 2, "caught": 0}},
        "explained": 1,
        "defects": [],
        "perturbed": {"moved up": 1, "corrected to the measurement": 1},
    }
    for fig in printed["figures"]:
        fig.update(before="consistent", after="refuted", how="moved up", perturbed="3")
    printed["figures"][0]["slips"] = [
        {"kind": "unit", "slipped": "3 GB", "after": "refuted", "caught": True, "why": None},
        {"kind": "scope", "slipped": "3 for dgx-spark", "after": "consistent", "caught": False,
         "why": "judged on the document's own records"},
    ]
    printed["transcriptions"] = {
        "values": 3,
        "mutations": 9,
        "caught": 9,
        "survivors": [],
        "by_kind": {
            "digit +1": {"mutations": 5, "caught": 5},
            "unit": {"mutations": 4, "caught": 4},
        },
    }
    print_audit(printed)
    lines = capsys.readouterr().out.splitlines()
    # A slip that moved nothing is listed under its figure, with why.
    assert "scope slip" in lines[1] and "judged on the document's own records" in lines[1]
    assert lines[3] == "stated figures perturbed: 1 moved up, 1 corrected to the measurement"
    assert lines[4] == "figures slipped: 1 of 2 unit slips caught, 0 of 2 scope slips caught"
    assert lines[5] == "transcribed values changed: 5 of 5 digit +1 caught, 4 of 4 unit caught"
    assert lines[-3] == printed["summary"]
    assert lines[-1].startswith("transcribed values: 9 of 9 changed digits or letters caught")
