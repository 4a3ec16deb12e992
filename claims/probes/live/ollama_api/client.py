"""The Ollama client: plain requests (:mod:`.transport`) and every endpoint group in one object."""

from __future__ import annotations

from claims.probes.live.ollama_api.admin import AdminEndpoints
from claims.probes.live.ollama_api.generation import GenerationEndpoints
from claims.probes.live.ollama_api.loading import LoadingEndpoints
from claims.probes.live.ollama_api.openai_compat import OpenAIEndpoints

__all__ = ["OllamaClient"]


class OllamaClient(LoadingEndpoints, GenerationEndpoints, AdminEndpoints, OpenAIEndpoints):
    """A small synchronous client for one Ollama server.

    Its timeouts are :class:`~claims.probes.live.ollama_api.transport.Transport`'s:
    ``read_timeout`` for a reply to start (a cold load included),
    ``stall_timeout`` between two chunks of a stream. Use it as a context
    manager, or :meth:`close` it, to release its pooled connection.

    The endpoints come in groups: what the server holds (version, tags, ps,
    show), loading and unloading, generation (generate, chat, embed,
    structured), requests that change the server (create, push_blob, delete,
    pull) and the OpenAI-compatible /v1 routes.
    """
