"""What a session of requests cost the server: model loads, generated tokens, bounds.

A certification run has to say how much work it asked of the server (the tier's
run time is mostly model loads and generated tokens) and whether every
generation was bounded and deterministic where the claim did not need otherwise.
:class:`Usage` keeps those counts for one client; the client feeds it when its
``usage`` attribute is set (the live tier's session client does).

Model loads are observed, not guessed: /api/ps is read just before and just
after each generation request (about a millisecond each, outside every timed
span), and a load is counted when the model was not listed before and is
after, or is listed with another context length (Ollama reloads the runner for
a new num_ctx). A reload with the same context while the model stayed listed
(other options that force one) would not be seen; unloads are counted from the
``keep_alive: 0`` requests that cause them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from claims.probes.files.ollama_store.names import same_model

__all__ = ["FIXED_SAMPLING", "GENERATION_PATHS", "Usage", "bound_of", "bounded", "sampling_of"]

# What every request that is not about randomness sends, so that a verdict does not
# hang on a sampled token: greedy decoding and Week 2's own seed. Requests about
# randomness say what they leave free; :class:`Usage` counts both kinds.
FIXED_SAMPLING: dict[str, Any] = {"temperature": 0, "seed": 42}


def bounded(num_predict: int, **options: Any) -> dict[str, Any]:
    """Options of a deterministic request whose reply is at most ``num_predict`` tokens.

    A base model may never stop on its own and runs to its context limit (minutes
    on a CPU); no claim the suite checks needs an unbounded reply.
    """
    return {**FIXED_SAMPLING, "num_predict": num_predict, **options}

# Requests that run the model (and may load it); /api/show, /api/ps, /api/tags do not.
GENERATION_PATHS = frozenset(
    {"/api/generate", "/api/chat", "/api/embed", "/api/embeddings", "/v1/chat/completions"}
)
_TEXT_PATHS = frozenset({"/api/generate", "/api/chat", "/v1/chat/completions"})


def _asks_for_text(path: str, body: Mapping[str, Any]) -> bool:
    """A request that generates text (not a bare load or unload with no prompt)."""
    if path == "/api/generate":
        return bool(body.get("prompt"))
    if path in ("/api/chat", "/v1/chat/completions"):
        return bool(body.get("messages"))
    return False


def bound_of(path: str, body: Mapping[str, Any]) -> str | None:
    """How a text request is bounded ("num_predict=16", "max_tokens=8"), or None if it is not.

    A stop string alone does not bound a reply (the model may never write it),
    so only a token limit counts; stop strings are shown beside it.
    """
    options = body.get("options") if isinstance(body.get("options"), Mapping) else {}
    assert isinstance(options, Mapping)
    limit = options.get("num_predict")
    label = None
    if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0:
        label = f"num_predict={limit}"
    elif path == "/v1/chat/completions":
        for key in ("max_tokens", "max_completion_tokens"):
            value = body.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                label = f"{key}={value}"
    stop = options.get("stop") or body.get("stop")
    if label is not None and stop:
        label += f", stop={stop!r}"
    return label


def sampling_of(path: str, body: Mapping[str, Any]) -> str:
    """"fixed" when temperature 0 or a seed pins the reply, else what is left to chance."""
    options = body.get("options") if isinstance(body.get("options"), Mapping) else {}
    assert isinstance(options, Mapping)
    temperature = options.get("temperature", body.get("temperature"))
    seed = options.get("seed", body.get("seed"))
    if seed is not None and temperature is not None:
        return "fixed"
    if temperature == 0:
        return "fixed"
    missing = [k for k, v in (("seed", seed), ("temperature", temperature)) if v is None]
    return "random (no " + " and no ".join(missing) + ")"


def _entry(models: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    for entry in models:
        for key in ("name", "model"):
            value = entry.get(key)
            if isinstance(value, str) and same_model(value, name):
                return entry
    return None


@dataclass
class Usage:
    """Counts for one client: requests, loads, unloads, generated tokens, bounds, sampling."""

    requests: int = 0
    model_loads: int = 0
    unloads: int = 0
    generated_tokens: int = 0
    bounds: Counter[str] = field(default_factory=Counter)
    sampling: Counter[str] = field(default_factory=Counter)
    unbounded: list[str] = field(default_factory=list)
    unknown_loads: int = 0  # /api/ps could not be read around a request
    # Of ``requests``: the suite's own, sent through a client library (the openai or ollama
    # package) rather than this client; their loads are not observed.
    sdk_requests: int = 0

    def before(self, path: str, body: Any, listed: list[dict[str, Any]] | None) -> Any:
        """Note a request about to be sent; returns what :meth:`after` needs."""
        if path not in GENERATION_PATHS or not isinstance(body, Mapping):
            return None
        name = str(body.get("model") or "")
        self.requests += 1
        if path in _TEXT_PATHS and _asks_for_text(path, body):
            bound = bound_of(path, body)
            if bound is None:
                self.unbounded.append(f"{path} {name}")
            else:
                self.bounds[bound] += 1
            self.sampling[sampling_of(path, body)] += 1
        if body.get("keep_alive") in (0, "0", "0s") and not _asks_for_text(path, body):
            self.unloads += 1
        entry = None if listed is None else _entry(listed, name)
        return (name, listed is not None, entry)

    def after(self, token: Any, reply: Any, listed: list[dict[str, Any]] | None) -> None:
        """Note the reply (its token count) and the loaded models just after it."""
        if token is None:
            return
        name, known_before, before = token
        if isinstance(reply, Mapping):
            count = reply.get("eval_count")
            usage = reply.get("usage")
            if isinstance(usage, Mapping):
                count = usage.get("completion_tokens")
            if isinstance(count, int) and not isinstance(count, bool):
                self.generated_tokens += count
        if not known_before:
            self.unknown_loads += 1
            return
        if listed is None:
            return  # another client's request (external): tokens only
        after = _entry(listed, name)
        if after is None:
            return  # unloaded by this request, or not a model the server loads
        if before is None or before.get("context_length") != after.get("context_length"):
            self.model_loads += 1

    def external(self, path: str, body: Mapping[str, Any], reply: Any) -> None:
        """Count a request the suite sent through a client library (the openai or ollama
        package) instead of this client: one of its own requests, its loads not observed."""
        token = self.before(path, body, None)
        if token is not None:
            self.after((token[0], True, None), reply, None)
            self.sdk_requests += 1

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "model_loads": self.model_loads,
            "unloads": self.unloads,
            "generated_tokens": self.generated_tokens,
            "bounds": dict(sorted(self.bounds.items())),
            "sampling": dict(sorted(self.sampling.items())),
            "unbounded": list(self.unbounded),
            "loads_not_observed": self.unknown_loads,
            "requests_through_sdk_clients": self.sdk_requests,
            "how": "requests: every generation request the suite sent, those through the "
            "openai and ollama packages included (requests_through_sdk_clients); loads: "
            "/api/ps read before and after each of this client's generation requests "
            "(not listed before, or listed with another context_length after)",
        }
