"""The report opens in a real browser: headless Chromium takes a screenshot and runs the filters.

Needs Debian's ``chromium`` package (``apt-get install -y chromium``); without
it these tests are skipped with that reason (CI images usually lack it). Run
them alone with::

    CLAIMS_SCREENSHOT=reports/report-screenshot.png .venv/bin/python -m pytest \\
        -p no:cacheprovider --no-claims-report tests/report/test_chromium.py

``CLAIMS_SCREENSHOT`` (optional) keeps a copy of the screenshot to look at.
Chromium runs with networking features off, no name resolution, a dead
loopback proxy and a throw-away profile; the page itself has no external
reference (see test_html.py), so nothing is fetched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from claims.report import render_html

TIMEOUT_S = 90
WIDTH, HEIGHT = 1280, 2000


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
        # A subprocess escapes pytest-socket's guard: make sure Chromium cannot
        # resolve a name or reach anything but a dead loopback port by itself.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        f"--user-data-dir={tmp_path / 'profile'}",
        *extra,
        page.resolve().as_uri(),
    ]
    return subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S)


@pytest.fixture
def report_file(tmp_path, make_evidence) -> Path:
    path = tmp_path / "report.html"
    path.write_text(render_html(make_evidence(complete=False)), encoding="utf-8")
    return path


def test_screenshot_of_the_report_is_not_blank(chromium, tmp_path, report_file):
    from PIL import Image  # Pillow comes with matplotlib

    png = tmp_path / "report.png"
    proc = browse(
        chromium, tmp_path, report_file, f"--screenshot={png}", f"--window-size={WIDTH},{HEIGHT}"
    )
    assert png.exists(), f"no screenshot (exit {proc.returncode}): {proc.stderr[-2000:]}"
    keep = os.environ.get("CLAIMS_SCREENSHOT")
    if keep:
        Path(keep).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, keep)
    with Image.open(png) as image:
        assert image.size == (WIDTH, HEIGHT)
        rgb = image.convert("RGB")
        colors = rgb.getcolors(maxcolors=1 << 20) or []
        inked = sum(n for n, color in colors if sum(color) < 3 * 235)
    assert len(colors) > 50, "a rendered report has text, badges and plots in many colours"
    assert inked / (WIDTH * HEIGHT) > 0.02, "the page is (nearly) blank"


def test_filters_come_alive_with_javascript(chromium, tmp_path, report_file):
    proc = browse(chromium, tmp_path, report_file, "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    # The script unhides the filter bar and counts the claims it can filter.
    assert '<div class="filters" id="filters">' in dom
    assert "showing 18 of 18 claims" in dom


OVERFLOW_PROBE = """<script>
window.addEventListener("load", function () {
  var width = document.documentElement.clientWidth, wide = [];
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.getBoundingClientRect().right > width + 1) {
      wide.push(el.tagName + "." + el.className);
    }
  });
  var out = document.createElement("pre");
  out.id = "overflow-probe";
  out.textContent = "wide:" + wide.slice(0, 10).join(",");
  document.body.appendChild(out);
});
</script></body>"""


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
    page.write_text(render_html(evidence).replace("</body>", OVERFLOW_PROBE), encoding="utf-8")
    proc = browse(chromium, tmp_path, page, f"--window-size={WIDTH},{HEIGHT}", "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert '<pre id="overflow-probe">wide:</pre>' in proc.stdout, proc.stdout[-600:]
