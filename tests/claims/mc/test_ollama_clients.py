"""The masterclass's client claims on a live Ollama server (the ollama tier): the
OpenAI-compatible endpoints and the official Python SDK, called as a user's code calls them.
"""

from __future__ import annotations

from typing import Any

import pytest

from claims.probes.live.ollama_api.usage import bounded
from claims.testkit import not_run

pytestmark = pytest.mark.ollama

TAGLINE_PROMPT = "Give me a one-sentence tagline for a coffee shop."


# --- 4.3: OpenAI compatibility ---------------------------------------------------------
@pytest.mark.claim("MC-OPENAI-COMPAT")
def test_openai_compatible_chat(live, check):
    messages = [{"role": "user", "content": TAGLINE_PROMPT}]
    replies = []
    for key in ("sk-any-value", "another-key-entirely"):
        reply = live.client.openai_chat(
            live.model_name, messages, api_key=key, temperature=0, seed=42, max_tokens=8
        )
        live.exchange(
            f"POST /v1/chat/completions (Bearer {key})",
            "POST",
            "/v1/chat/completions",
            {"model": live.model_name, "messages": messages, "temperature": 0, "seed": 42,
             "max_tokens": 8},
            reply,
        )
        replies.append(reply)
    check.against("base path", "/v1", note="the OpenAI base_url path both requests used")
    first = replies[0]
    content = ((first.get("choices") or [{}])[0].get("message") or {}).get("content")
    check.measure(
        "chat.completion with an assistant message",
        first.get("object"),
        holds=first.get("object") == "chat.completion" and bool(content),
        expected="object chat.completion, choices[0].message.content non-empty",
    )
    usage = first.get("usage") or {}
    check.measure(
        "usage token counts",
        usage,
        holds=all(isinstance(usage.get(k), int) for k in ("prompt_tokens", "completion_tokens")),
        expected="prompt_tokens and completion_tokens",
    )
    check.measure(
        "any API key is accepted",
        [bool(r.get("choices")) for r in replies],
        holds=all(r.get("choices") for r in replies),
        expected="both keys answered (Ollama ignores the key)",
    )
    models = live.client.openai_models()
    ids = [m.get("id") for m in models]
    live.exchange("GET /v1/models", "GET", "/v1/models", None, {"data": models})
    from claims.probes.live.ollama_api import same_model

    check.measure(
        "/v1/models lists the model",
        ids,
        holds=any(same_model(str(i), live.model_name) for i in ids),
        expected=f"{live.model_name} among the ids",
    )
    openai_package_check(live, check, messages)


def openai_package_check(live: Any, check: Any, messages: list[dict[str, str]]) -> None:
    """The claim as stated: existing OpenAI code works by changing base_url (openai package)."""
    from claims.probes.live.ollama_api import same_model
    from claims.probes.live.ollama_api.openai_sdk import openai_package_chat

    sdk = openai_package_chat(live.settings.ollama_host, live.model_name, messages,
                              timeout=live.settings.ollama_timeout)
    if sdk is None:
        check.observe(
            "openai package",
            "not installed",
            note="pip install 'claims-suite[openai]' adds the check with the real client",
        )
        return
    live.exchange(f"openai {sdk.version}: chat.completions.create", "POST",
                  "/v1/chat/completions", sdk.body, sdk.reply)
    usage = getattr(live.client, "usage", None)
    if usage is not None:
        usage.external("/v1/chat/completions", sdk.body, sdk.reply)
    check.fact("openai_package", sdk.version)
    check.measure(
        "the openai package's client, base_url changed only",
        {"base_url": sdk.base_url, "object": sdk.object, "content": sdk.content},
        holds=sdk.object == "chat.completion" and bool(sdk.content),
        expected="a chat.completion with assistant text, any API key",
    )
    check.measure(
        "the openai package lists the model",
        sdk.model_ids,
        holds=any(same_model(i, live.model_name) for i in sdk.model_ids),
        expected=f"{live.model_name} in client.models.list()",
    )



# --- 5.1: the official SDKs -----------------------------------------------------------------
@pytest.mark.claim("MC-SDKS")
def test_python_sdk_wraps_the_api(live, check):
    """The ollama Python package: model operations, streaming, an async call, embeddings."""
    try:
        import ollama
    except ImportError:
        not_run("the ollama Python package is not installed: pip install 'claims-suite[ollama]'")
    import asyncio

    from claims.probes.errors import ServerError

    host, name = live.settings.ollama_host, live.model_name
    version = getattr(ollama, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("ollama")
    check.fact("ollama_python_package", version)
    client = ollama.Client(host=host, timeout=live.settings.ollama_timeout)
    messages = [{"role": "user", "content": "Name a colour."}]
    options = bounded(8)
    try:
        listed = [m.model for m in client.list().models]
        shown = client.show(name)
        loaded = [m.model for m in client.ps().models]
        pieces = list(client.chat(model=name, messages=messages, stream=True, options=options))

        async def one_async_call() -> Any:
            async_client = ollama.AsyncClient(host=host, timeout=live.settings.ollama_timeout)
            return await async_client.generate(model=name, prompt="hi", options=bounded(4))

        async_reply = asyncio.run(one_async_call())
    except (ollama.ResponseError, ollama.RequestError) as exc:
        raise ServerError(f"ollama {version} client: {type(exc).__name__}: {exc}") from None
    except OSError as exc:  # httpx's connection errors derive from it
        raise ServerError(f"ollama {version} client: {type(exc).__name__}: {exc}") from None
    from claims.probes.live.ollama_api import same_model

    usage = getattr(live.client, "usage", None)
    if usage is not None:
        usage.external("/api/chat", {"model": name, "messages": messages, "options": options},
                       pieces[-1].model_dump() if pieces else None)
        usage.external("/api/generate", {"model": name, "prompt": "hi", "options": bounded(4)},
                       async_reply.model_dump())
    check.measure(
        "model operations: list, show, ps",
        {"listed": listed, "family": shown.details.family if shown.details else None,
         "loaded": loaded},
        holds=any(same_model(str(m), name) for m in listed) and shown.details is not None,
        expected=f"{name} listed and described",
    )
    text = "".join(p.message.content or "" for p in pieces)
    check.measure(
        "streaming: chat(stream=True) yields chunks ending with done",
        {"chunks": len(pieces), "text": text},
        holds=len(pieces) > 1 and bool(pieces[-1].done),
        expected="several chunks, the last with done true",
    )
    check.measure(
        "async: AsyncClient.generate",
        {"done": async_reply.done, "done_reason": async_reply.done_reason},
        holds=bool(async_reply.done),
        expected="a complete reply from the async client",
    )
    embed_model = live.settings.ollama_embed_model
    from claims.probes.live.ollama_api import find_model

    if find_model(live.client.tags(), embed_model) is not None:
        inputs = ["a", "b"]
        vectors = client.embed(model=embed_model, input=inputs).embeddings
        check.measure(
            "embeddings: embed(input=[...])",
            len(vectors),
            holds=len(vectors) == len(inputs),
            expected="one vector per input",
        )
    else:
        check.observe(
            "embeddings",
            "not checked",
            note=f"{embed_model} is not on the server (see MC-EMBED-BATCH)",
        )
    check.observe(
        "TypeScript SDK (ollama-js)",
        "not checked",
        note="needs Node.js and the npm package, outside the suite's Python toolchain",
    )
