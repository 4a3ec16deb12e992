"""The ``openai`` package's own client pointed at Ollama's /v1 (the claim as a user meets it).

The masterclass says existing OpenAI code works by changing ``base_url``: this
probe does exactly that with the real package (an optional dependency) and
returns what it answered, so a claim test can judge it. Timeouts are the
caller's, retries none; a failed call is one :class:`ServerError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from claims.probes.errors import ServerError

__all__ = ["OPENAI_PARAMS", "OpenAIPackageReply", "openai_package_chat"]

# Deterministic and short: the claim is about the route, not the text.
OPENAI_PARAMS: dict[str, Any] = {"max_tokens": 8, "temperature": 0, "seed": 42}


@dataclass(frozen=True)
class OpenAIPackageReply:
    """What the openai client answered: its version, the base URL, the reply, the model ids."""

    version: str
    base_url: str
    body: dict[str, Any]
    reply: dict[str, Any]
    model_ids: list[str]

    @property
    def object(self) -> Any:
        return self.reply.get("object")

    @property
    def content(self) -> str | None:
        choices = self.reply.get("choices") or [{}]
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        text = message.get("content") if isinstance(message, dict) else None
        return text if isinstance(text, str) else None


def openai_package_chat(
    host: str, model: str, messages: Sequence[Mapping[str, str]], *, timeout: float
) -> OpenAIPackageReply | None:
    """One chat completion and one model list through ``openai.OpenAI(base_url=host/v1)``.

    None when the openai package is not installed (an optional extra).
    """
    try:
        import openai
    except ImportError:
        return None
    base_url = f"{host}/v1"
    client = openai.OpenAI(base_url=base_url, api_key="sk-any-value", timeout=timeout,
                           max_retries=0)
    try:
        completion = client.chat.completions.create(
            model=model,
            messages=list(messages),  # type: ignore[arg-type]
            **OPENAI_PARAMS,
        )
        ids = [str(m.id) for m in client.models.list()]
    except openai.APIError as exc:
        raise ServerError(
            f"openai {openai.__version__} client: {type(exc).__name__}: {exc}"
        ) from None
    finally:
        client.close()
    body = {"model": model, "messages": [dict(m) for m in messages], **OPENAI_PARAMS}
    return OpenAIPackageReply(openai.__version__, base_url, body, completion.model_dump(), ids)
