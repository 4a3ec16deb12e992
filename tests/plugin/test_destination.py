"""claims.plugin.destination: a certification's reports/ is replaced only by another one."""

from __future__ import annotations

import json

import pytest

from claims.plugin.destination import choose_destination, is_certification
from tests.plugin.test_plugin import PASSING_OFFLINE


@pytest.mark.parametrize(
    ("markexpr", "live", "certifies"),
    [
        ("offline", False, True),
        ("gpu or offline", False, True),
        ("(offline or engine) and not slow", False, True),
        ("", True, True),  # certification mode
        ("", False, False),  # the whole suite
        ("not slow", False, False),  # the quick loop
        ("slow", False, False),  # leaves unmarked tests out, but names no tier
        ("offline or not slow", False, False),
        ("offline or", False, False),  # not an expression pytest runs
    ],
)
def test_what_is_a_certification(markexpr, live, certifies):
    assert is_certification(markexpr, live) is certifies


def _evidence(path, markexpr):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"run": {"markexpr": markexpr, "started": "2026-12-04T20:00:00Z",
                                        "options": {"require_live": False}}}), "utf-8")


def test_another_run_writes_beside_a_certification(tmp_path):
    assert choose_destination(tmp_path, "", False).note is None  # nothing there yet
    _evidence(tmp_path / "reports" / "evidence.json", "offline")
    aside = choose_destination(tmp_path, "not slow", False)
    assert aside.evidence == tmp_path / "reports" / "last-run" / "evidence.json"
    assert aside.report == tmp_path / "reports" / "last-run" / "report.html"
    assert aside.note and "-m 'offline'" in aside.note
    # A certification replaces it; a run's evidence that was no certification is replaced.
    assert choose_destination(tmp_path, "offline", False).note is None
    _evidence(tmp_path / "reports" / "evidence.json", "")
    assert choose_destination(tmp_path, "", False).note is None


def test_a_whole_suite_run_leaves_the_certifications_report(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    assert claims_pytester.run("-m", "offline").ret == 0
    certified = claims_pytester.evidence_path.read_bytes()
    result = claims_pytester.run()
    assert result.ret == 0
    assert claims_pytester.evidence_path.read_bytes() == certified
    aside = claims_pytester.pytester.path / "reports" / "last-run"
    assert (aside / "evidence.json").is_file() and (aside / "report.html").is_file()
    result.stdout.fnmatch_lines(["note:*holds a certification's evidence (-m 'offline'*"])
