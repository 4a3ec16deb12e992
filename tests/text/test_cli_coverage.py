"""``python -m claims coverage`` (claims.cli, claims.text.text_report)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.cli import main
from claims.text.measure import STATUSES

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")
needs_documents = pytest.mark.skipif(
    not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")


def test_without_documents_it_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
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
    monkeypatch.chdir(ROOT)
    out = tmp_path / "coverage.json"
    assert main(["coverage", "--claims-documents", str(DOCUMENTS), "--json", str(out),
                 "--show-missing", "--fail-under", "0"]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text("utf-8"))
    assert [d["id"] for d in data["documents"]] == [d.id for d in load_catalog().documents]
    totals = data["totals"]
    assert totals["printed"] == sum(totals[s] for s in STATUSES)
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
    import claims.cli
    from tests.report.conftest import build_evidence

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(claims.cli, "DEFAULT_EVIDENCE", tmp_path / "none" / "evidence.json")
    out = tmp_path / "pages"
    args = ["coverage", "--claims-documents", str(DOCUMENTS), "--document", "W1",
            "--html", str(out)]
    assert main(args) == 0
    assert f"annotated documents written: {out / 'index.html'}" in capsys.readouterr().out
    w1 = (out / "W1.html").read_text("utf-8")
    assert 'id="no-evidence"' in w1 and 'href="../none/report.html#W1-CPU"' in w1
    assert "verdicts are not shown" in (out / "index.html").read_text("utf-8")
    # With evidence: its verdicts, and links into the report beside it.
    evidence = build_evidence()
    evidence["claims"][0]["id"] = "W1-CPU"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "evidence.json").write_text(json.dumps(evidence), "utf-8")
    assert main([*args, "--claims-evidence", str(tmp_path / "run" / "evidence.json")]) == 0
    w1 = (out / "W1.html").read_text("utf-8")
    assert 'id="no-evidence"' not in w1
    verdict = evidence["claims"][0]["verdict"]
    assert f'class="f judged v-{verdict}" href="../run/report.html#W1-CPU"' in w1
    # An evidence file named but missing is an error naming it.
    assert main([*args, "--claims-evidence", "nowhere.json"]) == 2
    assert "nowhere.json" in capsys.readouterr().err


def test_outside_a_checkout_it_says_where_to_run_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["coverage", "--claims-documents", str(tmp_path)]) == 2
    assert "run it from a checkout of the suite" in capsys.readouterr().err
