"""Ollama's HTTP API, measured from the client side with httpx.

Every request has explicit connect and read timeouts, and every reply is read
with a size cap, so a broken or hostile server ends a probe with one clear
:class:`~claims.probes.errors.ServerError` instead of a hang or unbounded
memory. Streamed replies are read line by line, each line stamped with its
arrival time before it is parsed, which the TTFT clock in
:mod:`claims.probes.live.timing` relies on. Endpoint facts (fields, versions)
follow the project's notes on Ollama's source rather than its marketing
documents.

The modules, each named for what it holds:

* :mod:`.errors` - the :class:`~claims.probes.errors.ServerError` subclasses,
  from "nothing answered" to "a reply of the wrong shape";
* :mod:`.names` - model names as Ollama compares them (``phi4`` = ``phi4:latest``);
* :mod:`.usage` - what a session cost the server: requests, model loads, generated
  tokens, and how each generation was bounded and sampled;
* :mod:`.display` - what the ``ollama`` CLI prints from API values (``ollama ps``'s PROCESSOR);
* :mod:`.payloads` - request bodies, and whole replies decoded and shape-checked;
* :mod:`.stream` - NDJSON line framing, bounded buffering, per-line arrival times;
* :mod:`.breaker` - stop asking a server once a request to it timed out (per process);
* :mod:`.transport` - the connection and its plain requests, with their timeouts;
* :mod:`.inventory`, :mod:`.loading`, :mod:`.generation`, :mod:`.admin`,
  :mod:`.openai_compat` - the endpoints, grouped by what they do;
* :mod:`.client` - :class:`OllamaClient`, all of them in one object.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The names below are imported when first used (PEP 562), not with the package: an
# offline run imports a leaf module (``.usage``, ``.stamps``) through this package,
# and the client's httpx would cost every certification a tenth of a second.
_SOURCES = {
    "OllamaClient": "client",
    "ReplyError": "errors",
    "ServerHTTPError": "errors",
    "ServerTimeout": "errors",
    "ServerUnavailable": "errors",
    "StreamError": "errors",
    "StructuredReply": "generation",
    "UnloadResult": "loading",
    "find_model": "names",
    "normalize_model_name": "names",
    "same_model": "names",
    "ANY_API_KEY": "openai_compat",
    "MAX_LINE_BYTES": "stream",
    "MAX_STREAM_BYTES": "stream",
    "StreamLine": "stream",
    "DEFAULT_STALL_TIMEOUT": "transport",
    "MAX_REPLY_BYTES": "transport",
}

if TYPE_CHECKING:
    from claims.probes.live.ollama_api.client import OllamaClient
    from claims.probes.live.ollama_api.errors import (
        ReplyError,
        ServerHTTPError,
        ServerTimeout,
        ServerUnavailable,
        StreamError,
    )
    from claims.probes.live.ollama_api.generation import StructuredReply
    from claims.probes.live.ollama_api.loading import UnloadResult
    from claims.probes.live.ollama_api.names import find_model, normalize_model_name, same_model
    from claims.probes.live.ollama_api.openai_compat import ANY_API_KEY
    from claims.probes.live.ollama_api.stream import MAX_LINE_BYTES, MAX_STREAM_BYTES, StreamLine
    from claims.probes.live.ollama_api.transport import DEFAULT_STALL_TIMEOUT, MAX_REPLY_BYTES


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{source}"), name)
    globals()[name] = value  # once: later lookups are plain module attributes
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCES})


__all__ = [
    "ANY_API_KEY",
    "DEFAULT_STALL_TIMEOUT",
    "MAX_LINE_BYTES",
    "MAX_REPLY_BYTES",
    "MAX_STREAM_BYTES",
    "OllamaClient",
    "ReplyError",
    "ServerHTTPError",
    "ServerTimeout",
    "ServerUnavailable",
    "StreamError",
    "StreamLine",
    "StructuredReply",
    "UnloadResult",
    "find_model",
    "normalize_model_name",
    "same_model",
]
