"""`python -m claims report` and `python -m claims diff`, run as a user runs them.

The first test drives the whole path: a pytest run with the claims plugin
writes evidence and its report; the CLI re-renders the same page from that
evidence; a second run whose measurement changed is compared with the first.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Subprocesses or timings: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

TIMEOUT_S = 120

# The toy catalog of the suite's own tests (its first claim, T1-SUM, is the one run here).
CATALOG = Path(__file__).resolve().parents[1] / "toy_catalog" / "T1.toml"

TEST_FILE = """
import pytest

pytestmark = pytest.mark.offline

@pytest.mark.claim("T1-SUM")
def test_sum(check):
    check.attach("working", "2 + 2 = {value}")
    check.chart("matmul", [{{"device": "cpu", "precision": "fp32", "tflops": {value}, "ms": 1.0}}])
    check.against("sum", {value})
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=TIMEOUT_S, cwd=cwd
    )


def pytest_run(tmp_path: Path, name: str, value: float) -> tuple[Path, Path]:
    work = tmp_path / name
    work.mkdir()
    shutil.copyfile(CATALOG, work / "catalog.toml")
    (work / "test_sum.py").write_text(
        textwrap.dedent(TEST_FILE.format(value=value)), encoding="utf-8"
    )
    evidence, report = work / "evidence.json", work / "report.html"
    proc = run(
        "-m",
        "pytest",
        "-p",
        "claims.plugin",
        "-p",
        "no:cacheprovider",
        "-q",
        "--strict-markers",
        "--claims-catalog",
        "catalog.toml",
        "--claims-evidence",
        str(evidence),
        "--claims-report-html",
        str(report),
        "test_sum.py",
        cwd=work,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return evidence, report


def test_pytest_run_report_and_diff_end_to_end(tmp_path, audit):
    ev_a, page_a = pytest_run(tmp_path, "a", 4.0)
    ev_b, _ = pytest_run(tmp_path, "b", 5.0)  # the sum no longer holds: a regression

    out = tmp_path / "again.html"
    proc = run("-m", "claims", "report", str(ev_a), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text("utf-8")
    # The plugin and the CLI render the same page from the same evidence.
    assert html == page_a.read_text("utf-8")
    assert 'id="T1-SUM"' in html and "an opinion" in html and "<svg" in html
    assert audit(html).problems == []

    proc = run("-m", "claims", "diff", str(ev_a), str(ev_b), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "T1-SUM  consistent -> refuted  [regression]" in proc.stdout
    assert "T1-SUM  sum: 4 -> 5  (+25.0%)" in proc.stdout

    side_by_side = tmp_path / "diff.html"
    proc = run(
        "-m",
        "claims",
        "diff",
        str(ev_a),
        str(ev_b),
        "--json",
        "-o",
        str(side_by_side),
        "--fail-on-regression",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, "a regression fails the diff under --fail-on-regression"
    result = json.loads(proc.stdout)
    assert [c["id"] for c in result["regressions"]] == ["T1-SUM"]
    assert audit(side_by_side.read_text("utf-8")).problems == []

    proc = run("-m", "claims", "diff", str(ev_a), str(ev_a), "--fail-on-regression", cwd=tmp_path)
    assert proc.returncode == 0 and "identical:" in proc.stdout


HOSTILE_TEST_FILE = """
import pytest

pytestmark = pytest.mark.offline

# What a buggy or hostile server can put in a reply: an unpaired surrogate (JSON's
# "\\ud83d" decodes to one), terminal control sequences, bidi overrides, NaN.
REPLY = "hi \\ud83d there \\x1b]0;owned\\x07 \\x1b[2J \\u202e \\x9b31m \\r\\x00"

@pytest.mark.claim("T1-SUM")
def test_sum(check):
    check.attach("reply", REPLY)
    check.fact("server said", REPLY)
    check.observe("reply text", REPLY)
    check.observe("tokens per second", float("nan"), unit="tok/s")
    check.against("sum", 4.0)
"""


def test_a_run_fed_surrogates_controls_and_nan_keeps_complete_evidence(tmp_path, audit):
    work = tmp_path / "hostile"
    work.mkdir()
    shutil.copyfile(CATALOG, work / "catalog.toml")
    (work / "test_sum.py").write_text(textwrap.dedent(HOSTILE_TEST_FILE), encoding="utf-8")
    evidence, report = work / "evidence.json", work / "report.html"
    proc = run(
        "-m", "pytest", "-p", "claims.plugin", "-p", "no:cacheprovider", "-q",
        "--claims-catalog", "catalog.toml", "--claims-evidence", str(evidence),
        "--claims-report-html", str(report),
        "test_sum.py", cwd=work,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    text = evidence.read_text("utf-8")  # strict UTF-8: no surrogate made it in
    doc = json.loads(text, parse_constant=lambda t: pytest.fail(f"non-JSON token {t}"))
    assert doc["run"]["complete"] is True
    claim = next(c for c in doc["claims"] if c["id"] == "T1-SUM")
    # The NaN is the probe's failure: nothing was decided, and the page says so.
    assert claim["verdict"] == "error"
    assert "non-finite measurement of tokens per second" in claim["reason"]
    assert "hi \ufffd there" in claim["checks"][0]["attachments"][0]["content"]
    # ... and pytest says so too: the test errs, the run fails.
    assert doc["run"]["pytest"]["counts"]["failed"] == 1
    assert doc["run"]["pytest"]["exit_status"] == proc.returncode == 1
    assert "NonFiniteMeasurement: probe error" in proc.stdout
    html = report.read_text("utf-8")
    assert "nan tok/s" not in html.replace("non-finite", "")
    assert audit(html).problems == []

    # The diff's text output neutralises what the evidence carries.
    proc = run("-m", "claims", "diff", str(evidence), str(evidence), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # Edited alike in the claim and its checks: a claim verdict its checks contradict
    # is refused at load (issue 22).
    doc["claims"][0]["verdict"] = "consistent"
    for c in doc["claims"][0]["checks"]:
        c["verdict"] = "consistent"
    before = tmp_path / "before.json"
    before.write_text(json.dumps(doc), encoding="utf-8")
    doc["claims"][0]["reason"] = "evil \x1b]8;;http://x\x07link\x1b]8;;\x07 \u202e \x9b2J"
    doc["claims"][0]["verdict"] = "refuted"
    for c in doc["claims"][0]["checks"]:
        c["verdict"] = "refuted"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(doc), encoding="utf-8")
    proc = run("-m", "claims", "diff", str(before), str(other), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "\\x1b]8;;http://x" in proc.stdout
    for raw in ("\x1b", "\x07", "\u202e", "\x9b", "\x00", "\r"):
        assert raw not in proc.stdout, repr(raw)


def test_report_of_a_file_with_escaped_surrogates_renders_and_bad_ones_name_the_file(tmp_path):
    from claims.testing.evidence import empty_evidence

    doc = empty_evidence()
    doc["claims"][0]["reason"] = "hi \ud83d there"
    good = tmp_path / "surrogate.json"
    good.write_text(json.dumps(doc), encoding="utf-8")  # ensure_ascii: written as \\ud83d
    assert "\\ud83d" in good.read_text("utf-8")
    out = tmp_path / "page.html"
    proc = run("-m", "claims", "report", str(good), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "hi \ufffd there" in out.read_text("utf-8")


@pytest.mark.parametrize("levels", [400, 900])
def test_deeply_nested_facts_are_refused_with_the_file_named(tmp_path, levels):
    from claims.testing.evidence import empty_evidence

    doc = empty_evidence()
    doc["run"]["facts"] = {"deep": "NEST"}
    path = tmp_path / "deep.json"
    # Written by hand: json.dumps itself would recurse that deep.
    nest = '{"x": ' * levels + "1" + "}" * levels
    path.write_text(json.dumps(doc).replace('"NEST"', nest), encoding="utf-8")
    proc = run("-m", "claims", "report", str(path), "-o", str(tmp_path / "x.html"), cwd=tmp_path)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert str(path) in line and "nested more than 48 levels deep" in line
    assert "internal error" not in line and "RecursionError" not in line


def test_a_60_mb_attachment_is_refused_at_load_with_the_limit_named(tmp_path):
    from claims.testing.evidence import empty_evidence

    doc = empty_evidence()
    doc["claims"][0]["checks"] = [
        {
            "nodeid": "t::x",
            "outcome": "passed",
            "source": "live",
            "measurements": [],
            "attachments": [{"label": "a", "kind": "text", "content": "x" * 60_000_000}],
        }
    ]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    proc = run("-m", "claims", "report", str(path), "-o", str(tmp_path / "x.html"), cwd=tmp_path)
    assert proc.returncode == 2
    assert str(path) in proc.stderr and "larger than 16 MiB" in proc.stderr
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "no such file"),
        ("{not json", "not JSON"),
        ('{"schema": "claims-evidence/1"}', "not claims evidence"),
        ("[1, 2]", "top level is not an object"),
        ("[" * 100_000, "nested more than 48 levels deep"),
    ],
)
def test_bad_evidence_is_one_line_and_exit_2(tmp_path, content, expected):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    for args in (
        ("report", str(bad), "-o", str(tmp_path / "x.html")),
        ("diff", str(bad), str(bad)),
    ):
        proc = run("-m", "claims", *args, cwd=tmp_path)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0] and str(bad) in lines[0]
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / "x.html").exists()


def test_evidence_read_is_bounded(tmp_path, monkeypatch):
    # A wrong path (/dev/zero, a model blob) must not be read into memory whole.
    from claims import evidence
    from claims.evidence import EvidenceError, load_evidence

    monkeypatch.setattr(evidence, "MAX_EVIDENCE_BYTES", 1024)
    big = tmp_path / "big.json"
    big.write_text(" " * 2048 + "{}", encoding="utf-8")
    with pytest.raises(EvidenceError, match="larger than"):
        load_evidence(big)
    if Path("/dev/zero").exists():  # not even opened for reading: it is no regular file
        with pytest.raises(EvidenceError, match="not a regular file"):
            load_evidence("/dev/zero")


@pytest.mark.parametrize(
    ("spoil", "where"),
    [
        (lambda c: c["stated"][0].update(name=["not", "a", "name"]), "stated/0/name"),
        (lambda c: c["checks"][0].update(tiers=[{"not": "a tier"}]), "checks/0/tiers/0"),
    ],
)
def test_a_wrongly_typed_field_is_refused_where_it_is(evidence, tmp_path, spoil, where):
    """The schema types every field the report reads (claims.records), so a file with a
    stated figure named by a list, or a tier that is an object, is refused naming the field
    instead of failing somewhere inside the page."""
    from claims.evidence import EvidenceError, load_evidence

    doc = json.loads(json.dumps(evidence))
    index = next(i for i, c in enumerate(doc["claims"]) if c.get("stated") and c["checks"])
    spoil(doc["claims"][index])
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(EvidenceError, match=f"not claims evidence: claims/{index}/{where}"):
        load_evidence(path)
    proc = run("-m", "claims", "report", str(path), "-o", str(tmp_path / "r.html"), cwd=tmp_path)
    assert proc.returncode != 0 and f"claims/{index}/{where}" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_server_that_sends_surrogates_and_escapes_leaves_complete_evidence(tmp_path):
    """The loopback fake Ollama answers /api/version with a hostile string."""
    from claims.testing.fake_ollama import FakeOllama

    root = Path(__file__).resolve().parents[2]
    evidence, report = tmp_path / "evidence.json", tmp_path / "report.html"
    version = "0.12.6 hi \ud83d there \x1b]0;owned\x07 \x1b[2J \u202e \x9b31m"
    with FakeOllama(version=version) as fake:
        proc = run(
            "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:benchmark", "-q",
            "-m", "ollama", f"--rootdir={root}", "--claims-profile=generic",
            f"--ollama-host={fake.url}", f"--claims-evidence={evidence}",
            f"--claims-report-html={report}",
            "--claim", "MC-VERSION", "tests/claims/mc/test_ollama.py", cwd=root,
        )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout[-3000:]
    doc = json.loads(evidence.read_text("utf-8"))  # strict UTF-8: the surrogate is gone
    assert doc["run"]["complete"] is True
    assert doc["run"]["machine"]["ollama"]["version"].startswith("0.12.6 hi \ufffd there \x1b]0")
    claim = next(c for c in doc["claims"] if c["id"] == "MC-VERSION")
    assert claim["checks"] and claim["verdict"] != "not-run"
    html = report.read_text("utf-8")
    assert "\\x1b]0;owned\\x07" in html and "\x1b" not in html and "\u202e" not in html
    proc = run("-m", "claims", "diff", str(evidence), str(evidence), cwd=tmp_path)
    assert proc.returncode == 0 and "identical:" in proc.stdout
    assert "\x1b" not in proc.stdout
