"""The ollama and offline tiers end to end against hostile servers and stores (issue 22).

Each run is a child ``pytest`` of the tier's real claim tests against the fake's
hostile modes on 127.0.0.1 (or a store whose GGUF attacks the terminal), with
its own evidence and report files. They test the instrument, never a claim:

* a wedged server (answers /api/version, never a generation) costs one timeout:
  one generation request is ever sent, its test errs naming the timeout, every
  other ollama test is "not run" naming the request that hung, the evidence is
  complete and the report written;
* a never-ending stream ends at --ollama-timeout, named as the deadline;
* escapes in model names, error bodies and GGUF metadata reach the terminal only
  as visible escapes, through the ollama and the offline paths;
* credentials in --ollama-host are sent, never shown or written.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claims.testing.fake_ollama import (
    GENERATION_PATHS,
    FakeOllama,
    hostile_text,
    never_finish_streams,
    wedge_generation,
)
from claims.testing.hostile import TERMINAL_ATTACK, hostile_phi4_store, raw_terminal_bytes

# Subprocesses: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TIER_FILES = [
    ROOT / "tests" / "claims" / "w1" / "test_ollama.py",
    ROOT / "tests" / "claims" / "w2" / "test_ollama.py",
    ROOT / "tests" / "claims" / "w4" / "test_ollama.py",
    *(ROOT / "tests" / "claims" / "mc" / f"test_ollama{part}.py"
      for part in ("", "_context", "_clients", "_embed", "_timing", "_host", "_create")),
]
CHILD_TIMEOUT_S = 300
REQUEST_TIMEOUT = "3"  # --ollama-timeout of the runs against a hung server


def run_child(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    evidence = tmp_path / "evidence.json"
    cmd = [
        sys.executable, "-m", "pytest",
        "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark",
        "-q", "-ra", f"--rootdir={ROOT}", "--claims-profile=generic",
        f"--claims-evidence={evidence}", f"--claims-report-html={tmp_path / 'report.html'}",
        *args,
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    doc = json.loads(evidence.read_text("utf-8")) if evidence.is_file() else None
    return proc, doc


def run_tier(tmp_path: Path, host: str, *args: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    return run_child(tmp_path, "-m", "ollama", f"--ollama-host={host}", *args,
                     *map(str, TIER_FILES))


def checks(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(c["id"], ch) for c in doc["claims"] for ch in c["checks"]]


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(token_interval_s=0.001) as server:
        yield server


def test_a_wedged_server_costs_one_timeout_and_the_rest_is_not_run(fake, tmp_path):
    wedge_generation(fake)
    proc, doc = run_tier(tmp_path, fake.url, f"--ollama-timeout={REQUEST_TIMEOUT}")
    assert doc is not None and doc["run"]["complete"] is True, proc.stdout[-3000:]
    # One generation was ever asked for: the breaker kept every later test from waiting.
    generations = [e for e in fake.exchanges if e.path in GENERATION_PATHS]
    assert len(generations) == 1
    ran = [(cid, ch) for cid, ch in checks(doc) if ch["verdict"] != "not-run"]
    assert [(ch["verdict"], ch["message"]) for _, ch in ran] == [
        ("error", f"ServerTimeout: {generations[0].path}: no reply within {REQUEST_TIMEOUT} s "
                  "(ReadTimeout)")
    ]
    hung = ran[0][1]["nodeid"]
    stopped = doc["run"]["tier_status"]["ollama"]
    assert stopped["available"] is False
    assert stopped["stopped"] == (
        f"the Ollama server stopped answering: POST {generations[0].path}: no reply within "
        f"{REQUEST_TIMEOUT} s (ReadTimeout) (in {hung}); --ollama-timeout is {REQUEST_TIMEOUT} "
        "s; the tier's remaining tests are not run"
    )
    later = [ch for _, ch in checks(doc) if ch["verdict"] == "not-run"]
    assert later and all(ch["message"] == stopped["stopped"] for ch in later)
    assert (tmp_path / "report.html").is_file()


def test_a_never_ending_stream_ends_at_the_deadline(fake, tmp_path):
    never_finish_streams(fake, interval_s=0.2)
    proc, doc = run_tier(tmp_path, fake.url, f"--ollama-timeout={REQUEST_TIMEOUT}",
                         "--claim", "MC-STREAM-DEFAULT", "--claim", "MC-TOKS-FORMULA")
    assert doc is not None and doc["run"]["complete"] is True, proc.stdout[-3000:]
    by_claim = dict(checks(doc))
    first = by_claim["MC-STREAM-DEFAULT"]
    assert first["verdict"] == "error"
    assert first["message"].startswith(
        f"ServerTimeout: /api/generate: stream still running after {REQUEST_TIMEOUT} s ("
    )
    assert first["message"].endswith("no final object): past its deadline")
    second = by_claim["MC-TOKS-FORMULA"]
    assert second["verdict"] == "not-run"
    assert "past its deadline" in second["message"] and "MC-" not in second["message"]
    assert (tmp_path / "report.html").is_file()


def test_escapes_in_model_names_and_error_bodies_reach_the_terminal_escaped(fake, tmp_path):
    hostile_text(fake, TERMINAL_ATTACK)
    proc, doc = run_tier(tmp_path, fake.url)
    out = proc.stdout + proc.stderr
    assert doc is not None
    assert "PWNED" in out  # the hostile text was printed...
    assert raw_terminal_bytes(out) == []  # ...only as escapes
    assert "\\x1b]0;PWNED\\x07\\x1b[2J\\u202e" in out


def test_credentials_in_the_host_are_used_and_never_shown_or_written(fake, tmp_path):
    host = f"http://user:s3cret@127.0.0.1:{fake.port}"
    proc, doc = run_tier(tmp_path, host, "--claim", "W2-PORT")
    assert doc is not None
    assert doc["run"]["tier_status"]["ollama"]["available"] is True, proc.stdout[-3000:]
    assert doc["run"]["tier_status"]["ollama"]["host"] == f"http://127.0.0.1:{fake.port}"
    assert doc["run"]["options"]["ollama_host"] == f"http://***@127.0.0.1:{fake.port}"
    assert doc["run"]["options"]["ollama_remote"] is False
    written = (tmp_path / "evidence.json").read_text("utf-8")
    page = (tmp_path / "report.html").read_text("utf-8")
    for text in (proc.stdout, proc.stderr, written, page):
        assert "s3cret" not in text


def test_a_hostile_gguf_reaches_the_offline_terminal_escaped(tmp_path):
    # The repro of issue 22, item 1 (`pytest -m offline --claim W2-GGUF-TOKENIZER
    # --ollama-models-dir STORE`): the window title and the screen stay the user's.
    store = hostile_phi4_store(tmp_path / "store")
    proc, doc = run_child(tmp_path, "-m", "offline", "--claim", "W2-GGUF-TOKENIZER",
                          f"--ollama-models-dir={store}")
    out = proc.stdout + proc.stderr
    assert doc is not None
    (check,) = [ch for cid, ch in checks(doc) if cid == "W2-GGUF-TOKENIZER"
                and ch["nodeid"].endswith("::test_phi4_gguf_tokenizer_fields")]
    assert check["verdict"] == "refuted"
    assert raw_terminal_bytes(out) == []
    assert "measured gpt2\\x1b]0;PWNED\\x07\\x1b[2J\\u202e, stated gpt2" in out
