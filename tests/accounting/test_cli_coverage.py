"""``python -m claims coverage`` (claims.cli, claims.accounting.text_report)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from claims.cli import main

DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")
needs_documents = pytest.mark.skipif(
    not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")


def test_without_documents_it_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CLAIMS_DOCUMENTS", raising=False)
    assert main(["coverage"]) == 2
    err = capsys.readouterr().err
    assert "no documents folder given (--claims-documents DIR or $CLAIMS_DOCUMENTS)" in err
    assert "Traceback" not in err


def test_an_unknown_document_or_percent_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", "--document", "W9"]) == 2
    assert "unknown document(s) W9" in capsys.readouterr().err
    assert main(["coverage", "--fail-under", "101"]) == 2


@needs_documents
def test_table_json_missing_and_fail_under(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    out = tmp_path / "coverage.json"
    assert main(["coverage", "--claims-documents", str(DOCUMENTS), "--json", str(out),
                 "--show-missing", "--fail-under", "0"]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text("utf-8"))
    assert [d["id"] for d in data["documents"]] == ["W1", "W2", "W3", "W4", "MC"]
    totals = data["totals"]
    assert totals["printed"] == sum(totals[s] for s in
                                    ("judged", "recorded", "excluded", "unaccounted"))
    assert totals["printed"] == len(data["figures"])
    assert any(line.split()[:2] == ["TOTAL", str(totals["printed"])] for line in text.splitlines())
    missing = [f for f in data["figures"] if f["status"] == "unaccounted"]
    for f in missing[:5]:
        assert f"{f['file']}:{f['line']}:{f['column']}" in text
    if missing:
        assert main(["coverage", "--claims-documents", str(DOCUMENTS),
                     "--fail-under", "100"]) == 1
        assert "under --fail-under 100" in capsys.readouterr().err


@needs_documents
def test_html_writes_the_annotated_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no reports/evidence.json here: pages without verdicts
    out = tmp_path / "pages"
    assert main(["coverage", "--claims-documents", str(DOCUMENTS), "--document", "W1",
                 "--html", str(out)]) == 0
    assert f"annotated documents written: {out / 'index.html'}" in capsys.readouterr().out
    w1 = (out / "W1.html").read_text("utf-8")
    assert 'id="no-evidence"' in w1 and 'href="../reports/report.html#W1-CPU"' in w1
    assert "No evidence at reports/evidence.json" in (out / "index.html").read_text("utf-8")
    # An evidence file named but missing is an error naming it.
    assert main(["coverage", "--claims-documents", str(DOCUMENTS), "--document", "W1",
                 "--html", str(out), "--claims-evidence", "nowhere.json"]) == 2
    assert "nowhere.json" in capsys.readouterr().err
