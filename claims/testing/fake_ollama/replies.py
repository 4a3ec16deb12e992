"""What a fake Ollama writes in its replies: times, token pieces, scripted texts, vectors.

Plain functions of the request, no server state: Ollama's time format
(:func:`_iso`), a reply split into token-sized pieces, the prompt tokens of a chat
history as Ollama truncates it to num_ctx, a value satisfying a JSON schema, a unit
embedding vector, phi4's token strings.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from gguf.vocab import bytes_to_unicode

from claims.probes.tokens.cl100k_base import cl100k

__all__ = ["GO_MAX_DURATION_S"]


# A negative keep_alive is stored by Ollama as Go's largest time.Duration (2^63 - 1
# ns, about 292 years), so /api/ps shows an expires_at that far ahead (the captures:
# 2319-03-13 from 2026-12-01).
GO_MAX_DURATION_S = (2**63 - 1) / 1e9


def _iso(ts: float) -> str:
    """A time as Ollama writes it: RFC 3339 with nanoseconds and Z ("never": Go's maximum)."""
    if math.isinf(ts):
        ts = time.time() + GO_MAX_DURATION_S
    whole = math.floor(ts)
    nanos = min(int((ts - whole) * 1e9), 999_999_999)
    return datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"


# Where a reply puts its text: generate's "response", chat's assistant "message".
Shape = Callable[[str, dict[str, Any]], dict[str, Any]]


def _as_response(text: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"response": text, **extra}


def _as_message(text: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": text, **extra}}


def _pieces(text: str) -> list[str]:
    """Split a reply into token-sized pieces (word or punctuation with its space)."""
    return re.findall(r"\s*[\w'-]+|\s*[^\w\s]|\s+$", text) or [text]


def _with_tag(name: str) -> str:
    """A model name completed as Ollama completes it: ``:latest`` when it has no tag."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


BASE_MODEL_TEXT = " ".join(
    ["and then the next note says what the cluster did, which node it used, and why"] * 12
)


NO_EMBEDDINGS = "This server does not support embeddings. Start it with `--embeddings`"


PHI4_VOCAB_SIZE = 100_352


PHI4_SPECIALS = {
    100257: "<|endoftext|>",
    100264: "<|im_start|>",
    100265: "<|im_end|>",
    100266: "<|im_sep|>",
}


def _phi4_tokens() -> list[str]:
    """phi4's token strings as its GGUF writes them: cl100k_base in GPT-2 byte-level form."""

    enc = cl100k()
    table = bytes_to_unicode()
    tokens = []
    for i in range(PHI4_VOCAB_SIZE):
        if i in PHI4_SPECIALS:
            tokens.append(PHI4_SPECIALS[i])
            continue
        try:
            raw = enc.decode_single_token_bytes(i)
        except KeyError:
            tokens.append(f"<|dummy_{i}|>")
            continue
        tokens.append("".join(table[b] for b in raw))
    return tokens


def _message_tokens(message: Any) -> int:
    """A message's prompt tokens in the fake's template: its pieces plus 4 for the markers."""
    content = message.get("content", "") if isinstance(message, dict) else ""
    return len(_pieces(str(content))) + 4


def _prompt_tokens(messages: list[Any]) -> int:
    return 3 + sum(_message_tokens(m) for m in messages)


def _truncate_history(messages: list[Any], num_ctx: int) -> list[Any]:
    """Ollama's chatPrompt (server/prompt.go): drop messages from the front until the
    prompt fits num_ctx, keeping the system messages of the dropped part and always
    the last message."""
    for i in range(len(messages)):
        system = [m for m in messages[:i] if isinstance(m, dict) and m.get("role") == "system"]
        kept = system + messages[i:]
        if _prompt_tokens(kept) <= num_ctx or i == len(messages) - 1:
            return kept
    return messages


def _truncate(pieces: list[str], options: dict[str, Any]) -> list[str]:
    limit = options.get("num_predict")
    if isinstance(limit, int) and limit >= 0:
        return pieces[:limit]
    return pieces


def _unit_vector(text: str, dims: int) -> list[float]:
    rng = random.Random(hashlib.sha256(text.encode()).digest())
    vec = [rng.gauss(0.0, 1.0) for _ in range(dims)]
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec]


def _instance(schema: Any) -> Any:
    """A small value that satisfies a simple JSON schema (what a constrained model emits)."""
    if not isinstance(schema, dict):
        return "text"
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object" or "properties" in schema:
        return {k: _instance(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return [_instance(schema.get("items") or {})]
    if kind == "integer":
        return max(int(schema.get("minimum", 3)), 0)
    if kind == "number":
        return 2.5
    if kind == "boolean":
        return True
    return "Atlas"
