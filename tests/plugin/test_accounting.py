"""The certification with the documents named: their figures accounted for, a note in the
report for a figure the catalog does not account for, and the annotated pages beside the
report (claims.plugin.inputs.account_documents, claims.plugin.writer, the report's view)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import load_catalog
from claims.plugin.inputs import account_documents
from claims.report import render_html
from tests.checkout import ROOT, run_pytest
from tests.report.conftest import build_evidence

DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")
needs_documents = pytest.mark.skipif(
    not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")


def _with_accounting(accounting: dict[str, Any]) -> dict[str, Any]:
    evidence = build_evidence()
    evidence["run"]["inputs"] = {"manifest": None, "transcription": {"ran": False,
                                                                     "reason": "no"},
                                 "accounting": accounting}
    return evidence


def test_the_report_notes_unaccounted_figures_and_links_to_the_pages() -> None:
    page = render_html(_with_accounting({
        "ran": True,
        "documents": [{"id": "W2", "printed": 10, "judged": 4, "recorded": 3, "excluded": 2,
                       "unaccounted": 1, "percent": 90.0}],
        "unaccounted": [{"document": "W2", "file": "000_x.txt", "line": 12, "column": 3,
                         "text": "<b>4.2</b>"}],
        "pages": "report-documents/index.html",
    }))
    assert 'id="accounting"' in page
    assert "1 printed figure of the 10 the documents print is not accounted for" in page
    assert "W2 000_x.txt line 12: &lt;b&gt;4.2&lt;/b&gt;" in page
    assert '<a href="report-documents/index.html" id="accounting-pages">' in page


@pytest.mark.parametrize("pages", ["javascript:alert(1)", "../../etc/index.html", "../index.html",
                                   "https://example.com/x/index.html", None])
def test_the_report_links_only_to_a_folder_beside_it(pages: str | None) -> None:
    page = render_html(_with_accounting({"ran": True, "documents": [], "unaccounted": [],
                                         "pages": pages}))
    assert 'id="accounting"' in page and 'id="accounting-pages"' not in page


def test_a_document_that_cannot_be_accounted_for_is_a_note(tmp_path: Path) -> None:
    (tmp_path / "002_7d36a8153c2e8741.txt").write_bytes(b"\0\1binary")
    result = account_documents(ROOT, tmp_path, load_catalog())
    assert result["ran"] is False
    reason = result.get("reason", "")
    assert "not found" in reason or "not text" in reason
    page = render_html(_with_accounting(dict(result)))
    assert "could not be accounted for" in page


@needs_documents
def test_a_newer_revision_with_a_new_figure_is_counted_in_the_note(tmp_path: Path) -> None:
    assert DOCUMENTS is not None
    catalog = load_catalog()
    before = account_documents(ROOT, Path(DOCUMENTS), catalog)
    docs = tmp_path / "docs"
    shutil.copytree(DOCUMENTS, docs)
    seed = docs / "003_7edf31972a8b2ffd.txt"  # MC's alone
    # A sentence added on a line of its own at the end (the seed ends without a newline):
    # no line above moves, so every anchor and ledger entry still holds.
    text = seed.read_text("utf-8")
    sep = "" if text.endswith("\n") else "\n"
    seed.write_text(text + sep + "Revised: it now loads in 1234567 ms.\n", "utf-8")
    after = account_documents(ROOT, docs, catalog)
    assert after["ran"] is True

    def unaccounted(result: Any) -> dict[str, int]:
        return {d["id"]: d["unaccounted"] for d in result["documents"]}

    assert unaccounted(after) == {**unaccounted(before), "MC": unaccounted(before)["MC"] + 1}
    page = render_html(_with_accounting(dict(after)))
    assert f"MC {unaccounted(after)['MC']}" in page


@needs_documents
@pytest.mark.slow
def test_a_certification_with_documents_writes_the_pages_beside_the_report(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    proc = run_pytest(ROOT, "tests/claims/w1", "-m", "offline", "-n", "0", "--claim", "W1-CPU",
                      "--claims-documents", str(DOCUMENTS),
                      f"--claims-evidence={out / 'evidence.json'}",
                      f"--claims-report-html={out / 'report.html'}")
    assert (out / "report.html").is_file(), proc.stdout[-3000:]
    report = (out / "report.html").read_text("utf-8")
    assert '<a href="report-documents/index.html" id="accounting-pages">' in report
    w1 = (out / "report-documents" / "W1.html").read_text("utf-8")
    assert 'href="../report.html#W1-CPU"' in w1
    assert "documents: " in proc.stdout


def test_the_note_is_a_note_when_figures_are_unaccounted_and_good_when_none() -> None:
    counts = {"id": "W1", "printed": 3, "judged": 1, "recorded": 1, "excluded": 1,
              "percent": 100.0}
    page = render_html(_with_accounting({"ran": True, "unaccounted": [], "pages": None,
                                         "documents": [{**counts, "unaccounted": 0}]}))
    assert 'id="accounting" data-state="good"' in page
    assert "Every one of the 3 figures the documents print is accounted for" in page
    page = render_html(_with_accounting({"ran": True, "unaccounted": [], "pages": None,
                                         "documents": [{**counts, "unaccounted": 1,
                                                        "percent": 66.66}]}))
    assert 'id="accounting" data-state="note"' in page
