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
    check.against("message role", (reply.get("message") or {}).get("role"))
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
