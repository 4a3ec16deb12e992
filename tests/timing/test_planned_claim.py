"""W2-NUMCTX-NOT-SPEED's planned sample, end to end against the loopback fake Ollama.

The claim test runs in a child pytest (as the tier's own tests do) against
:class:`~claims.testing.fake_ollama.FakeOllama`, whose token interval is the same at
both contexts, so the claim is true there: it must never come out refuted. A quiet
fake decides it at the pilot; a fake whose requests scatter (``interval_factors``, in turn)
leaves the pilot undecided, and the evidence must then carry the plan (values, items,
seconds) and its bound beside the verdict, the sample never past either.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claims.testing.fake_ollama import FakeOllama
from claims.timing.policy import ALTERNATED

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CLAIM = "W2-NUMCTX-NOT-SPEED"
NAME = "decode rate at 4096 over 2048"


def _run(fake: FakeOllama, tmp_path: Path) -> dict[str, Any]:
    """The claim's test in a child pytest against ``fake``; its evidence record."""
    evidence = tmp_path / "evidence.json"
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
           "-p", "no:benchmark", "-q", "-m", "ollama", f"--rootdir={ROOT}",
           "--claims-profile=generic", f"--ollama-host={fake.url}", "--claim", CLAIM,
           f"--claims-evidence={evidence}", f"--claims-report-html={tmp_path / 'r.html'}",
           str(ROOT / "tests" / "claims" / "w2" / "test_ollama_timing.py")]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert evidence.is_file(), proc.stdout[-3000:] + proc.stderr[-2000:]
    doc = json.loads(evidence.read_text("utf-8"))
    assert doc["run"]["complete"] is True, proc.stdout[-3000:]
    (claim,) = [c for c in doc["claims"] if c["id"] == CLAIM]
    return dict(claim)


def _rule(claim: dict[str, Any]) -> dict[str, Any]:
    (check,) = claim["checks"]
    (attachment,) = [a for a in check["attachments"] if a["label"] == f"{NAME}: timing rule"]
    return dict(json.loads(attachment["content"]))


def _planned(claim: dict[str, Any]) -> dict[str, Any] | None:
    (check,) = claim["checks"]
    found = [m for m in check["measurements"] if m["name"] == f"{NAME}: planned sample"]
    return dict(found[0]) if found else None


def test_a_quiet_server_decides_the_claim_at_the_pilot(tmp_path: Path) -> None:
    with FakeOllama(token_interval_s=0.015, cold_load_s=0.02) as fake:
        claim = _run(fake, tmp_path)
    rule = _rule(claim)
    assert claim["verdict"] == "reproduced", claim.get("reason")
    assert rule["outcome"] == "holds" and len(rule["values"]) == ALTERNATED.looks[0]
    assert "size_plan" not in rule and _planned(claim) is None


def _pairs(fake: FakeOllama) -> int:
    """The alternated pairs the fake served (two streamed generations each)."""
    return sum(1 for e in fake.exchanges if e.path == "/api/generate"
               and isinstance(e.body, dict) and e.body.get("stream") is True) // 2


def _check_the_plan_is_kept(claim: dict[str, Any], pairs: int) -> dict[str, Any]:
    """The plan is in the evidence beside the verdict, and the sample kept within it."""
    rule = _rule(claim)
    plan = rule["size_plan"]
    shown = _planned(claim)
    assert shown is not None and shown["measured"]["planned"] == plan["planned"]
    assert shown["measured"]["bound_s"] == plan["bound_s"] and shown["note"] == plan["text"]
    assert "bounded at" in plan["text"] and plan["pilot"] == ALTERNATED.looks[0]
    assert plan["planned"] in ALTERNATED.looks[1:]
    # Never past the plan, in values, pairs or seconds.
    assert len(rule["values"]) <= plan["planned"] and pairs <= plan["planned_items"]
    assert rule["measured_s"] <= plan["bound_s"]
    return dict(plan)


def test_a_scattered_server_plans_a_sample_within_the_cap_and_decides_within_it(
    tmp_path: Path,
) -> None:
    # One reply in four 7 % slower, placed so that the pairs read 1.07, 1, 0.93, 1 in
    # turn (centred on 1: the claim is true): the pilot's interval, [0.93, 1.07], pokes
    # out of the ±5 % band; its width asks for about 24 pairs, within the cap of 28, and
    # the look at 20 (where the pairs at 1 outweigh the extremes) decides.
    # 15 ms a token, so that a busy machine's scheduling moves a pair by well under the
    # 7 % the fake puts there.
    with FakeOllama(token_interval_s=0.015, cold_load_s=0.02,
                    interval_factors=(1.07, 1, 1, 1, 1, 1.07, 1, 1)) as fake:
        claim = _run(fake, tmp_path)
        pairs = _pairs(fake)
    plan = _check_the_plan_is_kept(claim, pairs)
    assert not plan["at_bound"] and plan["required"] <= plan["planned"]
    assert claim["verdict"] == "reproduced", claim.get("reason")
    assert len(_rule(claim)["values"]) < ALTERNATED.looks[-1]


def test_a_noisy_server_plans_the_bound_and_ends_not_run_naming_it(tmp_path: Path) -> None:
    # Every other reply 9 % slower: the pairs read 0.92 and 1.09 in turn, centred on 1
    # (the claim is true) but too scattered for a ±5 % band within 28 pairs (about 37
    # would do), though not so scattered that more pairs are hopeless: the plan is the cap.
    with FakeOllama(token_interval_s=0.015, cold_load_s=0.02,
                    interval_factors=(1, 1.09)) as fake:
        claim = _run(fake, tmp_path)
        pairs = _pairs(fake)
    plan = _check_the_plan_is_kept(claim, pairs)
    assert plan["at_bound"] and plan["planned"] == ALTERNATED.looks[-1]
    assert claim["verdict"] == "not-run"
    assert "(the bound)" in claim["reason"]


def test_a_hopeless_server_stops_half_way_through_the_pilot(tmp_path: Path) -> None:
    # Every other reply 30 % slower: pairs of 0.77 and 1.3, which no number of pairs up
    # to the cap could fit into the band: half the pilot shows it and stops the sample
    # (futility) in that time, and the claim is not run, saying why.
    with FakeOllama(token_interval_s=0.01, cold_load_s=0.02,
                    interval_factors=(1, 1.3)) as fake:
        claim = _run(fake, tmp_path)
        pairs = _pairs(fake)
    rule = _rule(claim)
    assert claim["verdict"] == "not-run" and "stopped for futility after 6" in claim["reason"]
    assert len(rule["values"]) == pairs == ALTERNATED.looks[0] // 2
    assert "size_plan" not in rule and _planned(claim) is None
