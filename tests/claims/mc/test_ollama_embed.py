"""The masterclass's embedding claims on a live Ollama server (the ollama tier):
/api/embed takes an array, and one batched call against one request per text.
"""

from __future__ import annotations

from typing import Any

import pytest

from claims.probes.live.ollama_api.embedding_model import pick_embedding_model
from claims.testkit import not_run
from claims.testkit import record_decision as record
from claims.timing import AtLeast
from claims.timing.pools import EMBED_TEXTS

pytestmark = pytest.mark.ollama


# --- 5.4: embeddings --------------------------------------------------------------------------

def embedding_model(live: Any) -> Any:
    """An embedding-capable model the server already has (claims.probes picks it).

    With none, the check is not run: the model is a prerequisite the user can supply
    (like MC-TOOL-CALLS' tools model), so the reason gives the server's own answer and
    what to pass; "not applicable" is for another machine profile or model under test.
    """
    wanted = live.settings.ollama_embed_model
    pick = pick_embedding_model(live.client, wanted, live.model_name,
                                allow_pull=live.settings.allow_pull)
    if pick.name is None:
        not_run(pick.missing(wanted, live.model_name))
    if pick.name != wanted:
        live.check.observe("embedding model", pick.name, note=pick.why)
    return live.model(pick.name)


@pytest.mark.claim("MC-EMBED-BATCH")
def test_embed_takes_an_input_array(live, check):
    model = embedding_model(live)
    inputs = EMBED_TEXTS[:3]
    reply = live.client.embed(model.name, inputs)
    vectors = reply["embeddings"]
    live.exchange(
        "POST /api/embed (3 inputs)",
        "POST",
        "/api/embed",
        {"model": model.name, "input": inputs},
        {**reply, "embeddings": [[*v[:4], "…"] for v in vectors]},
    )
    check.measure(
        "one vector per input",
        len(vectors),
        holds=len(vectors) == len(inputs),
        expected=f"{len(inputs)} vectors",
    )
    dims = sorted({len(v) for v in vectors})
    check.measure(
        "vectors share one dimension",
        dims,
        holds=len(dims) == 1 and dims[0] > 0,
        expected="the model's embedding width",
    )
    check.observe("L2 norms", [round(sum(x * x for x in v) ** 0.5, 4) for v in vectors])


@pytest.mark.claim("MC-EMBED-BATCH-FASTER")
def test_batched_embedding_throughput(live, check, ollama_pools):
    """One batched /api/embed call against one request per text, pair by pair.

    Each pair of the run's embedding sample (claims.timing.pools) times the batch and
    the sequential requests back to back (their order alternating), so the machine's
    drift falls on both; the sign test's interval of the ratio sequential / batched
    decides against the catalog's bar.
    """
    from claims.timing.policy import PAIRED
    from claims.timing.procedures import decide_pool

    model = embedding_model(live)
    pool = ollama_pools.embedding(model.name)
    bar = check.premise("batch gain bar")
    decision = decide_pool(pool, lambda p: p[1] / p[0] if p[0] > 0 else None, AtLeast(bar),
                           PAIRED, unit="x")
    n = len(EMBED_TEXTS)
    check.observe("one batched call", [round(b, 4) for b, _ in pool.items], unit="s",
                  note=f"{n} texts per call")
    check.observe("sequential calls", [round(q, 4) for _, q in pool.items], unit="s",
                  note=f"{n} requests per pass")
    record(check, "throughput gain of one batched call", decision,
           expected=f"at least {bar:g}x, 'orders of magnitude' (catalog figure)")
