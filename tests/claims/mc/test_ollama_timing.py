"""The masterclass's timing claims on a live Ollama server (the ollama tier): the
tokens-per-second formula, keep_alive, the cold start and prefill against decode.

The bars ("far slower", "sub-second") are catalog figures; the rules and sample
sizes are claims.timing.policy's (each states its chance of refuting a true claim).
Unloading needs --ollama-allow-unload.
"""

from __future__ import annotations

from typing import Any

import pytest

from claims.probes.live.ollama_api.stamps import parse_time
from claims.probes.live.ollama_api.usage import bounded
from claims.probes.live.settle import SettleRule, settle_change
from claims.testkit import needs_flag, not_run
from claims.testkit import record_decision as record
from claims.timing import AtLeast

pytestmark = pytest.mark.ollama

COUNT_PROMPT = "Count from 1 to 200, separated by commas, and nothing else."


@pytest.mark.claim("MC-TOKS-FORMULA")
def test_tokens_per_second_formula(live, check, ollama_pools):
    """eval_count / eval_duration x 1e9 against the client's own clock, request by request.

    A wrong unit is off by a factor of 1,000; two clocks timing the same tokens agree
    within the catalog's band. Per request of the run's shared per-request sample
    (claims.timing.pools) the ratio of the two rates; the sign test's interval of
    their median decides (claims.timing.policy.PAIRED).
    """
    from claims.timing.per_request import decide_per_request
    from claims.timing.policy import clock_band
    from claims.timing.procedures import server_over_client

    pool = ollama_pools.for_quantity("server over client decode rate")
    band = clock_band(check)
    decision = decide_per_request(pool, server_over_client, band)
    first = live.first_request(pool)
    server = first.timing.server
    check.observe("eval_count / eval_duration x 1e9", [
        round(t.timing.server.decode_tokens_per_s or 0, 2) for t in pool.items], unit="tok/s")
    check.observe("(eval_count - 1) over first-to-last chunk, client clock", [
        round(t.timing.client_decode_tokens_per_s or 0, 2) for t in pool.items], unit="tok/s")
    limit = first.body["options"]["num_predict"]
    if first.timing.final.get("done_reason") == "length":
        check.measure(
            "eval_count counts the generated tokens",
            server.eval_count,
            holds=server.eval_count == limit,
            unit="tokens",
            expected=f"{limit} (num_predict) for a reply cut at the limit",
        )
    record(check, "formula rate over client-clock rate", decision,
           expected=f"{band.describe()}: eval_duration is the decode time in ns")


# Ollama updates a runner's expires_at when the request is released, a moment after the
# reply is sent (0.31.2: 0.3 s later on a busy machine; 0.32.15 after a fresh load wrote
# it twice, 1 ms apart). The expiry a request set is the one /api/ps shows unchanged
# for a second after a change (claims.probes.live.settle.settle_change), within 10 s.
EXPIRY_SETTLE = SettleRule(stable_s=1.0, timeout_s=10.0, poll_s=0.05)
# Go's largest time.Duration (2^63 - 1 ns, about 292 years): what Ollama adds to the
# current time for a negative keep_alive ("forever"); 2026 + 292 y = 2319.
GO_MAX_DURATION_S = (2**63 - 1) / 1e9


@pytest.mark.claim("MC-KEEPALIVE")
def test_keep_alive(live, check):
    needs_flag(
        live.settings.allow_unload, "--ollama-allow-unload", "testing keep_alive (it unloads)"
    )
    name = live.model_name
    live.unload()
    seen: list[str | None] = [None]

    def remaining_s(label: str, body: dict[str, Any]) -> float:
        """Seconds from the reply's created_at to the expires_at /api/ps settles on."""
        reply = live.generate(
            label, {"model": name, "prompt": "hi", "options": bounded(1), **body}
        )

        def expires() -> str | None:
            entry = live.client_ps_entry(name)
            return None if entry is None else entry.get("expires_at")

        settled = settle_change(expires, EXPIRY_SETTLE, seen[0])
        live.exchange(f"GET /api/ps after {label}", "GET", "/api/ps", None, settled.to_json())
        if settled.value is None or not settled.stable:
            not_run(f"/api/ps did not settle on an expires_at after {label}: "
                    f"{settled.describe()}")
        check.observe(
            f"{label}: /api/ps until expires_at was stable",
            settled.reads,
            note=f"previous expires_at {seen[0]}; settled on {settled.value}, "
            f"{settled.describe()}",
        )
        seen[0] = str(settled.value)
        return (
            parse_time(str(settled.value)) - parse_time(str(reply["created_at"]))
        ).total_seconds()

    default_s = remaining_s("fresh load without keep_alive", {})
    check.against(
        "default keep-alive",
        default_s / 60,
        note="expires_at minus the reply's "
        "created_at; OLLAMA_KEEP_ALIVE on the server changes the default",
    )
    # The durations the answer names; how close the expiry must come is the catalog's.
    hours = check.premise("keep_alive 24h")
    day_s = remaining_s(f"keep_alive {hours:g}h", {"keep_alive": f"{hours:g}h"})
    check.against("keep_alive 24h", day_s / 3600, note="expires_at minus the reply's created_at")
    forever_s = remaining_s("keep_alive -1", {"keep_alive": -1})
    # "Forever" is Go's largest duration past now (year 2319).
    check.against(
        "keep_alive -1 pins it",
        forever_s / 86400 / 365.25,
        note=f"expires_at minus the reply's created_at; Go's largest duration is "
        f"{GO_MAX_DURATION_S / 86400 / 365.25:.1f} years",
    )
    result = live.client.unload(name, timeout=60.0)  # an empty request with keep_alive 0
    check.against(
        "keep_alive 0 unloads",
        result.done_reason in (None, "unload"),
        note=f"done_reason {result.done_reason!r}; /api/ps dropped the model after "
        f"{result.seconds_until_gone:.3f} s ({result.polls} polls)",
    )


@pytest.mark.claim("MC-MMAP-COLD-START")
def test_cold_start_after_stop(live, check, ollama_pools):
    """load_duration of the first request after an unload against the stated sub-second.

    The cold requests are the run's shared cold/warm pairs (claims.timing.pools, also
    read by W2-COLD-TTFT and W2-LOAD-DURATION). Where the figure's scope (its model and
    profile, the check's rule) covers this run, the sign test's interval of the cold
    loads' median is compared (claims.timing.policy.PAIRED): a refutation needs the
    whole interval above one second. Elsewhere one cold load is shown and the figure
    reported not applicable.
    """
    from claims.figures import Interval
    from claims.timing.policy import PAIRED

    needs_flag(
        live.settings.allow_unload, "--ollama-allow-unload", "measuring a cold start (unload first)"
    )
    pool = ollama_pools.for_quantity("cold load")
    if not check.applies("cold start", model=live.model_name):
        # Out of scope: shown beside (one cold load, the first the shared pairs hold).
        if not pool.items:
            pool.extend(1)
        load_s = (pool.items[0].b.timing.server.load_ns or 0) / 1e9 if pool.items else None
        if load_s is not None:
            check.observe("load_duration", round(load_s, 3), unit="s")
        check.against("cold start", load_s, unit="s", model=live.model_name)
        return

    def cold_load(p: Any) -> float | None:
        ns = p.b.timing.server.load_ns
        return ns / 1e9 if ns else None

    draw = pool.drawer(cold_load)
    loads = draw(PAIRED.looks[0])
    check.observe("load_duration per cold request", [round(x, 3) for x in loads], unit="s")
    est = PAIRED.interval(loads) if loads else None
    if est is None or not est.decided:
        not_run(f"not decided: {len(loads)} of the {PAIRED.looks[0]} cold loads the interval "
                f"needs, in {pool.spent_s:.0f} s ({pool.stopped})")
    assert est.lo is not None and est.hi is not None
    check.against("cold start", Interval(est.lo, est.hi), unit="s", model=live.model_name,
                  note=f"{est.describe('s')}; chance of refuting a true claim at most "
                  f"{est.miss_each_side:.2%}")


@pytest.mark.claim("MC-PREFILL-DECODE")
def test_prefill_far_faster_than_decode(live, check, ollama_pools):
    """Prefill's per-token rate over decode's, request by request, against the catalog's bar.

    The requests are the run's shared per-request sample (claims.timing.pools), each
    with a fresh nonce in front, which keeps its prompt out of Ollama's prompt cache;
    the sign test's interval of the median ratio decides (claims.timing.policy.PAIRED).
    """
    from claims.timing.per_request import decide_per_request
    from claims.timing.procedures import prefill_over_decode

    pool = ollama_pools.for_quantity("prefill over decode rate")
    bar = check.premise("far slower bar")
    decision = decide_per_request(pool, prefill_over_decode, AtLeast(bar))
    first = live.first_request(pool)
    check.observe("prompt tokens", first.timing.server.prompt_eval_count, unit="tokens")
    # "Hundreds to thousands" names no model or hardware (as in the engine tier): shown,
    # not judged; on a shared CPU it also moves with the machine's load.
    check.observe(
        "prefill rate",
        [round(t.timing.server.prefill_tokens_per_s or 0, 1) for t in pool.items],
        unit="tok/s",
        note="the answer's 'hundreds to thousands' names no model or hardware; not compared",
    )
    record(check, "prefill over decode, per token", decision,
           expected=f"decode far slower per token (at least {bar:g}x), the median over requests")
