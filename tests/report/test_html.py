"""The HTML evidence report: every verdict, outcome and chart; one file; hostile text as text."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import get_args

import pytest

from claims.catalog import load_catalog
from claims.evidence import validate
from claims.records import Outcome
from claims.report import render_html
from claims.testing.evidence import empty_evidence
from claims.verdicts import VERDICTS

HOSTILE_STATEMENT = 'Claim with <script>alert("x")</script> & a </table> in it'
HOSTILE_MEASURED = "\"><img src=x onerror=alert(1)> 'quoted'"


def article(page: str, cid: str) -> str:
    """The HTML of one claim, up to the next claim, untestable group or section end."""
    part = page[page.index(f'id="{cid}"') :]
    ends = [part.find(m, 1) for m in ('<details class="claim ', '<details class="untestable-group"',
                                      "</section>")]
    return part[: min(e for e in ends if e > 0)]


def test_synthetic_evidence_follows_the_schema_and_covers_every_verdict(evidence):
    assert validate(evidence) == []
    assert {c["verdict"] for c in evidence["claims"]} == set(VERDICTS)
    outcomes = {k["outcome"] for c in evidence["claims"] for k in c["checks"]}
    assert outcomes == set(get_args(Outcome))
    kinds = {ch["kind"] for c in evidence["claims"] for k in c["checks"] for ch in k["charts"]}
    assert {"ttft", "matmul", "bits_per_param", "kv_growth", "precisions"} <= kinds


def test_every_verdict_is_shown_on_a_claim(page, evidence):
    assert page == render_html(evidence), "the same evidence renders to the same page"
    for claim in evidence["claims"]:
        assert f'id="{claim["id"]}"' in page
    for verdict in VERDICTS:
        assert f'data-verdict="{verdict}"' in page, verdict
        assert f'class="badge v-{verdict}"' in page


def test_every_check_outcome_is_described(page):
    for text in (
        "passed",
        "failed",
        "skipped",
        "failed as the erratum expects",
        "passed unexpectedly",
        # pytest's "error" in other words: "error" is a verdict on this page
        "failed in setup or teardown",
    ):
        assert f"· {text} ·" in page, text


def test_page_shows_run_machine_options_and_summary(page):
    head = page[page.index('<section id="run">') :] + page[: page.index('class="doc"')]
    for expected in (
        # the command, shell-quoted
        "pytest -m &#39;offline or gpu&#39; --claims-evidence reports/evidence.json",
        "Debian GNU/Linux 12 (bookworm) (x86_64)",
        "AMD EPYC, 2 logical cores",
        "23.5 GiB",
        "NVIDIA GB10",
        "580.159.03",
        "CUDA (driver&#39;s ceiling)",
        "13.0",  # CUDA from the gpu tier's detector
        "6.1.0-28-amd64",
        "2.13.0+cu130",
        "0.12.3 at http://127.0.0.1:11434",
        "sha256:fd7b6731c33c57f61767612f56517460ec2d1e2e5a3f0163e0eb3d8d8cb5df20",
        "allow_unload",
        "Per document",
        # provenance: what judged the run
        "0123456789abcdef0123456789abcdef01234567",
        "ab" * 32,
    ):
        assert expected in head, expected
    # Summary per document: D1 holds 10 claims, 9 testable, 6 of them checked (3 not run).
    assert "6 / 9" in head and "5 / 5" in head


def test_documents_and_sections_keep_document_order(page):
    positions = [
        page.index(marker)
        for marker in (
            "D1 — Doc one",
            "§1 Introduction",
            "§2 Timing",
            "§3 Memory",
            "D2 — Doc two",
            "§1 Quantization",
            "§2 Serving",
        )
    ]
    assert positions == sorted(positions)


def test_claims_cite_document_title_and_section_not_seed_files(page):
    assert "Source: <cite>Doc one: behind the API</cite>, section §2 “Timing”" in page
    assert "000_fea255ecdc112ea8.txt" not in page and "003_7edf31972a8b2ffd.txt" not in page


def test_stated_vs_measured_table_has_units_tolerance_and_source(page):
    table = article(page, "D1-ERRATUM")
    table = table[: table.index("</table>")]
    for expected in (
        "reduction",
        "3.5 x",
        "3.55556 x",
        "±0.05 (printed precision)",
        "does not hold (known erratum)",
        "src-fixture",
    ):
        assert expected in table, expected
    assert "<td>4.05 to 4.15<span" in article(page, "D1-REFUTED")


def test_errata_not_run_and_not_applicable_carry_reasons_and_how_to_run(page):
    assert "The ratio is 16/4.5 = 3.56, not 3.5" in article(page, "D1-ERRATUM")
    not_run = article(page, "D1-NOT-RUN")
    assert "Not run." in not_run and "To run it:</strong> pass --ollama-allow-unload" in not_run
    not_selected = article(page, "D1-NOT-SELECTED")
    assert "add --claim D1-NOT-SELECTED" in not_selected and "pip install" in not_selected
    assert "96 KiB" in not_selected  # the stated figure a run would check
    assert "CUDA machine" in article(page, "D1-REQUIRED")
    assert "--claims-profile dgx-spark" in article(page, "D1-NOT-APPLICABLE")
    assert "no longer reproduces" in article(page, "D2-ERRATUM-HOLDS")
    assert "passed unexpectedly" in article(page, "D2-XPASSED")


def test_untestable_claims_are_grouped_per_section_collapsed(page):
    assert "3 claims in this section a program cannot check" in page
    assert "1 claim in this section a program cannot check" in page
    assert "advice about organisations, not a property of software" in page
    group = page[page.index('<details class="untestable-group">') :]
    assert group.index("</summary>") < group.index("D1-OPINION")


def test_raw_evidence_sits_in_collapsed_details(page):
    part = article(page, "D1-COLD-WARM")
    assert "<details><summary>http: POST /api/generate (cold)</summary><pre>" in part
    assert "&lt;b&gt;Hello&lt;/b&gt;" in part  # the reply is shown as text
    assert "text: generated text (truncated)" in part
    assert "Note: TF32 disabled explicitly" in page
    assert '<details class="tests">' in part and '<details class="tests" open' not in page


def test_plots_appear_in_figures_and_beside_their_claims(page):
    figures = page[page.index('<section id="figures">') : page.index('<section id="run">')]
    assert (
        figures.count("<svg") == 6
    )  # ttft x2, bits, matmul, precisions, kv; the two broken charts explain why
    assert figures.count("This chart could not be drawn") == 2
    # Numbered in reading order: what this run measured, then the documents' own.
    for number, claim in ((1, "D1-COLD-WARM"), (2, "D1-ERRATUM"), (3, "D2-MATMUL"),
                          (4, "D2-MATMUL"), (5, "D2-KV")):
        assert f'id="figure-{number}"' in figures
        assert f'id="figure-{number}-{claim}"' in page
    assert 'id="figure-8-D1-RECORDED-TTFT"' in page


def test_a_broken_chart_costs_only_its_own_plot(page):
    assert "bits_per_param is not a finite number" in page
    assert "unknown chart kind &#39;sparkline&#39;" in page


def test_filters_by_verdict_and_tier_are_inline_and_hidden_without_javascript(page):
    assert '<div class="filters" id="filters" hidden>' in page
    for verdict in VERDICTS:
        assert f'data-filter="verdict" value="{verdict}"' in page
    for tier in ("offline", "engine", "ollama", "gpu"):
        assert f'data-filter="tier" value="{tier}"' in page
    assert page.count("<script") == 1


def test_incomplete_run_is_flagged(make_evidence):
    assert "Incomplete run." in render_html(make_evidence(complete=False))
    assert "Incomplete run." not in render_html(make_evidence(complete=True))


def test_a_run_stopped_by_a_signal_names_the_signal_and_the_test(make_evidence):
    doc = make_evidence(complete=False)
    doc["run"]["interrupted"] = {"by": "SIGTERM", "test": "tests/t.py::test_hangs",
                                 "test_seconds": 300.2}
    page = render_html(doc)
    assert "Stopped by a signal." in page
    assert "stopped by SIGTERM while tests/t.py::test_hangs was running (for 300.2 s" in page
    assert "Stopped by a signal." not in render_html(make_evidence(complete=False))


def test_a_remote_ollama_server_is_said_on_the_page(make_evidence):
    doc = make_evidence()
    doc["run"]["machine"]["ollama"] = {"version": "0.31.2", "host": "http://192.168.1.20:11434",
                                       "remote": True}
    page = render_html(doc)
    assert "Remote Ollama server." in page and "http://192.168.1.20:11434, another machine" in page
    assert "a remote server: its figures are that machine" in page
    doc["run"]["machine"]["ollama"].pop("remote")
    assert "Remote Ollama server." not in render_html(doc)


def test_page_is_one_file_without_external_references(page, audit):
    result = audit(page)
    assert result.problems == []
    assert len(result.ids) == len(set(result.ids)), "ids must be unique (plots are inlined twice)"


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_hostile_strings_are_escaped_and_shown_literally(page):
    assert "<script>alert" not in page and "<img" not in page
    parser = _Text()
    parser.feed(page)
    assert [t for t, _ in parser.tags].count("script") == 1
    assert not any(k.startswith("on") for _, attrs in parser.tags for k in attrs)
    text = "".join(parser.text)
    assert HOSTILE_STATEMENT in text
    assert HOSTILE_MEASURED in text
    assert "note with <i>tags</i>" in text


def test_evidence_missing_optional_keys_still_renders(evidence):
    """Old or hand-made evidence: only the schema's required keys."""
    minimal = {
        "schema": "claims-evidence/1",
        "run": {
            key: evidence["run"][key]
            for key in ("started", "finished", "markexpr", "profile", "complete", "options")
        }
        | {"machine": {"os": "x", "arch": "y", "cpu": "z", "memory_bytes": 1, "python": "3"}},
        "claims": [
            {
                key: c[key]
                for key in (
                    "id",
                    "document",
                    "section",
                    "statement",
                    "tiers",
                    "testable",
                    "verdict",
                )
            }
            | {
                "checks": [
                    {
                        key: k[key]
                        for key in ("nodeid", "outcome", "verdict", "source", "measurements")
                    }
                    for k in c["checks"]
                ]
            }
            for c in evidence["claims"]
        ],
        "summary": {"by_verdict": evidence["summary"]["by_verdict"]},
    }
    assert validate(minimal) == []
    html = render_html(minimal)
    assert "D1-REFUTED" in html and "D2 — D2" in html  # no document titles: the id stands in


def test_real_catalog_renders_with_every_claim(tmp_path, audit):
    """The catalog as it is today, nothing run: every claim listed, not run or untestable."""
    catalog = load_catalog()
    doc = empty_evidence(catalog)
    html = render_html(doc)
    for claim in catalog:
        assert f'id="{claim.id}"' in html
    assert audit(html).problems == []


@pytest.mark.parametrize(
    "snippet",
    [
        '<script src="https://cdn.example/x.js"></script>',
        '<link rel="stylesheet" href="//cdn.example/x.css">',
        '<img src="file:///etc/passwd">',
        '<a href="https://example.com/">out</a>',
        '<style>@import "theme.css";</style>',
        "<style>body { background: url(http://example.com/bg.png) }</style>",
        "<div style=\"background-image: url('//example.com/x.png')\"></div>",
        '<svg><image href="http://example.com/x.png"/></svg>',
        '<svg><use xlink:href="other.svg#icon"/></svg>',
        '<iframe srcdoc="x"></iframe>',
        '<meta http-equiv="refresh" content="0; url=http://example.com">',
        '<script>fetch("/api")</script>',
        '<div onclick="x()"></div>',
    ],
)
def test_the_audit_catches_each_kind_of_external_reference(audit, snippet):
    assert audit(f"<!DOCTYPE html><html><body>{snippet}</body></html>").problems


def test_the_audit_accepts_fragments_and_inline_data(audit):
    page = (
        '<a href="#D1-X">x</a><svg><clipPath id="p1"></clipPath><path clip-path="url(#p1)"/>'
        '<use xlink:href="#m1"/></svg><style>.a { color: red }</style><script>var a = 1;</script>'
    )
    assert audit(page).problems == []


def test_templates_are_package_data():
    """A wheel must carry every template, or an installed suite renders no report."""
    import fnmatch
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "package-data"
    ]["claims.report"]
    folder = root / "claims" / "report"
    files = [p.relative_to(folder).as_posix() for p in (folder / "templates").iterdir()]
    assert files
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


# --- the answer first ------------------------------------------------------------------
def test_the_page_opens_with_pass_or_fail_counts_and_failing_claims(page, evidence):
    top = page[: page.index('class="doc"')]
    assert top.index('id="outcome"') < top.index('id="filters"') < top.index('id="glance"')
    assert "The run failed: pytest exit status" in top
    counts = evidence["run"]["pytest"]["counts"]
    words = {"error": "setup/teardown failures", "xfailed": "xfailed (known errata)"}
    for key, n in counts.items():
        label = words.get(key, key)
        shown = f'<span class="count" data-outcome="{key}"><strong>{n}</strong> {label}</span>'
        assert shown in top
    failing = top[top.index('id="failing"') : top.index("</ul>", top.index('id="failing"'))]
    bad = [c["id"] for c in evidence["claims"] if c["verdict"] in ("refuted", "error")]
    assert bad and all(f'href="#{cid}"' in failing for cid in bad)
    assert 'href="#D2-ERRATUM-HOLDS"' in failing  # an erratum that now holds fails the run
    not_run = top[top.index('class="not-run-list"') :]
    assert "pass --ollama-allow-unload" in not_run and 'href="#D1-NOT-RUN"' in not_run


def test_a_passing_run_says_so_and_a_run_without_counts_says_they_are_missing(make_evidence):
    evidence = make_evidence()
    evidence["run"]["pytest"] = {"exit_status": 0, "meaning": "all passed", "counts": {}}
    assert "The run passed: pytest exit status" in render_html(evidence)
    del evidence["run"]["pytest"]
    assert "pytest&#39;s outcome was not recorded" in render_html(evidence)


def test_claims_to_act_on_are_open_and_the_rest_fold(page, evidence):
    for claim in evidence["claims"]:
        if claim["verdict"] == "untestable":
            continue
        tag = page[page.index(f'id="{claim["id"]}"') :]
        tag = tag[: tag.index(">")]
        erratum_holds = claim["id"] == "D2-ERRATUM-HOLDS"
        should_open = claim["verdict"] in ("refuted", "error", "known-erratum") or erratum_holds
        assert (" open" in tag) is should_open, claim["id"]


def test_the_page_policy_allows_no_network_and_only_its_own_script(page):
    import base64
    import hashlib
    import html
    import re

    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page)
    assert policy is not None
    rules = dict(r.strip().split(" ", 1) for r in html.unescape(policy.group(1)).split(";"))
    assert rules["default-src"] == "'none'"
    assert rules["style-src"] == "'unsafe-inline'"
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    assert script is not None
    digest = base64.b64encode(hashlib.sha256(script.group(1).encode()).digest()).decode()
    assert rules["script-src"] == f"'sha256-{digest}'"  # not 'unsafe-inline'


# --- recorded is not measured ----------------------------------------------------------
def _both_sources(make_evidence):
    """D1-RECORDED-TTFT with its recorded check and a live check of the same figure."""
    evidence = make_evidence()
    claim = next(c for c in evidence["claims"] if c["id"] == "D1-RECORDED-TTFT")
    recorded = claim["checks"][0]
    recorded["measurements"].append(
        {"name": "Spark architecture", "stated": "aarch64", "stated_display": "aarch64",
         "measured": "aarch64", "measured_display": "aarch64", "holds": True, "compared": True}
    )
    claim["checks"].append(
        {
            "nodeid": "tests/claims/d1/test_ttft.py::test_live",
            "outcome": "passed",
            "source": "live",
            "tiers": ["ollama"],
            "measurements": [
                {"name": "cold total", "stated": 9.1, "stated_display": "9.1 s",
                 "measured": 9.3, "measured_display": "9.3 s", "unit": "s", "holds": True,
                 "expected_interval": {"lo": 9.05, "hi": 9.15}},
                {"name": "TF32 on by default", "stated": False, "stated_display": "false",
                 "measured": False, "measured_display": "False", "holds": True},
                {"name": "timings", "stated": None, "measured": {"total_duration": 12},
                 "measured_display": "{'total_duration': 12}", "holds": True,
                 "compared": False},
                {"name": "layers", "stated": ["a", "b"], "stated_display": "a, b",
                 "measured": ["a", "b"], "measured_display": "['a', 'b']", "holds": True},
                {"name": "range from printed", "stated": 4.0, "stated_display": "4.0 GB",
                 "measured": {"lo": 3.95, "hi": 4.25}, "measured_display": "[3.95, 4.25] GB",
                 "unit": "GB", "holds": True, "expected_interval": {"lo": 3.95, "hi": 4.05}},
            ],
            "attachments": [], "facts": {}, "notes": [], "charts": [],
        }
    )
    return evidence


def test_recorded_and_live_checks_get_separate_tables_and_columns(make_evidence):
    html = render_html(_both_sources(make_evidence))
    part = article(html, "D1-RECORDED-TTFT")
    assert part.count('<table class="measurements') == 2
    recorded = part[part.index('data-source="recorded"') :]
    recorded = recorded[: recorded.index("</table>")]
    live = part[part.index('data-source="live"') :]
    live = live[: live.index("</table>")]
    assert '<th class="value-col">From the document&#39;s figures</th>' in recorded
    assert "measured" not in recorded.lower()  # the document's own aarch64 is never "measured"
    assert '<th class="value-col">Measured here (live)</th>' in live
    assert recorded.count(">cold total<") == 1 and live.count(">cold total<") == 1


def test_cells_use_one_notation_and_no_python_repr(make_evidence):
    html = render_html(_both_sources(make_evidence))
    part = article(html, "D1-RECORDED-TTFT")
    for python in ("False", "True", "{&#39;", "[&#39;", "[3.95"):
        assert python not in part, python
    assert ">false<" in part and "total_duration: 12" in part and ">a, b<" in part
    assert "3.95 to 4.25 GB" in part and "3.95 to 4.05" in part
    legend = html[html.index('id="notation"') :]
    assert "overlaps the accepted range" in legend[: legend.index("</div>")]


def test_charts_of_recorded_figures_say_they_are_the_documents(page):
    figures = page[page.index('<section id="figures">') : page.index('<section id="run">')]
    assert "The documents' own figures (recorded, not measured here)" in figures
    recorded = figures[figures.index("The documents' own figures") :]
    assert "Recorded cold vs warm" in recorded
    assert "The document&#39;s own recorded figures (not measured here)" in recorded
    assert "Measured in this run" in figures
    assert "Measured live on this machine" in figures  # inside the live charts' SVG too


def test_control_and_bidi_characters_in_evidence_are_shown_not_obeyed(make_evidence):
    evidence = make_evidence()
    claim = next(c for c in evidence["claims"] if c["id"] == "D1-COLD-WARM")
    claim["statement"] = "model evil\u202etxt.exe and \x1b]0;owned\x07 \x9b31m"
    claim["checks"][0]["attachments"][0]["content"] = "line one\n\tline two \x1b[2J\r"
    html = render_html(evidence)
    for raw in ("\u202e", "\x1b", "\x07", "\x9b", "\r"):
        assert raw not in html, repr(raw)
    assert "model evil\\u202etxt.exe and \\x1b]0;owned\\x07 \\x9b31m" in html
    assert "line one\n\tline two \\x1b[2J\\x0d" in html  # a <pre> keeps its lines


# --- the compiled templates, kept between runs -------------------------------------------------
@pytest.fixture
def fresh_environment(monkeypatch, tmp_path):
    """A template environment made anew, with the cache folder in tmp_path."""
    from claims.report import html

    monkeypatch.setenv("CLAIMS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(html, "_ENV", None)
    return html


def test_the_compiled_template_is_kept_and_read_back(fresh_environment, evidence, tmp_path):
    first = fresh_environment.render_html(evidence)
    kept = list((tmp_path / "cache" / "templates").iterdir())
    assert kept, "the compiled report template was not kept"
    fresh_environment._ENV = None
    loads: list[bool] = []
    real = fresh_environment._KeptTemplates.load_bytecode

    def load(self, bucket):
        real(self, bucket)
        loads.append(bucket.code is not None)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fresh_environment._KeptTemplates, "load_bytecode", load)
        again = fresh_environment.render_html(evidence)
    assert loads and all(loads), loads
    # The page itself carries the run's time only through the evidence: the same page.
    assert again == first


def test_a_template_cache_that_cannot_be_used_costs_a_compile_not_the_report(
        fresh_environment, evidence, tmp_path, monkeypatch):
    import jinja2

    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(jinja2.FileSystemBytecodeCache, "dump_bytecode", refuse)
    monkeypatch.setattr(jinja2.FileSystemBytecodeCache, "load_bytecode", refuse)
    assert "<html" in fresh_environment.render_html(evidence)
    # No cache folder at all (a file where it would be): no bytecode cache.
    folder = tmp_path / "cache" / "templates"
    folder.rmdir()
    folder.write_text("", encoding="utf-8")
    fresh_environment._ENV = None
    assert fresh_environment._bytecode_cache() is None
    assert "<html" in fresh_environment.render_html(evidence)
