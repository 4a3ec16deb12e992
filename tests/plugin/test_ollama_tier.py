"""The ollama tier end to end: its claim tests run in a child pytest against the fake.

These runs exist to test the instrument (how faults, missing servers and
certification mode end up in the evidence), never to judge a claim: each run
writes its own temporary evidence file, and the fake's figures are scripted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claims.testing.fake_ollama import FakeOllama, Fault, default_models, unused_port

# Subprocesses or timings: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TIER_FILES = [
    ROOT / "tests" / "claims" / "w1" / "test_ollama.py",
    ROOT / "tests" / "claims" / "w2" / "test_ollama.py",
    ROOT / "tests" / "claims" / "w2" / "test_ollama_timing.py",
    ROOT / "tests" / "claims" / "w4" / "test_ollama.py",
    *(ROOT / "tests" / "claims" / "mc" / f"test_ollama{part}.py"
      for part in ("", "_context", "_clients", "_embed", "_timing", "_host", "_create")),
]
CHILD_TIMEOUT_S = 180
FAULT_TIMEOUT_S = 5.0


def run_tier(
    tmp_path: Path, host: str, *args: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any] | None]:
    evidence = tmp_path / "evidence.json"
    cmd = [
        # The child needs neither Hypothesis nor pytest-benchmark: leaving them out
        # halves its start-up time.
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:benchmark",
        "-q",
        "-m",
        "ollama",
        f"--rootdir={ROOT}",
        "--claims-profile=generic",
        f"--ollama-host={host}",
        f"--claims-evidence={evidence}",
        f"--claims-report-html={tmp_path / 'report.html'}",
        *args,
        *map(str, TIER_FILES),
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
    doc = json.loads(evidence.read_text("utf-8")) if evidence.is_file() else None
    return proc, doc


def claims_by_id(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in doc["claims"]}


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(token_interval_s=0.001) as server:
        yield server


def test_faults_become_errors_of_their_claims_and_the_session_goes_on(
    fake: FakeOllama, tmp_path: Path
) -> None:
    fake.add_fault(
        Fault(
            "error_line",
            path="/api/chat",
            after_lines=2,
            message="model runner has unexpectedly stopped",
        )
    )
    fake.add_fault(Fault("status", path="/api/embed", status=500, message="embedding failed"))
    # A request that hangs is another story: it stops the tier (the breaker,
    # tests/plugin/test_ollama_tier_hostile.py), so it is not among these faults.
    selected = [
        "W2-STREAM-NDJSON",
        "MC-EMBED-BATCH",
        "W2-SHOW-FACTS",
        "MC-VERSION",
        "MC-HEALTH-TAGS",
        "MC-KEEPALIVE",
        "MC-STORE-DEDUP",
        "W2-COLD-TTFT",
    ]
    proc, doc = run_tier(
        tmp_path,
        fake.url,
        # Long enough for any healthy request of the fake on a busy machine (with 1 s,
        # a loaded CI run timed out one of the benchmark's ten streams, which would
        # now stop the tier).
        f"--ollama-timeout={FAULT_TIMEOUT_S:g}",
        *[arg for cid in selected for arg in ("--claim", cid)],
    )
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert doc is not None and doc["run"]["complete"] is True
    claims = claims_by_id(doc)
    expected_errors = {
        "W2-STREAM-NDJSON": "error mid-stream: model runner has unexpectedly stopped",
        "MC-EMBED-BATCH": "HTTP 500: embedding failed",
    }
    for cid, reason in expected_errors.items():
        claim = claims[cid]
        assert claim["verdict"] == "error", (cid, claim["verdict"], claim["reason"])
        assert reason in (claim["reason"] or ""), (cid, claim["reason"])
    # The rest of the session went on and measured.
    for cid in ("W2-SHOW-FACTS", "MC-VERSION", "MC-HEALTH-TAGS"):
        assert claims[cid]["verdict"] == "reproduced", (cid, claims[cid]["reason"])
    server = doc["run"]["machine"]["ollama"]
    assert (server["version"], server["host"]) == (fake.version, fake.url)
    # The fake runs inside this test's Python: no llama-server beside it, and it says so.
    assert server["runner_build"].startswith("not known: no llama-server beside ")
    # Checks that would change the server say which flag they need, and nothing changed.
    assert "pass --ollama-allow-unload" in claims["MC-KEEPALIVE"]["reason"]
    assert "pass --ollama-allow-create" in claims["MC-STORE-DEDUP"]["reason"]
    assert not [
        e
        for e in fake.exchanges
        if isinstance(e.body, dict) and e.body.get("keep_alive") in (0, "0")
    ]
    assert not [e for e in fake.exchanges if e.path in ("/api/create", "/api/delete")]
    # A cold start needs the flag too, but the warm half is measured and kept,
    # with the rows the report plots.
    cold = claims["W2-COLD-TTFT"]
    assert cold["verdict"] == "not-run" and "pass --ollama-allow-unload" in cold["reason"]
    (check,) = cold["checks"]
    assert any(m["name"] == "warm TTFT" for m in check["measurements"])
    rows = check["charts"][0]["rows"]
    # Week 2's alternated benchmark: its first pair (2048, 4096), no cold request.
    assert check["charts"][0]["kind"] == "ttft" and len(rows) == 2
    assert not any(r["cold"] for r in rows)


def test_a_dead_server_is_skipped_with_the_reason(tmp_path: Path) -> None:
    host = f"http://127.0.0.1:{unused_port()}"
    proc, doc = run_tier(tmp_path, host)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert " passed" not in proc.stdout and " failed" not in proc.stdout
    assert doc is not None
    ran = [c for c in doc["claims"] if c["checks"]]
    assert ran and all(c["verdict"] == "not-run" for c in ran)
    assert all(f"no Ollama server at {host} (" in (c["reason"] or "") for c in ran)
    assert doc["run"]["machine"].get("ollama") is None


def test_a_server_without_the_model_makes_its_claims_not_run(
    fake: FakeOllama, tmp_path: Path
) -> None:
    # Seen on a real 0.31.2 holding only gemma3:270m: a default run (phi4) failed 17
    # tests with the server's 404 instead of saying which model would run them.
    # (The fake's own embedding model still answers the embedding claims, so the exit
    # status is whatever those verdicts are; what matters is that nothing errs.)
    proc, doc = run_tier(tmp_path, fake.url, "--ollama-model=no-such-model:1b")
    assert doc is not None, proc.stdout[-3000:]
    verdicts = {c["id"]: c["verdict"] for c in doc["claims"] if c["checks"]}
    assert "error" not in verdicts.values(), verdicts
    # The server's 404 text ("model '...' not found"), not a bare "404": a port can hold it.
    assert "HTTP 404" not in proc.stdout and "not found" not in proc.stdout, proc.stdout[-3000:]
    missing = [c for c in doc["claims"]
               if "model no-such-model:1b is not on the server" in (c["reason"] or "")]
    assert len(missing) >= 10, verdicts


def test_a_server_without_an_embedding_model_leaves_the_embedding_claims_not_run(
    tmp_path: Path,
) -> None:
    # A model the user can pull or name is a missing prerequisite: "not run" with what
    # to pass, and a failure under --claims-require-live. "Not applicable" is for
    # another machine profile or model under test (claims.verdicts.DESCRIPTIONS).
    models = [m for m in default_models() if "embedding" not in m.capabilities]
    embed = ["--claim", "MC-EMBED-BATCH", "--claim", "MC-EMBED-BATCH-FASTER"]
    with FakeOllama(models=models, token_interval_s=0.001) as server:
        proc, doc = run_tier(tmp_path, server.url, *embed)
        assert doc is not None, proc.stdout[-3000:]
        claims = claims_by_id(doc)
        for cid in ("MC-EMBED-BATCH", "MC-EMBED-BATCH-FASTER"):
            assert claims[cid]["verdict"] == "not-run", (cid, claims[cid]["reason"])
            reason = claims[cid]["reason"] or ""
            assert "no embedding-capable model" in reason and "--ollama-embed-model" in reason
        proc, _ = run_tier(tmp_path, server.url, "--claims-require-live", *embed)
    assert proc.returncode == 1
    assert "--claims-require-live: not run: no embedding-capable model" in proc.stdout


def test_require_live_fails_and_names_the_missing_server(tmp_path: Path) -> None:
    host = f"http://127.0.0.1:{unused_port()}"
    proc, _ = run_tier(tmp_path, host, "--claims-require-live", "--claim", "MC-VERSION")
    assert proc.returncode == 1
    assert f"--claims-require-live: not run: no Ollama server at {host} (" in proc.stdout


def test_store_cross_checks_use_the_servers_own_store(tmp_path: Path, gemma_gguf: Path) -> None:
    from claims.testing.store_builder import build_fixture_store

    store = build_fixture_store(tmp_path / "models", gemma_gguf)
    with FakeOllama.from_store(store.root) as server:
        proc, doc = run_tier(
            tmp_path,
            server.url,
            f"--ollama-models-dir={store.root}",
            f"--ollama-model={store.base}",
            "--claim",
            "W2-FORMAT-AGREES",
            "--claim",
            "W2-LIST",
        )
    assert doc is not None, proc.stdout[-3000:]
    claims = claims_by_id(doc)
    for cid in ("W2-FORMAT-AGREES", "W2-LIST"):
        assert claims[cid]["verdict"] == "reproduced", (cid, claims[cid]["reason"])
    (fmt,) = claims["W2-FORMAT-AGREES"]["checks"]
    header = next(m for m in fmt["measurements"] if m["name"] == "blob header")
    assert header["measured"] == "47 47 55 46" and header["holds"] is True
    assert fmt["facts"]["ollama_store"] == str(store.root)
    (listing,) = claims["W2-LIST"]["checks"]
    prefix = next(
        m for m in listing["measurements"] if m["name"] == "ID is the manifest's SHA-256 prefix"
    )
    assert prefix["holds"] is True and prefix["compared"] is True


def test_a_different_store_is_not_taken_for_the_servers(
    fake: FakeOllama, tmp_path: Path, gemma_gguf: Path
) -> None:
    from claims.testing.store_builder import build_fixture_store

    store = build_fixture_store(tmp_path / "models", gemma_gguf)
    fake.models["gemma3:270m"] = FakeOllama.from_store(store.root).models["gemma3:270m"]
    fake.models["gemma3:270m"].digest = "0" * 64  # the server's gemma is another build
    proc, doc = run_tier(
        tmp_path,
        fake.url,
        f"--ollama-models-dir={store.root}",
        "--ollama-model=gemma3:270m",
        "--claim",
        "W2-FORMAT-AGREES",
    )
    assert doc is not None, proc.stdout[-3000:]
    claim = claims_by_id(doc)["W2-FORMAT-AGREES"]
    assert claim["verdict"] == "not-run"
    assert "has a different gemma3:270m" in claim["reason"]


def test_the_tier_gives_the_same_verdicts_twice_against_the_same_server(tmp_path: Path) -> None:
    """Back-to-back runs against one server (its state carried over) agree claim by claim.

    The fake loads a model in 1.5 s, far beyond its token interval, as a real server's
    cold start is far beyond its warm jitter; the margins of the timing claims must keep
    such a verdict from depending on the run.
    """
    runs = []
    # 20 ms a token (a real model's pace), so that a reply's server-side durations,
    # not a busy machine's scheduling, make up most of each request's round trip and
    # of each streamed span.
    with FakeOllama(token_interval_s=0.02, cold_load_s=1.5) as server:
        for i in (1, 2):
            out = tmp_path / f"run{i}"
            out.mkdir()
            proc, doc = run_tier(out, server.url, "--ollama-allow-unload", "--ollama-allow-create")
            assert doc is not None and doc["run"]["complete"] is True, proc.stdout[-3000:]
            runs.append(doc)
    first, second = ({c["id"]: c["verdict"] for c in d["claims"] if c["checks"]} for d in runs)
    assert first == second
    assert "error" not in first.values(), {k: v for k, v in first.items() if v == "error"}
    for doc in runs:
        usage = doc["run"]["facts"]["ollama_usage"]
        # Every generation was bounded, and the session's cost is on record.
        assert usage["unbounded"] == []
        assert usage["model_loads"] >= 1 and usage["generated_tokens"] > 0
        assert set(usage["sampling"]) <= {"fixed", "random (no seed)"}
