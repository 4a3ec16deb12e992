"""claims.report.machine: the Ollama server and its runner build in the fingerprint and header."""

from __future__ import annotations

from typing import Any

from claims.evidence import validate
from claims.report import render_html
from claims.report.machine import fingerprint, server_line

BUILD = {"build": 10488, "commit": "9d77fa1", "label": "b10488 (9d77fa1)",
         "source": "runner start line"}


def _with_server(evidence: dict[str, Any], runner: Any) -> dict[str, Any]:
    evidence["run"]["machine"]["ollama"] = {
        "version": "0.32.15", "host": "http://127.0.0.1:11434", "runner_build": runner,
    }
    return evidence


def test_the_runner_build_is_a_field_of_its_own(make_evidence):
    run = _with_server(make_evidence(), BUILD)["run"]
    fields = fingerprint(run)
    assert fields["Ollama"] == "0.32.15 at http://127.0.0.1:11434"
    assert fields["Ollama runner"] == (
        "llama.cpp b10488 (9d77fa1) (the runner's start-up line in the server log)"
    )
    assert server_line(run) == (
        "Ollama 0.32.15 at http://127.0.0.1:11434, runner llama.cpp b10488 (9d77fa1) "
        "(the runner's start-up line in the server log)"
    )


def test_an_unknown_runner_says_why_and_none_is_left_out(make_evidence):
    why = "not known: no llama-server beside /usr/bin/ollama"
    assert fingerprint(_with_server(make_evidence(), why)["run"])["Ollama runner"] == why
    assert "Ollama runner" not in fingerprint(_with_server(make_evidence(), None)["run"])


def test_no_server_measured_no_header_note(make_evidence):
    evidence = make_evidence()
    evidence["run"]["machine"]["ollama"] = None
    evidence["run"]["tier_status"].pop("ollama")
    assert server_line(evidence["run"]) is None


def test_the_header_shows_version_and_runner_and_the_schema_takes_them(make_evidence):
    evidence = _with_server(make_evidence(), BUILD)
    assert validate(evidence) == []
    page = render_html(evidence)
    header = page.split("</header>", 1)[0]
    assert '<span id="server">Ollama 0.32.15 at http://127.0.0.1:11434, runner llama.cpp ' \
        "b10488 (9d77fa1)" in header
    evidence["run"]["machine"]["ollama"]["runner_build"] = {**BUILD, "commit": "not hex"}
    assert any("runner_build" in e for e in validate(evidence))
