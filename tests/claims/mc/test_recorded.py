"""MC claims checked offline on recorded figures: the masterclass's own example reply, and
Week 2's recorded cold starts of phi4 on the DGX Spark (fixtures/recorded/MC.json, W2.json)."""

from __future__ import annotations

import pytest

from claims.testkit import Interval

pytestmark = pytest.mark.offline

PHASES = ("load_duration", "prompt_eval_duration", "eval_duration")


@pytest.mark.claim("MC-CHAT-REPLY", source="recorded")
def test_printed_chat_reply(check, reply_checks, recorded):
    reply = recorded("MC")["chat_example"]["reply"]
    reply_checks.fields("MC-CHAT-REPLY", reply)
    phases = sum(int(reply[k]) for k in PHASES)
    total = int(reply["total_duration"])
    check.measure(
        "load + prompt eval + eval within total_duration",
        f"{phases:,} of {total:,}",
        holds=0 < phases <= total,
        expected="the phases fit inside the total",
    )
    check.observe("total not in the three phases", total - phases, unit="ns")
    counts = [reply.get("prompt_eval_count"), reply.get("eval_count")]
    check.measure(
        "prompt_eval_count and eval_count",
        counts,
        holds=all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in counts),
        expected="whole token counts",
    )


@pytest.mark.claim("MC-MMAP-COLD-START", source="recorded")
def test_recorded_cold_starts_of_phi4(check, recorded):
    bench = recorded("W2")["benchmark"]
    cold = [row for row in bench["rows"] if row["cold"]]
    assert cold, "W2's benchmark records cold runs"
    for row in cold:
        load_s = Interval.stated(row["load_ms"]) / 1000
        check.against(
            "cold start",
            load_s,
            unit="s",
            model="phi4",
            note=f"W2 num_ctx {row['context']}: load_duration {row['load_ms']} ms after a stop",
        )
        check.observe(f"first token at num_ctx {row['context']}", row["ttft_ms"], unit="ms")


@pytest.mark.claim("MC-TEMPERATURE-RANGE", source="recorded")
def test_week2_used_temperatures_above_one(check, recorded):
    """Week 2's real requests to Ollama 0.31.2 (phi4): every temperature it sent, and
    whether the server answered it (a reply text recorded for it). Only a value above
    1.0 can contradict the stated upper bound."""
    w2 = recorded("W2")
    sent = [(float(run["temperature"]), run["replies"]) for run in w2["temperature_runs"]["runs"]]
    seed_run = w2["seed_runs"]
    sent.append((float(seed_run["request"]["options"]["temperature"]), seed_run["replies"]))
    for temperature, replies in sent:
        answered = [r for r in replies if isinstance(r, str) and r.strip()]
        check.measure(f"temperature {temperature:g} answered", len(answered),
                      holds=len(answered) == len(replies) > 0, expected="every request")
        # An accepted value inside 0-1 says nothing about the upper bound; one above it does.
        if temperature > 1:
            check.against("temperature range", temperature,
                          note=f"Week 2 sent it; {len(answered)} replies recorded")
        else:
            check.observe(f"temperature {temperature:g} (inside the stated range)", len(answered))
