"""The ollama tier's shared samples: one pool per quantity, read by every claim on it.

Against the loopback fake Ollama (claims.testing.fake_ollama), counting the
requests it served.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claims.catalog.loader import load_catalog
from claims.catalog.records import TIMING_QUANTITIES
from claims.probes.live.ollama_api import OllamaClient
from claims.testing.fake_ollama import FakeOllama
from claims.timing import AtLeast, Within
from claims.timing.budget import Budget
from claims.timing.policy import PAIRED
from claims.timing.pools import POOL_OF, OllamaPools, pools_for
from claims.timing.procedures import decide_pool, prefill_over_decode, server_over_client


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(token_interval_s=0.001) as server:
        yield server


def rate_requests(fake: FakeOllama) -> int:
    return sum(
        1 for e in fake.exchanges
        if e.path == "/api/generate" and isinstance(e.body, dict)
        and str(e.body.get("prompt", "")).startswith("Reference ")
    )


def unloads(fake: FakeOllama) -> int:
    return sum(1 for e in fake.exchanges
               if isinstance(e.body, dict) and e.body.get("keep_alive") in (0, "0"))


def test_every_catalog_timing_figure_names_a_quantity_a_pool_measures():
    figures = [f for c in load_catalog() for f in c.stated if f.quantity]
    assert {f.quantity for f in figures} <= set(POOL_OF) == set(TIMING_QUANTITIES)
    # The prefill-over-decode figures of W1, W2 and MC name one quantity, so one pool.
    readers = {c.id for c in load_catalog() for f in c.stated
               if f.quantity == "prefill over decode rate"}
    assert readers == {"W1-DECODE-BANDWIDTH", "W2-PREFILL-FASTER", "MC-PREFILL-DECODE"}
    assert pools_for(["cold over warm TTFT", "cold over warm load", "cold load"]) == {
        "cold/warm pairs"}


def test_claims_on_one_quantity_read_one_pool_and_draw_its_requests_once(fake):
    with OllamaClient(fake.url) as client:
        pools = OllamaPools(client, "phi4", Budget(300.0), unload=lambda: None,
                            needed={"requests"})
        first = pools.for_quantity("prefill over decode rate")
        assert pools.for_quantity("server over client decode rate") is first
        a = decide_pool(first, prefill_over_decode, AtLeast(2.0), PAIRED, unit="x")
        drawn = rate_requests(fake)
        assert drawn == len(first.items) >= PAIRED.looks[0]
        # Four more claims on the two quantities of these requests: no new request
        # unless one needs more values than the pool already holds.
        for value, form in ((prefill_over_decode, AtLeast(5.0)),
                            (prefill_over_decode, AtLeast(2.0)),
                            (server_over_client, Within(0.8, 1.25)),
                            (server_over_client, Within(0.8, 1.25))):
            decide_pool(pools.for_quantity("prefill over decode rate"), value, form, PAIRED)
        assert rate_requests(fake) == len(first.items) <= PAIRED.looks[-1]
        assert a.extra["sample"]["pool"] == "requests"


def test_the_cold_warm_claims_share_one_series_of_unloads(fake):
    with OllamaClient(fake.url) as client:
        pools = OllamaPools(client, "phi4", Budget(300.0),
                            unload=lambda: client.unload("phi4", timeout=10.0,
                                                         poll_interval=0.01),
                            needed={"cold/warm pairs"})
        pairs = pools.for_quantity("cold over warm TTFT")
        assert pools.for_quantity("cold over warm load") is pairs
        assert pools.for_quantity("cold load") is pairs
        for _ in range(3):
            decide_pool(pairs, lambda p: p.ratio(lambda t: t.timing.ttft_ms), AtLeast(1.0),
                        PAIRED)
        assert unloads(fake) == len(pairs.items) <= PAIRED.looks[-1]


def test_only_the_pools_the_selected_claims_read_are_made(fake):
    with OllamaClient(fake.url) as client:
        pools = OllamaPools(client, "phi4", Budget(300.0), unload=lambda: None,
                            needed={"contexts"})
        assert [a.name for a in pools.budget.accounts] == ["contexts"]
        assert fake.exchanges == []  # making a pool sends nothing


PER_REQUEST = ["W1-DECODE-BANDWIDTH", "W2-PREFILL-FASTER", "MC-PREFILL-DECODE",
               "W2-TOKS-PER-SEC", "MC-TOKS-FORMULA"]
COLD_WARM = ["W2-COLD-TTFT", "W2-LOAD-DURATION", "MC-MMAP-COLD-START"]


@pytest.mark.slow
def test_the_tier_draws_one_sample_per_quantity_whatever_claims_judge_it(fake, tmp_path):
    """Eight timing claims on two samples: each sample's requests are drawn once (at most
    one pool's cap), where a sample per claim would take at least 9 values each."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    evidence = tmp_path / "evidence.json"
    files = [root / "tests" / "claims" / d / f for d, f in (
        ("w1", "test_ollama.py"), ("w2", "test_ollama_timing.py"),
        ("mc", "test_ollama_timing.py"))]
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
           "-p", "no:benchmark", "-q", "-m", "ollama", f"--rootdir={root}",
           "--claims-profile=generic", f"--ollama-host={fake.url}", "--ollama-allow-unload",
           f"--claims-evidence={evidence}", f"--claims-report-html={tmp_path / 'r.html'}",
           *[a for cid in PER_REQUEST + COLD_WARM for a in ("--claim", cid)], *map(str, files)]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)
    doc = json.loads(evidence.read_text("utf-8"))
    assert doc["run"]["complete"] is True, proc.stdout[-2000:]
    verdicts = {c["id"]: c["verdict"] for c in doc["claims"]}
    assert all(verdicts[c] != "error" for c in PER_REQUEST + COLD_WARM), verdicts
    assert 0 < rate_requests(fake) <= PAIRED.looks[-1] < 3 * PAIRED.looks[0]
    assert 0 < unloads(fake) <= PAIRED.looks[-1] < 2 * PAIRED.looks[0]
