"""The report and the diff page opened in a real browser (headless Chromium).

Screenshots of the top of the report and of a diff, the summary's numbers read
back from the rendered page and checked against the evidence.json it came
from, the filters run, long values wrap, and the Content-Security-Policy stops
a script that an escaping slip would have let in.

Needs Debian's ``chromium`` package (``apt-get install -y chromium``, which
``.ci/run`` does); without it these tests are skipped with that reason. Run
them alone with::

    CLAIMS_SCREENSHOTS=reports/screenshots .venv/bin/python -m pytest \\
        -p no:cacheprovider --no-claims-report tests/report/test_chromium.py

``CLAIMS_SCREENSHOTS`` (optional) is a folder that keeps the screenshots
(report-top.png, diff-top.png) to look at. Chromium runs with networking
features off, no name resolution, a dead loopback proxy and a throw-away
profile; the page itself has no external reference (see test_html.py), so
nothing is fetched.
"""

from __future__ import annotations

import html as html_module
import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from claims.evidence import load_evidence
from claims.report import render_html
from claims.report.diff import diff_evidence, render_diff_html
from claims.report.html import content_security_policy

# Subprocesses or timings: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

TIMEOUT_S = 90
WIDTH, HEIGHT = 1400, 1000


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("headless Chromium is not installed (Debian: apt-get install -y chromium)")
    return path


def browse(
    chromium: str, tmp_path: Path, page: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    args = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        # A subprocess escapes pytest-socket's guard: make sure Chromium cannot
        # resolve a name or reach anything but a dead loopback port by itself.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        f"--user-data-dir={tmp_path / 'profile'}",
        *extra,
        page.resolve().as_uri(),
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S)


def screenshot(chromium: str, tmp_path: Path, page: Path, name: str) -> Path:
    """A WIDTH x HEIGHT screenshot of the page's top, kept in $CLAIMS_SCREENSHOTS if set."""
    from PIL import Image  # Pillow comes with matplotlib

    png = tmp_path / name
    size = f"--window-size={WIDTH},{HEIGHT}"
    proc = browse(chromium, tmp_path, page, f"--screenshot={png}", size)
    assert png.exists(), f"no screenshot (exit {proc.returncode}): {proc.stderr[-2000:]}"
    keep = os.environ.get("CLAIMS_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, Path(keep) / name)
    with Image.open(png) as image:
        assert image.size == (WIDTH, HEIGHT)
        rgb = image.convert("RGB")
        colors = rgb.getcolors(maxcolors=1 << 20) or []
        inked = sum(n for n, color in colors if sum(color) < 3 * 235)
    assert len(colors) > 50, "a rendered page has text and badges in many colours"
    assert inked / (WIDTH * HEIGHT) > 0.01, "the page is (nearly) blank"
    return png


def with_probe(html: str, probe: str) -> str:
    """The page with a test script added, and its hash allowed by the page's policy."""
    script = re.search(r"<script>(.*?)</script>", html, re.S)
    assert script is not None
    policy = content_security_policy(script.group(1), probe)
    html = re.sub(r'(http-equiv="Content-Security-Policy" content=")[^"]*', rf"\g<1>{policy}", html)
    return html.replace("</body>", f"<script>{probe}</script></body>")


# Where the page's parts lie once laid out, written into the DOM for --dump-dom.
LAYOUT_PROBE = """window.addEventListener("load", function () {
  function top(sel) { var el = document.querySelector(sel);
    return el ? Math.round(el.getBoundingClientRect().top + window.scrollY) : -1; }
  var out = document.createElement("pre");
  out.id = "layout-probe";
  out.textContent = JSON.stringify({
    outcome: top("#outcome"), filters: top("#filters"), firstDoc: top("section.doc"),
    height: document.documentElement.scrollHeight,
    open: Array.prototype.map.call(document.querySelectorAll("details.claim[open]"),
      function (d) { return d.id; })
  });
  document.body.appendChild(out);
});"""


class _Numbers(HTMLParser):
    """The outcome section's numbers as the browser left them in the DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.pytest: dict[str, int] = {}
        self.verdicts: dict[str, int] = {}
        self.failing: list[str] = []
        self.exit_status: int | None = None
        self._key: tuple[str, str] | None = None
        self._in_exit = False
        self._in_failing: str | None = None
        self._layout: list[str] = []
        self._in_layout = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "span" and a.get("class") == "count":
            if a.get("data-outcome"):
                self._key = ("pytest", str(a["data-outcome"]))
            elif a.get("data-verdict"):
                self._key = ("verdict", str(a["data-verdict"]))
        elif tag == "span" and a.get("id") == "exit-status":
            self._in_exit = True
        elif tag == "li" and a.get("data-verdict") and self._in_failing is None:
            self._in_failing = ""
        elif tag == "a" and self._in_failing == "":
            self._in_failing = str(a.get("href", "")).lstrip("#")
        elif tag == "pre" and a.get("id") == "layout-probe":
            self._in_layout = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "li" and self._in_failing:
            self.failing.append(self._in_failing)
            self._in_failing = None
        if tag == "span" and self._in_exit:
            self._in_exit = False
        if tag == "pre":
            self._in_layout = False

    def handle_data(self, data: str) -> None:
        if self._in_exit and data.strip():
            self.exit_status = int(data)
        if self._in_layout:
            self._layout.append(data)
        if self._key is not None and data.strip().isdigit():
            kind, name = self._key
            (self.pytest if kind == "pytest" else self.verdicts)[name] = int(data)
            self._key = None

    @property
    def layout(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads("".join(self._layout))
        return loaded


@pytest.fixture
def evidence_file(tmp_path, make_evidence) -> Path:
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps(make_evidence(extra_claims=120)), encoding="utf-8")
    return path


def test_top_of_the_report_answers_pass_or_fail_with_numbers_from_the_evidence(
    chromium, tmp_path, evidence_file
):
    evidence = load_evidence(evidence_file)  # what the page is rendered from, read back
    page = tmp_path / "report.html"
    page.write_text(render_html(evidence), encoding="utf-8")
    screenshot(chromium, tmp_path, page, "report-top.png")

    probe_page = tmp_path / "probe.html"
    probe_page.write_text(with_probe(render_html(evidence), LAYOUT_PROBE), encoding="utf-8")
    proc = browse(chromium, tmp_path, probe_page, f"--window-size={WIDTH},{HEIGHT}", "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    numbers = _Numbers()
    numbers.feed(proc.stdout)

    run = evidence["run"]["pytest"]
    assert numbers.exit_status == run["exit_status"] == 1
    assert numbers.pytest == {k: n for k, n in run["counts"].items()}
    assert numbers.verdicts == {v: n for v, n in evidence["summary"]["by_verdict"].items() if n}
    bad = [c["id"] for c in evidence["claims"] if c["verdict"] in ("refuted", "error")]
    assert bad and set(bad) <= set(numbers.failing)

    layout = numbers.layout
    # The answer, then the filter bar, come before the first document's claims,
    # and within the first screen.
    assert 0 <= layout["outcome"] < layout["filters"] < layout["firstDoc"]
    assert layout["outcome"] < HEIGHT / 3 and layout["filters"] < 2 * HEIGHT
    # Only claims to act on are unfolded.
    to_act_on = {
        c["id"]
        for c in evidence["claims"]
        if c["verdict"] in ("refuted", "error", "known-erratum")
        or any(k.get("failure") == "erratum-holds" for k in c["checks"])
    }
    assert set(layout["open"]) == to_act_on


def test_a_diff_of_two_identical_runs_says_identical(chromium, tmp_path, make_evidence):
    a, b = make_evidence(), make_evidence()
    # What differs between two back-to-back runs: timestamps and temporary paths.
    b["run"]["started"] = "2026-11-29T09:00:00+00:00"
    b["run"]["finished"] = "2026-11-29T09:03:30+00:00"
    a["run"]["facts"]["store root"] = "/tmp/pytest-of-ci/pytest-7/store0/models"
    b["run"]["facts"]["store root"] = "/tmp/pytest-of-ci/pytest-8/store0/models"
    result = diff_evidence(a, b, labels=("run-1/evidence.json", "run-2/evidence.json"))
    assert result["identical"] is True
    page = tmp_path / "diff.html"
    page.write_text(render_diff_html(result, a, b), encoding="utf-8")
    screenshot(chromium, tmp_path, page, "diff-top.png")
    proc = browse(chromium, tmp_path, page, "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert 'id="identical"' in dom
    # The per-document table leads the page.
    assert dom.index('class="per-document"') < dom.index('id="runs"') < dom.index('id="moved"')


def test_filters_come_alive_with_javascript(chromium, tmp_path, make_evidence):
    page = tmp_path / "report.html"
    page.write_text(render_html(make_evidence(complete=False)), encoding="utf-8")
    proc = browse(chromium, tmp_path, page, "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    # The script (allowed by its hash) unhides the filter bar and counts the claims.
    assert '<div class="filters" id="filters">' in dom
    assert "showing 18 of 18 claims" in dom


def test_the_policy_stops_a_script_an_escaping_slip_would_let_in(chromium, tmp_path, evidence):
    html = render_html(evidence)
    slip = (
        '<script>document.title = "injected";</script>'
        '<img src="data:," onerror="document.title = \'injected\'">'
    )
    page = tmp_path / "slip.html"
    page.write_text(html.replace("<h1>", slip + "<h1>", 1), encoding="utf-8")
    proc = browse(chromium, tmp_path, page, "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "<title>Claims evidence report" in proc.stdout
    assert "injected</title>" not in proc.stdout
    # The page's own script still ran.
    assert '<div class="filters" id="filters">' in proc.stdout


OVERFLOW_PROBE = """window.addEventListener("load", function () {
  var width = document.documentElement.clientWidth, wide = [];
  document.querySelectorAll("details.claim").forEach(function (d) { d.open = true; });
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.getBoundingClientRect().right > width + 1) {
      wide.push(el.tagName + "." + el.className);
    }
  });
  var out = document.createElement("pre");
  out.id = "overflow-probe";
  out.textContent = "wide:" + wide.slice(0, 10).join(",");
  document.body.appendChild(out);
});"""


def test_long_values_wrap_instead_of_widening_the_page(chromium, tmp_path, make_evidence):
    """No horizontal scrolling at 1280 px, even with long paths and lists in the evidence."""
    evidence = make_evidence()
    long_list = ", ".join(f"model-{i:02d}.safetensors" for i in range(40))
    for claim in evidence["claims"]:
        if claim["id"] == "D1-NOT-SELECTED":
            claim["stated"][0]["display"] = long_list
        if claim["id"] == "D1-RECORDED-TTFT":
            m = claim["checks"][0]["measurements"][0]
            m["stated_display"] = long_list.replace(", ", ",")
            m["measured_display"] = "/tmp/" + "x" * 300 + "/blobs/sha256-" + "a" * 64
    page = tmp_path / "probe.html"
    page.write_text(with_probe(render_html(evidence), OVERFLOW_PROBE), encoding="utf-8")
    proc = browse(chromium, tmp_path, page, "--window-size=1280,2000", "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert '<pre id="overflow-probe">wide:</pre>' in proc.stdout, proc.stdout[-600:]


# The first screen's sentences and every chart's caption, with where each lies once laid out.
WORDS_PROBE = """window.addEventListener("load", function () {
  function where(el) { return Math.round(el.getBoundingClientRect().top + window.scrollY); }
  var words = {};
  document.querySelectorAll("#in-words li").forEach(function (li) {
    words[li.id] = {text: li.textContent, top: where(li), width: li.scrollWidth,
                    room: li.clientWidth};
  });
  var figures = Array.prototype.map.call(document.querySelectorAll("#figures figure"),
    function (f) { var c = f.querySelector(".fig-caption");
      return {id: f.id, caption: c ? c.textContent : ""}; });
  parent.postMessage(JSON.stringify({words: words, figures: figures,
    pageWidth: document.documentElement.scrollWidth, viewWidth: window.innerWidth}), "*");
});"""
# Headless Chromium's window is at least 500 px wide: a phone's width is a frame of that
# width (its own viewport: the page's media queries see 390 px), whose probe posts its
# findings to this page, which --dump-dom prints.
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="probe.html" style="border:0;width:{width}px;height:{height}px"></iframe>
<script>window.addEventListener("message", function (e) {{
  var out = document.createElement("pre"); out.id = "words-probe"; out.textContent = e.data;
  document.body.appendChild(out); }});</script></body></html>"""


@pytest.mark.parametrize(("width", "height"), [(WIDTH, HEIGHT), (390, 844)],
                         ids=["desktop", "phone"])
def test_the_first_screen_says_in_words_what_was_confirmed_and_every_chart_has_a_caption(
    chromium, tmp_path, evidence_file, width, height
):
    evidence = load_evidence(evidence_file)
    (tmp_path / "probe.html").write_text(with_probe(render_html(evidence), WORDS_PROBE),
                                         encoding="utf-8")
    frame = tmp_path / "frame.html"
    frame.write_text(FRAME.format(width=width, height=height), encoding="utf-8")
    proc = browse(chromium, tmp_path, frame, f"--window-size={max(width, 500)},{height}",
                  "--virtual-time-budget=5000", "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'<pre id="words-probe">(.*?)</pre>', proc.stdout, re.S)
    assert found is not None, proc.stdout[-2000:]
    probe = json.loads(html_module.unescape(found.group(1)))
    words = probe["words"]
    counts = evidence["summary"]["by_verdict"]
    here, paper = words["words-here"]["text"], words["words-documents"]["text"]
    assert here.startswith(f"{counts.get('reproduced', 0)} claim")
    assert "confirmed on this machine" in here
    assert paper.startswith(f"{counts.get('consistent', 0)} claim")
    assert "documents' own figures" in paper
    wrong = words["words-wrong"]["text"]
    assert f"{counts.get('refuted', 0)} claim" in wrong
    assert f"{counts.get('known-erratum', 0)} " in wrong
    assert words["words-audit"]["text"].startswith("Audit:")
    assert "need not be" in words["words-inputs"]["text"]
    # On the first screen, and not wider than the screen (a phone too).
    for w in ("words-here", "words-documents", "words-wrong", "words-audit"):
        assert words[w]["top"] < height, (w, words[w]["top"])
        assert words[w]["width"] <= words[w]["room"] + 1, w
    assert probe["viewWidth"] == width and probe["pageWidth"] <= width + 1
    # Every chart is captioned; the odd-looking Gemma bar and the KV chart say why.
    figures = probe["figures"]
    assert figures and all(f["caption"].strip() for f in figures), figures
    captions = " ".join(f["caption"] for f in figures)
    assert "gemma-3-270m-q4_k_m.gguf is at 7.48 bits against a nominal 4 because" in captions
    assert "token_embd.weight" in captions and "the document's printed values" in captions
    plain = tmp_path / "report.html"
    plain.write_text(render_html(evidence), encoding="utf-8")
    if width == WIDTH:  # kept in $CLAIMS_SCREENSHOTS to look at
        screenshot(chromium, tmp_path, plain, "report-words.png")
