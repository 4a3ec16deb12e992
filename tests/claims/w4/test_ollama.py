"""W4's loaded-memory claims, measured on a live Ollama server (the ollama tier).

The post loads llama3.2:3b at a 4,096- and a 16,384-token context and reads
`ollama ps`; here the model under test (--ollama-model) is loaded the same way
and /api/ps is read. The post's GB figures are compared only for llama3.2:3b on
the dgx-spark profile; otherwise the general form is checked: the loaded size
exceeds the package and grows with the context, and the growth is mostly the
KV cache that the model's own shape (from /api/show's model_info) predicts, with
sliding-window layers keeping only their window (claims.probes.live.engine.kv.KVShape,
the same formula the engine tier uses).

Each context is set by a one-token request (num_predict 1), as in the post;
Ollama reloads the runner when num_ctx changes, so no unload is needed. With
--ollama-allow-unload the model is unloaded first, exactly as the post did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from claims.probes.live.ollama_api.usage import bounded
from claims.testkit import not_run

pytestmark = pytest.mark.ollama

CONTEXTS = (4096, 16384)
# Week 4 calls the KV cache the expected *main* cause of the growth and computes no
# share: the suite's reading of "main" is the catalog's figure "KV formula over measured
# growth" (W4-GROWTH-IS-KV), judged by the check.
# Ollama starts its llama.cpp runner with -ub 512 (the server log's command line);
# a window layer keeps its window plus one micro-batch of cells.
RUNNER_UBATCH = 512


@dataclass
class Loads:
    package: int | None
    ps: dict[int, dict[str, Any] | None]


@pytest.fixture(scope="module")
def loads(ollama_client: Any, ollama_model: Any, claims_settings: Any) -> Loads:
    from claims.probes.live.ollama_api import find_model

    contexts = [min(c, int(ollama_model.info("context_length") or c)) for c in CONTEXTS]
    seen: dict[int, dict[str, Any] | None] = {}
    for context in contexts:
        if claims_settings.allow_unload:
            ollama_client.unload(ollama_model.name, timeout=60.0)
        ollama_client.post_json(
            "/api/generate",
            {
                "model": ollama_model.name,
                "prompt": "hi",
                "stream": False,
                "options": bounded(1, num_ctx=context),
            },
        )
        seen[context] = find_model(ollama_client.ps(), ollama_model.name)
    return Loads(ollama_model.size, seen)


def _sizes(live: Any, loads: Loads) -> tuple[int, int, int, int]:
    live.exchange(
        "GET /api/ps after each load",
        "GET",
        "/api/ps",
        None,
        {str(c): e for c, e in loads.ps.items()},
    )
    (c1, e1), (c2, e2) = loads.ps.items()
    if e1 is None or e2 is None:
        not_run(
            "/api/ps did not list the model right after loading it (another client "
            "may have unloaded it); rerun while no other client uses the server"
        )
    for ctx, entry in ((c1, e1), (c2, e2)):
        if entry.get("context_length") not in (None, ctx):
            live.check.observe(f"context_length at num_ctx {ctx}", entry.get("context_length"))
    return c1, int(e1["size"]), c2, int(e2["size"])


@pytest.mark.claim("W4-LOADED-GROWS")
def test_loaded_size_grows_with_context(live, check, loads):
    model = live.model()
    c1, small, c2, large = _sizes(live, loads)
    name = model.name
    if loads.package is not None:
        check.against(
            "package",
            loads.package,
            unit="B",
            model=name,
            note=f"{loads.package:,} bytes (/api/tags size)",
        )
        check.measure(
            "loaded size exceeds the package",
            {"package": loads.package, f"loaded at {c1}": small},
            holds=small > loads.package,
            unit="B",
            expected="runtime memory above the weights on disk",
        )
    check.against("loaded at 4096", small, unit="B", model=name, note=f"{small:,} bytes at {c1}")
    check.against("loaded at 16384", large, unit="B", model=name, note=f"{large:,} bytes at {c2}")
    check.against(
        "growth",
        large - small,
        unit="B",
        model=name,
        note=f"{large - small:,} bytes, from exact /api/ps sizes (not rounded labels)",
    )
    check.measure(
        f"loaded size grows from {c1} to {c2}",
        large - small,
        holds=large > small,
        unit="B",
        expected="more memory at the larger context",
    )


class _ShowInfo:
    """/api/show's model_info in the shape KVShape reads a GGUF header from."""

    def __init__(self, model: Any) -> None:
        self.path = f"/api/show {model.name} model_info"
        self._info = model.model_info

    def get(self, key: str) -> Any:
        return self._info.get(key)


def kv_shape(model: Any) -> Any:
    """The KV formula's inputs from /api/show's model_info (layers, heads, window)."""
    from claims.probes.live.engine.kv import KVShape
    from claims.testkit import ProbeError

    try:
        return KVShape.from_header(_ShowInfo(model))  # type: ignore[arg-type]
    except ProbeError as exc:
        not_run(f"/api/show's model_info does not give the KV shape of {model.name}: {exc}")


@pytest.mark.claim("W4-GROWTH-IS-KV")
def test_growth_matches_the_kv_formula(live, check, loads):
    model = live.model()
    c1, small, c2, large = _sizes(live, loads)
    shape = kv_shape(model)
    check.observe(
        "shape (layers, KV heads, key length, value length)",
        [shape.layers, max(shape.kv_heads), shape.key_length, shape.value_length],
        note=f"{model.architecture}.* keys of /api/show model_info; f16 cache assumed "
        "(OLLAMA_KV_CACHE_TYPE unset)",
    )
    if shape.sliding_window is not None:
        check.observe(
            "sliding-window layers",
            {"window": shape.sliding_window, "window layers": shape.window_layers,
             "global layers": shape.global_layers},
            note=f"{shape.swa_source}; a window layer keeps its window plus one micro-batch "
            f"({RUNNER_UBATCH}) of cells at any context",
        )
    check.against("extra context", c2 - c1, note=f"{c1} -> {c2} tokens")
    at_small = shape.swa_aware_bytes(c1, RUNNER_UBATCH)
    at_large = shape.swa_aware_bytes(c2, RUNNER_UBATCH)
    if at_small is None or at_large is None:
        not_run(f"{model.name} has a sliding window whose layer pattern is not known here "
                f"({shape.swa_source})")
    formula = at_large - at_small
    measured = large - small
    check.observe("KV formula for the extra tokens", int(formula), unit="B")
    check.observe(
        "KV formula with every layer keeping the whole context",
        int(shape.naive_bytes(c2) - shape.naive_bytes(c1)),
        unit="B",
        note="shown for comparison: window layers do not grow with the context",
    )
    check.against("growth", measured, unit="B", model=model.name)
    share = formula / measured if measured > 0 else float("inf")
    check.against(
        "KV formula over measured growth",
        share,
        note="the KV cache is the main part of the growth, and no more than the growth; "
        "OLLAMA_NUM_PARALLEL above 1 multiplies the KV cache (ratio near 1/N)",
    )
