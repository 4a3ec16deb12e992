"""The annotated documents (claims.text.html), read as markup."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

from claims.text.html import INDEX, page_name, render_document, render_index, write_pages
from claims.text.measure import Accounting, account
from tests.text.conftest import UNTESTABLE_ANCHOR, UNTESTABLE_CLAIM, Toy

HOSTILE = ('<script>document.title="pwned"</script> <img src=x onerror="alert(1)"> '
           '\u202e 99 bottles\x1b[31m')


class Marks(HTMLParser):
    """Every figure mark of a page (class ``f``) with its attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.marks: list[dict[str, str]] = []
        self.tags: list[str] = []
        self._open: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        a = {k: v or "" for k, v in attrs}
        if "f" in a.get("class", "").split() and "data-line" in a:
            self._open = {"tag": tag, **a, "text": ""}

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open["text"] += data

    def handle_endtag(self, tag: str) -> None:
        if self._open is not None and tag == self._open["tag"]:
            self.marks.append(self._open)
            self._open = None


def marks_of(html: str) -> Marks:
    parser = Marks()
    parser.feed(html)
    return parser


def _accounting(toy: Toy) -> Accounting:
    toy.ledger("T2", '[[ledger]]\nseed = "feed.txt"\nline = 3\nkind = "structure"\n'
               'reason = "the series\' numbering & <the> date"\n')
    return account(toy.catalog, toy.seeds, toy.root, catalog_dir=toy.catalog_dir)


def test_each_figure_is_marked_as_accounted_and_judged_ones_link_to_their_claim(
    toy: Toy,
) -> None:
    acc = _accounting(toy)
    t2 = acc.documents[0]
    html = render_document(acc, t2, {"T2-SUM": "reproduced"}, "../report.html")
    marks = marks_of(html).marks
    assert [m["text"] for m in marks] == [f.at.text for f in t2.figures]
    by_text: dict[str, dict[str, str]] = {}
    for m in marks:  # the first printing of each (copy.txt prints 4.0 again, unaccounted)
        by_text.setdefault(m["text"], m)
    judged = by_text["4.0"]
    assert judged["tag"] == "a" and judged["href"] == "../report.html#T2-SUM"
    assert "v-reproduced" in judged["class"].split()
    assert "T2-SUM" in judged["title"] and "reproduced" in judged["title"]
    assert "recorded" in by_text["42"]["class"].split()
    assert by_text["2026-07-19"]["title"] == ("excluded (structure): the series' numbering "
                                              "& <the> date")
    unaccounted = [m for m in marks if "unaccounted" in m["class"].split()]
    assert [m["id"] for m in unaccounted] == [f"u-{i}" for i in range(1, len(unaccounted) + 1)]
    assert len(unaccounted) == t2.count("unaccounted")
    # T3's lines of the shared seed are left out, a gap row standing for them.
    assert "It costs 7 GB" not in html and "…" in html


def test_an_untestable_claim_s_figure_links_to_its_claim_with_the_reason(toy: Toy) -> None:
    toy.claim("T3", UNTESTABLE_CLAIM, UNTESTABLE_ANCHOR)
    acc = _accounting(toy)
    t3 = acc.documents[1]
    html = render_document(acc, t3, {"T3-COST": "reproduced", "T3-TIME": "untestable"},
                           "../report.html")
    twelve = next(m for m in marks_of(html).marks if m["text"] == "12")
    assert twelve["tag"] == "a" and twelve["href"] == "../report.html#T3-TIME"
    assert twelve["class"].split() == ["f", "untestable"]
    assert twelve["title"] == ("untestable: T3-TIME (time): "
                               "A made-up duration no machine here could time.")
    assert "1 untestable" in html
    index = render_index(acc, "")
    head = re.findall(r'<th class="num">([^<]*)</th>', index)[:7]
    assert head == ["Printed", "Judged", "Recorded", "Untestable", "Excluded", "Unaccounted",
                    "Accounted"]
    row = re.search(r'<tr data-document="T3">(.*?)</tr>', index, re.S)
    assert row and re.findall(r'<td class="num">([^<]*)</td>', row[1])[:6] == [
        "2", "1", "0", "1", "0", "0"]


def test_without_evidence_the_page_says_so_and_marks_carry_no_verdict(toy: Toy) -> None:
    acc = _accounting(toy)
    html = render_document(acc, acc.documents[0], None, "report.html")
    assert 'id="no-evidence"' in html
    judged = [m for m in marks_of(html).marks if "judged" in m["class"].split()]
    assert judged and not any(c.startswith("v-") for m in judged for c in m["class"].split())


def test_document_text_is_escaped_and_no_script_may_run(toy: Toy) -> None:
    feed = toy.seeds / "feed.txt"
    feed.write_text(feed.read_text("utf-8").replace("Feed header", HOSTILE), "utf-8")
    acc = _accounting(toy)
    html = render_document(acc, acc.documents[0], {}, "report.html")
    parser = marks_of(html)
    assert "script" not in parser.tags and "img" not in parser.tags
    assert "&lt;script&gt;" in html
    assert "\u202e" not in html and "\x1b" not in html  # shown as visible escapes
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert csp is not None
    policy = unescape(csp.group(1))
    assert "default-src 'none'" in policy and "script-src 'none'" in policy
    # The hostile line's figure is still marked (it is a figure like any other).
    assert "99" in [m["text"] for m in parser.marks]


def test_write_pages_links_index_pages_and_report(toy: Toy, tmp_path: Path) -> None:
    acc = _accounting(toy)
    out = tmp_path / "reports" / "report-documents"
    index = write_pages(acc, out, {"T2-SUM": "refuted"}, tmp_path / "reports" / "report.html")
    assert index == out / INDEX
    text = index.read_text("utf-8")
    for d in acc.documents:
        assert f'href="{page_name(d.document.id)}"' in text
        assert (out / page_name(d.document.id)).is_file()
    page = (out / "T2.html").read_text("utf-8")
    assert 'href="../report.html#T2-SUM"' in page and f'href="{INDEX}"' in page
