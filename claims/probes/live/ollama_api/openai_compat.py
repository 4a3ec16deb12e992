"""The OpenAI-compatible endpoints under /v1, called the way an OpenAI client calls them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from claims.probes.live.ollama_api.errors import ReplyError
from claims.probes.live.ollama_api.payloads import json_object
from claims.probes.live.ollama_api.transport import Transport

__all__ = ["ANY_API_KEY", "OpenAIEndpoints"]

ANY_API_KEY = "ollama"  # Ollama ignores the key; OpenAI clients insist on sending one


def _bearer(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"}


class OpenAIEndpoints(Transport):
    """POST /v1/chat/completions and GET /v1/models, each with a Bearer key."""

    def openai_chat(
        self,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        api_key: str = ANY_API_KEY,
        **params: Any,
    ) -> dict[str, Any]:
        """POST /v1/chat/completions the way an OpenAI client does (Bearer key)."""
        path = "/v1/chat/completions"
        body = {"model": model, "messages": list(messages), **params}
        reply = json_object(self.post_json(path, body, headers=_bearer(api_key)), path)
        choices = reply.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ReplyError(f"{path}: no choices in {str(reply)[:200]}")
        return reply

    def openai_models(self, *, api_key: str = ANY_API_KEY) -> list[dict[str, Any]]:
        """GET /v1/models -> the OpenAI-shaped model list (``data``)."""
        path = "/v1/models"
        reply = json_object(self.get_json(path, headers=_bearer(api_key)), path)
        data = reply.get("data")
        if not isinstance(data, list):
            raise ReplyError(f"{path}: 'data' is not a list: {str(reply)[:200]}")
        return [d for d in data if isinstance(d, dict)]
