"""One shared sample per measured quantity of a live Ollama server, drawn once per run.

Every timing figure of the catalog names the quantity it judges
(:data:`claims.catalog.records.TIMING_QUANTITIES`); each quantity is read from
one pool of requests, whichever claims judge it and in whatever order they run:

* ``requests`` (per request): streamed requests of one long prompt, each with a
  fresh nonce in front (so its whole prompt is evaluated, never the prompt cache);
  each gives its prefill and decode rate by the server's clock and its decode rate
  by the client's: *prefill over decode rate* and *server over client decode rate*;
* ``cold/warm pairs`` (paired cold/warm): an unload settled in /api/ps, a request
  cold, the same request warm: *cold over warm TTFT*, *cold over warm load* and
  the *cold load* itself;
* ``contexts`` (alternated): Week 2's prompt at num_ctx 2048 and 4096 sent
  alternately (2048 4096, 4096 2048, ...; each switch reloads the runner, on both
  contexts equally often): *decode rate by context*, and /api/ps after each
  context's first run;
* ``embedding`` (alternated): one batched /api/embed call against one request
  per text, their order alternating: *batched over sequential embedding*.

A claim asks its decision for values and the pool draws requests only while the
values it holds are too few (:class:`~claims.timing.procedures.SamplePool`), so a
second claim on a quantity reads the first's requests and costs none of its own.
All pools draw on one :class:`~claims.timing.budget.Budget`, the tier's
``--ollama-budget``, shared so that each can reach its first look.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from claims.catalog.records import TIMING_QUANTITIES
from claims.probes.live.ollama_api.names import find_model
from claims.probes.live.ollama_api.usage import bounded
from claims.timing.budget import Budget
from claims.timing.policy import ALTERNATED, PAIRED
from claims.timing.procedures import (
    Pair,
    SamplePool,
    Timed,
    alternating_pairs,
    cold_warm_pairs,
    repeated_requests,
    timed_pairs,
)

__all__ = [
    "BENCH_CONTEXTS",
    "EMBED_TEXTS",
    "POOL_OF",
    "WEEK2_PROMPT",
    "OllamaPools",
    "pools_for",
]

WEEK2_PROMPT = "Explain Kubernetes scheduling in three sentences."
BENCH_CONTEXTS = (2048, 4096)
# Week 2's benchmark asks for 96 tokens. The contexts' value is a request's typical
# decode step (the median gap between its streamed tokens), and a pair costs a runner
# reload whatever its length: 64 tokens (63 gaps) add 80 decode steps to a pair of
# 24-token requests, and a burst of other work of a given length preempts a smaller share
# of a longer request's gaps (the median moves only when about half of them are hit), so
# the median step and the pair's ratio scatter less: fewer pairs decide
# (claims.timing.policy.ALTERNATED plans their number from the pilot's scatter).
CONTEXT_TOKENS = 64
CONTEXT_OPTIONS = bounded(CONTEXT_TOKENS)
# A cold request needs only its first token (TTFT) and its load.
COLD_OPTIONS = bounded(4)
# About 300 prompt tokens, so that prefill runs in full batches and its rate is not
# fixed per-call cost; 16 generated tokens time the decode by both clocks.
RATE_LINES = 20
RATE_OPTIONS = bounded(16)
EMBED_TEXTS = [f"Sentence number {i} about local inference on a GPU." for i in range(32)]

# Which pool measures each quantity (the catalog's names), and the plan its claims use.
POOL_OF: dict[str, str] = {
    "prefill over decode rate": "requests",
    "server over client decode rate": "requests",
    "cold over warm TTFT": "cold/warm pairs",
    "cold over warm load": "cold/warm pairs",
    "cold load": "cold/warm pairs",
    "decode rate by context": "contexts",
    "batched over sequential embedding": "embedding",
}
_FIRST_LOOK = {
    "requests": PAIRED.looks[0],
    "cold/warm pairs": PAIRED.looks[0],
    "contexts": ALTERNATED.looks[0],
    "embedding": PAIRED.looks[0],
}
_CAP = {
    "requests": PAIRED.looks[-1],
    "cold/warm pairs": PAIRED.looks[-1],
    "contexts": ALTERNATED.looks[-1],
    "embedding": PAIRED.looks[-1],
}
# Requests (or loads) per item, for reserving a pool's first look before it has
# measured anything: a pair of contexts is two requests and a reload, a cold/warm
# pair two requests and a load, an embedding pair one batch and 32 short requests.
_REQUESTS_PER_ITEM = {"requests": 1.0, "cold/warm pairs": 3.0, "contexts": 3.0,
                      "embedding": 8.0}

assert set(POOL_OF) == set(TIMING_QUANTITIES), "every catalog quantity has a pool"


def pools_for(quantities: Iterable[str]) -> set[str]:
    """The pools that measure ``quantities`` (unknown names are the loader's to refuse)."""
    return {POOL_OF[q] for q in quantities if q in POOL_OF}


def rate_prompt() -> str:
    """The per-request prompt: a fresh nonce, then about 300 tokens of text."""
    lines = " ".join(
        f"Item {i}: the scheduler assigns pods to nodes by resources." for i in range(RATE_LINES)
    )
    return f"Reference {uuid.uuid4().hex}. {lines}\nSummarise in one sentence."


class OllamaPools:
    """The ollama tier's pools for one model, created once per run, drawn on demand.

    ``needed``: the pools the run's selected claims read (:func:`pools_for` of
    their figures' quantities); only they reserve their first look in the budget
    up front. ``unload`` unloads the model (cold/warm pairs need it; the claims
    that read them check the opt-in flag first).
    """

    def __init__(
        self,
        client: Any,
        model: str,
        budget: Budget,
        *,
        unload: Callable[[], Any],
        needed: Iterable[str] | None = None,
    ) -> None:
        self.client = client
        self.model = model
        self.budget = budget
        self._unload = unload
        self.ps: dict[int, dict[str, Any] | None] = {}
        self._pools: dict[str, SamplePool[Any]] = {}
        self._embed_model: str | None = None
        for name in sorted(set(needed) if needed is not None else set(_FIRST_LOOK)):
            if name != "embedding":  # its model is known only when a claim picks it
                self.pool(name)

    def _shared(self, name: str) -> dict[str, Any]:
        return {"budget": self.budget, "name": name, "first_look": _FIRST_LOOK[name],
                "requests_per_item": _REQUESTS_PER_ITEM[name]}

    def pool(self, name: str) -> SamplePool[Any]:
        """The pool ``name`` ("requests", "cold/warm pairs", "contexts"), made once."""
        if name not in self._pools:
            self._pools[name] = self._make(name)
        return self._pools[name]

    def for_quantity(self, quantity: str) -> SamplePool[Any]:
        """The pool that measures a catalog quantity."""
        return self.pool(POOL_OF[quantity])

    def _make(self, name: str) -> SamplePool[Any]:
        cap, shared = _CAP[name], self._shared(name)
        if name == "requests":
            return repeated_requests(
                self.client,
                lambda i: {"model": self.model, "prompt": rate_prompt(),
                           "options": dict(RATE_OPTIONS)},
                cap=cap, **shared,
            )
        if name == "cold/warm pairs":
            return cold_warm_pairs(
                self.client,
                self._unload,
                lambda i: {"model": self.model, "prompt": WEEK2_PROMPT,
                           "options": {**COLD_OPTIONS, "num_ctx": BENCH_CONTEXTS[i % 2]}},
                cap=cap, **shared,
            )
        if name == "contexts":
            return alternating_pairs(
                self.client,
                BENCH_CONTEXTS,
                self._context_body,
                lambda ctx, i: f"pair {i + 1}, num_ctx {ctx}",
                cap=cap, on_request=self._after, **shared,
            )
        raise KeyError(f"no pool named {name!r} (the embedding pool needs embedding())")

    def _context_body(self, context: int, index: int) -> dict[str, Any]:
        # A fresh nonce in front keeps the prompt out of the prompt cache.
        return {"model": self.model, "prompt": f"Request {uuid.uuid4().hex[:8]}. {WEEK2_PROMPT}",
                "options": {**CONTEXT_OPTIONS, "num_ctx": context}}

    def _after(self, item: Timed) -> None:
        if item.condition not in self.ps:
            self.ps[item.condition] = find_model(self.client.ps(), self.model)

    # --- the contexts' pool, as the Week 2 claims read it ---------------------------
    def contexts_started(self) -> list[Pair]:
        """The alternated pairs, with at least one drawn (for /api/ps after each context)."""
        pool = self.pool("contexts")
        if not pool.items:
            pool.extend(1)
        return pool.items

    # --- the embedding pool --------------------------------------------------------
    def embedding(self, model: str) -> SamplePool[tuple[float, float]]:
        """(batched, sequential) seconds for EMBED_TEXTS on ``model``, order alternating."""
        if self._embed_model not in (None, model):
            raise ValueError(f"the embedding pool measures {self._embed_model}, not {model}")
        if "embedding" not in self._pools:
            self._embed_model = model
            self.client.embed(model, EMBED_TEXTS[0])  # load and warm up

            def batch() -> float:
                started = time.perf_counter()
                self.client.embed(model, EMBED_TEXTS)
                return time.perf_counter() - started

            def sequential() -> float:
                started = time.perf_counter()
                for text in EMBED_TEXTS:
                    self.client.embed(model, text)
                return time.perf_counter() - started

            def run(i: int) -> tuple[float, float]:
                if i % 2:
                    seq = sequential()
                    return batch(), seq
                b = batch()
                return b, sequential()

            self._pools["embedding"] = timed_pairs(run, cap=_CAP["embedding"],
                                                   **self._shared("embedding"))
        pool: SamplePool[tuple[float, float]] = self._pools["embedding"]
        return pool

    def to_json(self) -> dict[str, Any]:
        """What the run spent on each pool, for the evidence."""
        return self.budget.to_json()
