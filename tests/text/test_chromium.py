"""The annotated documents opened in headless Chromium: every figure marked, every judged
mark's link landing on its claim in a real report, no script from a document run.

Skipped without Chromium, as tests/report/test_chromium.py is (whose launcher this uses:
no network, a throw-away profile). ``CLAIMS_SCREENSHOTS=DIR`` keeps a screenshot of the
annotated page (documents-top.png).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from claims.report import render_html
from claims.text.html import page_name, verdicts_of, write_pages
from claims.text.measure import account
from tests.report.conftest import build_evidence
from tests.report.test_chromium import browse, chromium, screenshot  # noqa: F401 (fixture)
from tests.text.conftest import Toy
from tests.text.test_html import HOSTILE, Marks

pytestmark = pytest.mark.slow


class Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(v for k, v in attrs if k == "id" and v)
        self.scripts += tag == "script"


def _evidence() -> dict[str, Any]:
    """The report tests' evidence, two of its claims renamed to the toy catalog's."""
    evidence = build_evidence()
    renamed = {"D1-COLD-WARM": "T2-SUM", "D1-REFUTED": "T3-COST"}
    for claim in evidence["claims"]:
        claim["id"] = renamed.get(claim["id"], claim["id"])
    return evidence


def test_pages_render_with_every_mark_and_each_link_resolves(
    chromium: str, toy: Toy, tmp_path: Path  # noqa: F811 (the imported fixture)
) -> None:
    feed = toy.seeds / "feed.txt"
    feed.write_text(feed.read_text("utf-8").replace("Feed header", HOSTILE), "utf-8")
    reports = tmp_path / "reports"
    reports.mkdir()
    evidence = _evidence()
    report = reports / "report.html"
    report.write_text(render_html(json.loads(json.dumps(evidence))), "utf-8")
    report_ids = Ids()
    report_ids.feed(report.read_text("utf-8"))
    acc = account(toy.catalog, toy.seeds, toy.root, catalog_dir=toy.catalog_dir)
    out = reports / "report-documents"
    write_pages(acc, out, verdicts_of(evidence), report)

    for d in acc.documents:
        page = out / page_name(d.document.id)
        proc = browse(chromium, tmp_path, page, "--dump-dom")
        assert proc.returncode == 0, proc.stderr[-2000:]
        dom = proc.stdout
        marks = Marks()
        marks.feed(dom)
        # Every figure is marked, in the order printed, with its status.
        assert [(m["text"], m["class"].split()[1]) for m in marks.marks] == [
            (f.at.text, f.status) for f in d.figures]
        ids = Ids()
        ids.feed(dom)
        assert ids.scripts == 0  # the page has no script; a document's never became one
        assert f"<title>{d.document.id}: {d.document.title}" in dom  # not "pwned"
        judged = [m for m in marks.marks if m["class"].split()[1] == "judged"]
        assert judged
        for m in judged:
            link = urlsplit(m["href"])
            target = (page.parent / unquote(link.path)).resolve()
            assert target == report.resolve(), m["href"]
            assert link.fragment in report_ids.ids, f"{m['href']}: no such claim in the report"
            assert f"v-{evidence_verdict(evidence, link.fragment)}" in m["class"].split()
    screenshot(chromium, tmp_path, out / "T2.html", "documents-top.png")


def evidence_verdict(evidence: dict[str, Any], claim: str) -> str:
    return str(next(c["verdict"] for c in evidence["claims"] if c["id"] == claim))
