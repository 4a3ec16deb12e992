"""A fake Ollama's routes that generate: /api/generate, /api/chat, embeddings, /v1.

Replies are scripted from the exchanges Week 2 records
(``fixtures/recorded/W2.json``: the generate reply, the seed runs). The times a
final chunk reports are taken for real: the prefill sleeps before the first byte,
the decode between pieces (``token_interval_s``), so the durations agree with the
client's clock.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

from claims.probes.tokens.cl100k_base import cl100k
from claims.testing.fake_ollama.faults import Fault
from claims.testing.fake_ollama.handler import _Handler, _route
from claims.testing.fake_ollama.models import FakeModel
from claims.testing.fake_ollama.replies import (
    BASE_MODEL_TEXT,
    NO_EMBEDDINGS,
    Shape,
    _as_message,
    _as_response,
    _instance,
    _iso,
    _pieces,
    _prompt_tokens,
    _truncate,
    _truncate_history,
    _unit_vector,
)
from claims.testing.fake_ollama.routes import StateRoutes
from claims.testing.fake_ollama.state import _HTTPError, _sleep

__all__ = ["GenerationRoutes"]


class GenerationRoutes(StateRoutes):
    """The routes that generate text or embeddings, with their scripted replies."""

    def _reply_for(
        self, model: FakeModel, prompt: str, options: dict[str, Any], fmt: Any
    ) -> tuple[str, list[int] | None, dict[str, Any] | None]:
        """Scripted text (and recorded context/durations) for one generate prompt."""
        text, context, recorded = self._scripted(prompt, options, fmt)
        for stop in options.get("stop") or []:
            if isinstance(stop, str) and stop and stop in text:
                text, context, recorded = text[: text.index(stop)], None, None
        return text, context, recorded

    def _scripted(
        self, prompt: str, options: dict[str, Any], fmt: Any
    ) -> tuple[str, list[int] | None, dict[str, Any] | None]:
        rec = self.recorded
        if fmt == "json":
            return (
                json.dumps(
                    {"name": "Canada", "capital": "Ottawa", "languages": ["English", "French"]}
                ),
                None,
                None,
            )
        if fmt is not None:
            return json.dumps(_instance(fmt)), None, None
        if prompt.startswith("Count from 1 to"):
            return ", ".join(str(i) for i in range(1, 201)), None, None
        if prompt == rec["generate_request"]["prompt"]:
            reply = rec["generate_reply"]
            limit = options.get("num_predict")
            if isinstance(limit, int) and 0 <= limit < reply["eval_count"]:
                # Cut by num_predict as a real server cuts it: the first `limit` answer
                # ids, the text they decode to, done_reason "length".

                prompt_len = int(reply["prompt_eval_count"])
                ids = list(reply["context"][: prompt_len + limit])
                text = cl100k().decode(ids[prompt_len:])
                cut = {**reply, "eval_count": limit, "done_reason": "length", "response": text}
                return text, ids, cut
            return reply["response"], reply["context"], reply
        if prompt == rec["seed_runs"]["request"]["prompt"]:
            if options.get("seed") == 42:
                return rec["seed_runs"]["replies"][0], None, None
            return self._rng.choice(["Bean There", "Grind Theory", "Velvet Roast"]), None, None
        if "tagline" not in prompt:
            # Any other prompt: what a base model does, running on (with commas) until
            # the token limit stops it, as gemma3:270m did in the captures.
            if options.get("temperature") == 0 or "seed" in options:
                return BASE_MODEL_TEXT, None, None
            self._unseeded += 1
            return f"{self._unseeded}: {BASE_MODEL_TEXT}", None, None
        tag_temp0 = "Awaken Your Senses, One Cup at a Time."
        variants = [
            "Where every sip is a moment of delight.",
            "Where Every Cup is a Perfect Brew—Awaken Your Senses.",
            "Brewed for the moments that matter.",
        ]
        if options.get("temperature") == 0:
            return tag_temp0, None, None
        if "seed" in options:
            return random.Random(options["seed"]).choice(variants), None, None
        # Unseeded sampling: successive requests get successive variants, so two
        # runs in a row always differ (a real model differs with high probability).
        self._unseeded += 1
        return variants[self._unseeded % len(variants)], None, None

    @_route("POST", "/api/generate")
    def _generate(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body, required=False)
        prompt = body.get("prompt")
        now = _iso(time.time())
        if not prompt:
            # An empty prompt loads the model, or with keep_alive 0 unloads it.
            if body.get("keep_alive") in (0, "0", "0s"):
                self._unload_later(m)
                reason = "unload"
            else:
                self._ensure_loaded(m, body)
                reason = "load"
            self._send_done(h, m, now, _as_response, reason)
            return
        options = body.get("options") or {}
        load_s = self._ensure_loaded(m, body)
        text, context, recorded = self._reply_for(m, str(prompt), options, body.get("format"))
        final = self._final(
            m,
            text,
            load_s,
            options,
            prompt_tokens=len(_pieces(str(prompt))) + 10,
            recorded=recorded,
        )
        if context is None:
            # As Ollama keeps it: the prompt's ids (not an added BOS) and the answer's
            # (not the stop token that ended it).
            bos = 1 if m.model_info.get("tokenizer.ggml.add_bos_token") is True else 0
            stop = 1 if final["done_reason"] == "stop" else 0
            length = final["prompt_eval_count"] - bos + final["eval_count"] - stop
            context = list(range(1000, 1000 + max(length, 0)))
        if not body.get("raw"):
            final["context"] = context  # a raw request gets no context (11-*.json)
        if recorded is not None and context is not None:
            # A recorded reply streams one chunk per token, as the server sent it.

            start = int(recorded["prompt_eval_count"])
            ids = context[start : start + int(recorded["eval_count"])]
            pieces = [cl100k().decode([i]) for i in ids]
        else:
            pieces = _truncate(_pieces(text), options)
        self._send_answer(h, body, fault, m, now, _as_response, pieces, final)

    def _send_done(self, h: _Handler, m: FakeModel, now: str, shape: Shape, reason: str) -> None:
        """The reply to a request that only loads or unloads: no text, done at once."""
        reply = {"model": m.name, "created_at": now, **shape("", {}), "done": True}
        h._send_json(200, {**reply, "done_reason": reason})

    def _send_answer(
        self,
        h: _Handler,
        body: dict[str, Any],
        fault: Fault | None,
        m: FakeModel,
        now: str,
        shape: Shape,
        pieces: list[str],
        final: dict[str, Any],
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Send generated ``pieces``: one object (stream false) or NDJSON, one chunk a piece.

        The time the final chunk reports is taken for real: prefill before the
        first byte, decode per token. A stream opens with
        ``empty_leading_chunks`` thinking-only chunks; ``extra`` (tool calls)
        goes with the final object.
        """
        extra = extra or {}
        _sleep(final["prompt_eval_duration"] / 1e9)

        def served(final: dict[str, Any]) -> dict[str, Any]:
            # total_duration is the server's own wall time for the request, as Ollama
            # reports it: the scripted phases and whatever the fake spent besides.
            elapsed = time.perf_counter_ns() - h.arrival_ns
            return {**final, "total_duration": max(int(final["total_duration"]), elapsed)}

        if body.get("stream") is False:
            _sleep(final["eval_duration"] / 1e9)
            text = shape("".join(pieces), extra)
            h._send_json(200, {"model": m.name, "created_at": now, **text, **served(final)})
            return

        def chunk(fields: dict[str, Any]) -> dict[str, Any]:
            return {"model": m.name, "created_at": _iso(time.time()), **fields}

        def lines() -> Iterator[dict[str, Any]]:
            for _ in range(self.empty_leading_chunks):
                yield chunk({**shape("", {"thinking": "…"}), "done": False})
            for piece in pieces:
                yield chunk({**shape(piece, {}), "done": False})
            yield chunk({**shape("", extra), **served(final)})

        h.stream_lines(lines(), fault, first_delay_s=self.first_token_delay_s)

    def _final(
        self,
        m: FakeModel,
        text: str,
        load_s: float,
        options: dict[str, Any],
        *,
        prompt_tokens: int,
        recorded: dict[str, Any] | None,
    ) -> dict[str, Any]:
        pieces = _truncate(_pieces(text), options)
        limited = "num_predict" in options and len(pieces) >= int(options["num_predict"])
        eval_count = len(pieces) if limited else len(pieces) + 1
        if recorded is not None:
            # The recorded token counts (they match the recorded context array);
            # the durations stay the fake's own, so they agree with the clock.
            prompt_tokens, eval_count = recorded["prompt_eval_count"], recorded["eval_count"]
        per_token = max(self.token_interval_s, 0.0005)
        eval_ns = int(eval_count * per_token * 1e9)
        prompt_ns = int(prompt_tokens * 0.0001 * 1e9)
        load_ns = int(load_s * 1e9)
        reason = "length" if limited else "stop"
        if recorded is not None:
            reason = str(recorded.get("done_reason") or reason)
        return {
            "done": True,
            "done_reason": reason,
            "total_duration": load_ns + prompt_ns + eval_ns + 1_000_000,
            "load_duration": load_ns,
            "prompt_eval_count": prompt_tokens,
            "prompt_eval_duration": prompt_ns,
            "eval_count": eval_count,
            "eval_duration": eval_ns,
        }

    @_route("POST", "/api/chat")
    def _chat(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        messages = body.get("messages")
        if messages is None or not isinstance(messages, list):
            messages = []
        now = _iso(time.time())
        if not messages:
            self._ensure_loaded(m, body)
            self._send_done(h, m, now, _as_message, "load")
            return
        options = body.get("options") or {}
        load_s = self._ensure_loaded(m, body)
        joined = " ".join(str(msg.get("content", "")) for msg in messages if isinstance(msg, dict))
        tool_calls = None
        last_role = messages[-1].get("role") if isinstance(messages[-1], dict) else None
        if last_role == "tool":
            text = f"It is {messages[-1].get('content', '')} in the city you asked about."
        elif body.get("tools"):
            tool = body["tools"][0]["function"]
            props = (tool.get("parameters") or {}).get("properties") or {}
            tool_calls = [
                {
                    "function": {
                        "name": tool["name"],
                        "arguments": {k: _instance(v) for k, v in props.items()},
                    }
                }
            ]
            text = ""
        elif body.get("format") is not None:
            text = json.dumps(_instance(body["format"]))
        elif "What name did I give it?" in joined:
            text = "Atlas" if "Atlas" in joined else "UNKNOWN"
        else:
            text, _, _ = self._reply_for(m, str(messages[-1].get("content", "")), options, None)
        # Week 2 records 50 prompt tokens with the Atlas history and 31 without it.
        ctx = int(options.get("num_ctx") or self.default_num_ctx)
        prompt_tokens = (
            50
            if "Atlas" in joined
            else 31
            if "What name" in joined
            else _prompt_tokens(_truncate_history(messages, ctx))
        )
        final = self._final(m, text, load_s, options, prompt_tokens=prompt_tokens, recorded=None)
        pieces = _truncate(_pieces(text), options) if text else []
        extra = {"tool_calls": tool_calls} if tool_calls else {}
        self._send_answer(h, body, fault, m, now, _as_message, pieces, final, extra)

    @_route("POST", "/api/embeddings")
    def _embeddings_legacy(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        if "embedding" not in m.capabilities:
            raise _HTTPError(500, NO_EMBEDDINGS)  # the legacy route says 500 (27-*.json)
        self._ensure_loaded(m, body)
        h._send_json(200, {"embedding": _unit_vector(str(body.get("prompt", "")), 768)})

    @_route("POST", "/api/embed")
    def _embed(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(
            body, missing=lambda name: f"model {json.dumps(name)} not found, try pulling it first"
        )
        if "embedding" not in m.capabilities:
            # What Ollama 0.31's llama-server runner answers for a model without a
            # pooling type (the captures: 26-embed.json).
            raise _HTTPError(501, NO_EMBEDDINGS)
        inputs = body.get("input")
        items = [inputs] if isinstance(inputs, str) else list(inputs or [])
        load_s = self._ensure_loaded(m, body)
        # A fixed per-request cost, so one batched call is cheaper than many.
        _sleep(0.002)
        vectors = [_unit_vector(str(text), 768) for text in items]
        h._send_json(
            200,
            {
                "model": m.name,
                "embeddings": vectors,
                "total_duration": int(load_s * 1e9) + 2_000_000,
                "load_duration": int(load_s * 1e9),
                "prompt_eval_count": sum(len(_pieces(str(t))) for t in items),
            },
        )

    @_route("POST", "/v1/chat/completions")
    def _openai_chat(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        messages = body.get("messages") or []
        load_s = self._ensure_loaded(m, {"model": m.name})
        last = str(messages[-1].get("content", "")) if messages else ""
        options = {"temperature": body.get("temperature")}
        text, _, _ = self._reply_for(m, last, options, None)
        limit = body.get("max_tokens")
        limits = {"num_predict": limit} if isinstance(limit, int) else {}
        pieces = _truncate(_pieces(text), limits)
        final = self._final(
            m, text, load_s, limits, prompt_tokens=len(_pieces(last)) + 8, recorded=None
        )
        finish = final["done_reason"]
        usage = {
            "prompt_tokens": final["prompt_eval_count"],
            "completion_tokens": final["eval_count"],
            "total_tokens": final["prompt_eval_count"] + final["eval_count"],
        }
        self._openai_counter += 1
        head = {
            "id": f"chatcmpl-{self._openai_counter}",
            "created": int(time.time()),
            "model": m.name,
            "system_fingerprint": "fp_ollama",
        }
        if body.get("stream") is True:
            with_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._openai_stream(h, fault, head, pieces, finish, usage if with_usage else None)
            return
        h._send(
            200,
            json.dumps(
                {
                    **head,
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "".join(pieces)},
                            "finish_reason": finish,
                        }
                    ],
                    "usage": usage,
                }
            ).encode(),
            "application/json",  # no charset, unlike the native routes (28-*.json)
        )

    def _openai_stream(
        self,
        h: _Handler,
        fault: Fault | None,
        head: dict[str, Any],
        pieces: list[str],
        finish: str,
        usage: dict[str, int] | None,
    ) -> None:
        """Server-sent events as Ollama writes them: "data: {json}", a blank line, "[DONE]"."""

        def chunk(delta: dict[str, Any], reason: str | None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": reason}
            return {**head, "object": "chat.completion.chunk", "choices": [choice]}

        events: list[bytes] = [
            json.dumps(chunk({"role": "assistant", "content": p}, None)).encode() for p in pieces
        ]
        last: dict[str, Any] = (
            {} if self.release.openai_finish_delta_empty else {"role": "assistant", "content": ""}
        )
        events.append(json.dumps(chunk(last, finish)).encode())
        if usage is not None:
            events.append(
                json.dumps(
                    {**head, "object": "chat.completion.chunk", "choices": [], "usage": usage}
                ).encode()
            )
        events.append(b"[DONE]")
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for event in events:
            h._chunk(b"data: " + event + b"\n\n")
        h.wfile.write(b"0\r\n\r\n")

    @_route("GET", "/v1/models")
    def _openai_models(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        h._send(
            200,
            json.dumps(
                {
                    "object": "list",
                    "data": [
                        {
                            "id": m.name,
                            "object": "model",
                            "created": 1_783_000_000,
                            "owned_by": "library",
                        }
                        for m in self.models.values()
                    ],
                }
            ).encode(),
            "application/json",
        )
