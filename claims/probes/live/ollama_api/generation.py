"""Text and vectors: /api/generate, /api/chat (one object or a joined stream), /api/embed,
and structured output validated against its JSON schema."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from claims.probes.live.ollama_api.errors import ReplyError
from claims.probes.live.ollama_api.payloads import json_object, request_body
from claims.probes.live.ollama_api.stream import StreamLine
from claims.probes.live.ollama_api.transport import Transport

__all__ = ["GenerationEndpoints", "StructuredReply", "text_of"]


@dataclass(frozen=True)
class StructuredReply:
    """A reply requested with ``format`` = a JSON schema, and its validation."""

    text: str
    value: Any
    errors: tuple[str, ...]
    reply: dict[str, Any]

    @property
    def valid(self) -> bool:
        return self.value is not None and not self.errors


def text_of(data: Mapping[str, Any], key: str) -> str:
    """The text one reply object carries: ``response`` (generate) or ``message.content`` (chat).

    ``key`` is "response" or "message"; anything else there (a thinking-only
    chunk, a tool call) counts as no text.
    """
    value = data.get(key)
    if key == "message" and isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else ""


def join_stream(lines: Iterator[StreamLine], key: str) -> dict[str, Any]:
    """The final object of a stream, with the streamed text joined into ``key``."""
    parts: list[str] = []
    final: dict[str, Any] = {}
    for line in lines:
        text = text_of(line.data, key)
        if text:
            parts.append(text)
        final = line.data
    out = dict(final)
    if key == "message":
        message = dict(out.get("message") or {"role": "assistant"})
        message["content"] = "".join(parts)
        out["message"] = message
    else:
        out[key] = "".join(parts)
    return out


class GenerationEndpoints(Transport):
    """POST /api/generate, /api/chat and /api/embed."""

    def generate(
        self,
        model: str,
        prompt: str,
        *,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | float | None = None,
        format: Any = None,
        system: str | None = None,
        raw: bool | None = None,
        stream: bool | None = False,
    ) -> dict[str, Any]:
        """POST /api/generate and return the one reply object.

        ``stream=False`` asks for one object; ``stream=None`` leaves the field
        out (Ollama then streams, and this reads the stream to its final object
        and returns that, with the streamed text joined into ``response``).
        """
        body = request_body(model, prompt=prompt, options=options, keep_alive=keep_alive,
                            format=format, system=system, raw=raw, stream=stream)
        return self._one_or_joined("/api/generate", body, "response")

    def chat(
        self,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | float | None = None,
        format: Any = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        stream: bool | None = False,
    ) -> dict[str, Any]:
        """POST /api/chat and return the reply object (streams joined as in generate)."""
        body = request_body(model, messages=list(messages), options=options,
                            keep_alive=keep_alive, format=format,
                            tools=list(tools) if tools is not None else None, stream=stream)
        return self._one_or_joined("/api/chat", body, "message")

    def _one_or_joined(self, path: str, body: dict[str, Any], key: str) -> dict[str, Any]:
        if body.get("stream") is False:
            return json_object(self.post_json(path, body), path)
        return join_stream(self.stream(path, body), key)

    def embed(self, model: str, inputs: str | Sequence[str]) -> dict[str, Any]:
        """POST /api/embed -> {embeddings: one vector per input}; checks the count."""
        body = {"model": model, "input": inputs if isinstance(inputs, str) else list(inputs)}
        reply = json_object(self.post_json("/api/embed", body), "/api/embed")
        vectors = reply.get("embeddings")
        expected = 1 if isinstance(inputs, str) else len(inputs)
        if not isinstance(vectors, list) or not all(isinstance(v, list) for v in vectors):
            raise ReplyError(
                f"/api/embed: 'embeddings' is not a list of vectors: {str(vectors)[:120]}"
            )
        if len(vectors) != expected:
            raise ReplyError(f"/api/embed: {len(vectors)} vector(s) for {expected} input(s)")
        return reply

    def structured(
        self,
        model: str,
        prompt: str,
        schema: Mapping[str, Any],
        *,
        options: Mapping[str, Any] | None = None,
    ) -> StructuredReply:
        """Generate with ``format`` = ``schema`` and validate the text with jsonschema."""
        import jsonschema

        reply = self.generate(model, prompt, options=options, format=dict(schema))
        text = reply.get("response")
        if not isinstance(text, str):
            raise ReplyError(f"/api/generate: no 'response' text in {str(reply)[:200]}")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return StructuredReply(text, None, (f"not JSON: {exc.msg} at {exc.pos}",), reply)
        except (ValueError, RecursionError) as exc:  # a huge integer; nesting too deep
            why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            return StructuredReply(text, None, (f"not usable JSON: {why}",), reply)
        validator = jsonschema.Draft202012Validator(dict(schema))
        errors = tuple(
            f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
            for e in validator.iter_errors(value)
        )
        return StructuredReply(text, value, errors, reply)
