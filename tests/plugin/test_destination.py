"""claims.plugin.destination: a certification's reports/ is replaced only by another one."""

from __future__ import annotations

import json
import re

import pytest

from claims.plugin import pytest_private
from claims.plugin.destination import BadExpression, choose_destination, is_certification
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
        # Read as pytest reads -m (its own parser), the tricky ones:
        ("offline and not slow", False, True),
        ("(offline)", False, True),
        ("  offline  ", False, True),
        ("not not offline", False, True),
        ("not ollama", False, False),  # keeps every unmarked test
        ("slow and offline", False, True),  # the slow offline tests: still by tier
        ("not (offline or gpu) or offline", False, False),
        ("offline and not nightly.heavy", False, True),  # one marker name, dot and all
        ("offline-fast", False, False),  # one name, not the offline tier
        ("True or offline", False, True),  # True is a marker name to pytest
        ("offline(reason='x')", False, False),  # keeps no test marked plainly offline
        ("offline(reason='x') or gpu", False, True),
    ],
)
def test_what_is_a_certification(markexpr, live, certifies):
    assert is_certification(markexpr, live) is certifies


@pytest.mark.parametrize(
    ("markexpr", "column"),
    [("offline or", 11), ("offline AND gpu", 9), ("(offline", 9), ("offline)", 8),
     ("not", 4), ("offline(reason=)", 16)],
)
def test_an_expression_pytest_refuses_is_refused_with_its_words(markexpr, column):
    with pytest.raises(BadExpression, match=rf"^{re.escape(markexpr)}: at column {column}: "):
        is_certification(markexpr, False)
    with pytest.raises(BadExpression):  # certification mode reads -m all the same
        is_certification(markexpr, True)


def test_outside_the_tested_pytest_a_run_is_not_taken_for_a_certification(
    tmp_path, monkeypatch
):
    _evidence(tmp_path / "reports" / "evidence.json", "offline")
    assert choose_destination(tmp_path, "offline", False).note is None
    monkeypatch.setattr(pytest_private, "TESTED", ((1, 0), (1, 1)))
    assert is_certification("offline", True)
    aside = choose_destination(tmp_path, "offline", False)
    # The kept certification cannot be read either, so this run writes the default place.
    assert aside.note is None


def test_a_refused_expression_stops_the_run_before_it_starts(claims_pytester):
    claims_pytester.pytester.makepyfile(PASSING_OFFLINE)
    result = claims_pytester.run("-m", "offline AND gpu")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*Wrong expression passed to '-m': offline AND gpu: at column 9: expected end of input;*"]
    )
    assert not claims_pytester.evidence_path.exists()


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
    # A file naming an expression pytest refuses was no certification's.
    _evidence(tmp_path / "reports" / "evidence.json", "offline AND gpu")
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
