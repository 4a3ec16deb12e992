"""W2's non-timing claims measured against a live Ollama server (the ollama tier).

The requests are Week 2's own prompts and options, sent to the model under test
(--ollama-model, default phi4). Figures the post states for phi4 on the Spark
are compared only when phi4 is under test; otherwise the claim's general form
is checked and those figures are reported not applicable. Figures that describe
one recorded run only (its exact token count) are recorded beside the live
value, not compared: a new run is a new sample, not a replay.

Every request is bounded (num_predict) and, unless the claim is about randomness,
greedy with Week 2's seed 42 (claims.probes.live.ollama_api.usage.bounded): a base
model may never stop on its own, and a verdict must not hang on a sampled token.
The timing claims (Concepts 3 and 6) are in test_ollama_timing.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from claims.probes.live.ollama_api.usage import bounded
from claims.probes.live.ollama_defaults import DEFAULT_PORT
from claims.probes.tokens.cl100k_base import CL100K_VOCAB_SIZE
from claims.testkit import not_run

pytestmark = pytest.mark.ollama

TAGLINE_PROMPT = "Give me a one-sentence tagline for a coffee shop."
NAME_PROMPT = "Reply with one invented coffee shop name and nothing else."
# W2-TEMP-VARIES: samples drawn until two differ, at most this many (see the test).
TEMP_VARIES_MAX_SAMPLES = 8
# How a generate reply may end (Ollama's llm DoneReason: stop, length; "load" and
# "unload" answer requests without a prompt).
DONE_REASONS = ("stop", "length")


def all_identical(check: Any, texts: list[str], expected: str, **kw: Any) -> None:
    """The number of runs, and that they all gave one reply."""
    check.against("runs", len(texts))
    check.measure(
        "distinct replies",
        len(set(texts)),
        holds=len(set(texts)) == 1,
        expected=expected,
        **kw,
    )


def model_figures(claim: Any) -> dict[str, list[Any]]:
    """The claim's per-model figures, grouped by the model they were stated for."""
    out: dict[str, list[Any]] = {}
    for fig in claim.stated:
        if fig.model is not None:
            out.setdefault(fig.model, []).append(fig)
    return out


def strip_quotes(text: str) -> str:
    """A reply without surrounding whitespace and one pair of enclosing quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"“'" and text[-1] in "\"”'":
        return text[1:-1].strip()
    return text


# --- Concept 1 --------------------------------------------------------------------------
@pytest.mark.claim("W2-LIST")
def test_list_ids_and_sizes(live, check, catalog):
    tags = live.client.tags()
    live.exchange("GET /api/tags", "GET", "/api/tags", None, {"models": tags})
    under_test = live.model()
    digest = under_test.digest
    hex_prefix = re.match(r"[0-9a-f]*", digest)
    check.against(
        "ID length",
        len(hex_prefix.group(0)[:12]) if hex_prefix else 0,
        note=f"leading hex digits of the /api/tags digest {digest!r} (ollama list shows 12)",
    )
    check.measure(
        "digest is a full SHA-256",
        digest,
        holds=re.fullmatch(r"[0-9a-f]{64}", digest) is not None,
        expected="64 hex digits, of which ollama list shows the first 12",
    )

    from claims.probes.live.ollama_api import find_model

    for model, figures in model_figures(catalog.get("W2-LIST")).items():
        entry = find_model(tags, model)
        if entry is None:
            check.observe(
                f"{model} on this server",
                False,
                note="not pulled here, so its ID and size are not compared",
            )
            continue
        from claims.probes.files.ollama_store import human_bytes

        shown, unit = human_bytes(int(entry["size"])).split()  # "9.1 GB", as ollama list prints
        value = float(shown)
        for fig in figures:
            if fig.name.endswith(" ID"):
                check.against(fig.name, str(entry["digest"])[:12], model=entry["name"])
            else:
                check.against(
                    fig.name,
                    value,
                    unit=unit,
                    model=entry["name"],
                    note=f"{entry['size']:,} bytes, printed as ollama list does",
                )

    store = live.matching_store(under_test)
    if isinstance(store, str):
        check.observe("store cross-check", "not done", note=store)
        return
    _, manifest = store
    check.measure(
        "ID is the manifest's SHA-256 prefix",
        {"api_id": digest[:12], "manifest_sha256": manifest.digest},
        holds=digest[:12] == manifest.id,
        expected="the ID equals the first 12 hex of the manifest file's SHA-256",
    )


@pytest.mark.claim("W2-SHOW-FACTS")
def test_show_facts(live, check):
    model = live.model()
    show = model.show
    live.exchange(
        "POST /api/show",
        "POST",
        "/api/show",
        {"model": model.name},
        {k: v for k, v in show.items() if k not in ("license", "modelfile", "template")},
    )
    details = show.get("details") or {}
    name = model.name
    check.against("format", details.get("format"), model=name)
    check.against("family", details.get("family"), model=name)
    check.against("parameter size", details.get("parameter_size"), model=name)
    check.against("context length", model.info("context_length"), model=name)
    check.against("embedding length", model.info("embedding_length"), model=name)
    check.against("quantization", details.get("quantization_level"), model=name)
    capabilities = show.get("capabilities")
    check.against("capabilities", list(capabilities or []), unordered=True, model=name)
    parameters = str(show.get("parameters") or "")
    # The post's jq collapses runs of spaces: "stop   \"<|im_end|>\"" -> "stop \"<|im_end|>\"".
    stops = [" ".join(line.split()) for line in parameters.splitlines() if line.startswith("stop")]
    check.against("stop parameters", stops, unordered=True, model=name)
    present = {
        "details.format": details.get("format"),
        "details.family": details.get("family"),
        "details.parameter_size": details.get("parameter_size"),
        "details.quantization_level": details.get("quantization_level"),
        "<arch>.context_length": model.info("context_length"),
        "<arch>.embedding_length": model.info("embedding_length"),
        "capabilities": capabilities,
        "parameters": show.get("parameters"),
    }
    missing = [k for k, v in present.items() if v is None]
    check.measure(
        "fields /api/show reports",
        sorted(k for k in present if k not in missing),
        holds=not [m for m in missing if m != "parameters"],
        expected="format, family, size, context and embedding length, quantization, "
        "capabilities (parameters only when the Modelfile sets any)",
    )


@pytest.mark.claim("W2-FORMAT-AGREES")
def test_format_agrees_with_blob_header(live, check):
    model = live.model()
    fmt = (model.show.get("details") or {}).get("format")
    check.against("format", fmt)
    store = live.matching_store(model)
    if isinstance(store, str):
        not_run(f"the file-header half needs the server's model store: {store}")
    ollama_store, manifest = store
    layer = manifest.model_layer()
    blob = ollama_store.model_blob_path(model.name)
    with open(blob, "rb") as fh:
        magic = fh.read(4)
    check.fact(f"model_blob:{model.name}", str(blob))
    check.measure(
        "blob header",
        magic.hex(" "),
        holds=magic == b"GGUF",
        expected="47 47 55 46 (GGUF)",
        note=f"{layer.digest} ({layer.size:,} bytes)",
    )
    check.measure(
        "API format agrees with the file",
        {"api": fmt, "header": magic.decode("latin-1")},
        holds=(fmt == "gguf") == (magic == b"GGUF"),
        expected="details.format is gguf exactly when the file starts with GGUF",
    )


# --- Concept 2 ----------------------------------------------------------------------------
@pytest.mark.claim("W2-PORT")
def test_port(live, check):
    from urllib.parse import urlsplit

    port = urlsplit(live.settings.ollama_host).port
    if port != DEFAULT_PORT:
        not_run(
            f"the server under test is addressed on port {port} (--ollama-host or "
            "OLLAMA_HOST); the default-port claim needs a server on its default address"
        )
    check.against("port", port, note=f"{live.settings.ollama_host} answered version {live.version}")
    answered = live.client.get_json("/api/version")
    live.exchange("GET /api/version", "GET", "/api/version", None, answered)
    check.measure(
        "HTTP API answers on it",
        answered,
        holds=isinstance(answered, dict),
        expected="GET /api/version answers JSON",
    )


@pytest.mark.claim("W2-RESPONSE-FIELDS")
def test_response_fields(live, check, reply_checks, week2_reply):
    reply = week2_reply.recorded_by(live)
    reply_checks.fields("W2-RESPONSE-FIELDS", reply)
    # "stop" is how the author's one reply ended (catalog: particular); a reply cut by
    # num_predict ends on "length", which is just as much a reply of this API.
    check.against("done_reason", reply.get("done_reason"))
    check.measure(
        "done_reason is an ending the API reports",
        reply.get("done_reason"),
        holds=reply.get("done_reason") in DONE_REASONS,
        expected=" or ".join(DONE_REASONS) + " (a natural stop, or the num_predict/context limit)",
        note=f"request bounded by num_predict {week2_reply.body['options']['num_predict']}",
    )
    durations = {
        k: reply.get(k)
        for k in ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")
    }
    check.measure(
        "durations are integers",
        durations,
        holds=all(isinstance(v, int) and not isinstance(v, bool) for v in durations.values()),
        expected="integer counts of the duration unit",
    )
    reply_checks.duration_unit(reply, week2_reply.client_ns)
    reply_checks.phases_within_total(reply, "phases fit inside total_duration")


def model_vocabulary(live: Any, model: Any) -> Any:
    """The model's own vocabulary: the store's GGUF blob, else /api/show verbose."""
    from claims.probes.tokens.context import Vocabulary

    info = model.model_info
    kind = info.get("tokenizer.ggml.model")
    store = live.matching_store(model)
    if not isinstance(store, str):
        from claims.probes.files.gguf_file import read_header

        header = read_header(store[0].model_blob_path(model.name), verify_layout=False)
        tokens = tuple(header.array("tokenizer.ggml.tokens"))
        has_types = "tokenizer.ggml.token_type" in header.fields
        types = tuple(header.array("tokenizer.ggml.token_type")) if has_types else ()
        kind = header.get("tokenizer.ggml.model") or kind
        source = "tokenizer.ggml.tokens of the model blob in the store"
    else:
        verbose = live.client.show(model.name, verbose=True)
        shown = verbose.get("model_info") or {}
        tokens = tuple(shown.get("tokenizer.ggml.tokens") or ())
        types = tuple(shown.get("tokenizer.ggml.token_type") or ())
        source = f"/api/show verbose (store: {store})"
    if not tokens:
        not_run(
            f"no vocabulary for {model.name}: the store is not readable and /api/show "
            "verbose returned no tokenizer.ggml.tokens"
        )
    try:
        return Vocabulary(tokens, str(kind), source, types)
    except Exception as exc:  # an unknown tokenizer family: say so, do not guess
        not_run(f"cannot decode {model.name}'s ids: {exc}")


def added_special_tokens(info: dict[str, Any], context: list[Any]) -> int:
    """Tokens the tokenizer prepends that the runtime evaluates but ``context`` leaves out."""
    if info.get("tokenizer.ggml.add_bos_token") is not True:
        return 0
    bos = info.get("tokenizer.ggml.bos_token_id")
    return 0 if context and isinstance(bos, int) and context[0] == bos else 1


@pytest.mark.claim("W2-CONTEXT-IS-CONVERSATION")
def test_context_is_the_conversation(live, check, week2_reply):
    reply = week2_reply.recorded_by(live)
    model = live.model()
    # Ollama omits a count of zero (a fully cached prompt).
    context, pec = reply.get("context"), reply.get("prompt_eval_count", 0)
    if not isinstance(context, list) or not isinstance(pec, int):
        check.measure(
            "reply carries context and prompt_eval_count",
            {"context": type(context).__name__, "prompt_eval_count": pec},
            holds=False,
            expected="a list of token ids and an integer",
        )
        return
    vocab = model_vocabulary(live, model)
    check.fact(
        f"vocabulary:{model.name}", f"{vocab.source} ({len(vocab.tokens)} tokens, {vocab.model})"
    )
    # Split by the answer's length, not by prompt_eval_count: with prompt caching
    # Ollama counts only the prompt tokens it evaluated, while context holds them
    # all. eval_count includes the stop token after a natural stop.
    eval_count = reply.get("eval_count")
    if not isinstance(eval_count, int):
        check.measure(
            "reply carries eval_count",
            eval_count,
            holds=False,
            expected="an integer (answer tokens, plus the stop token after a natural stop)",
        )
        return
    answer_len = eval_count - 1 if reply.get("done_reason") == "stop" else eval_count
    prompt_len = len(context) - answer_len
    prompt_ids, answer_ids = context[:prompt_len], context[prompt_len:]
    # The tokenizer may add a BOS token that the runtime evaluates but context does
    # not carry (Gemma: tokenizer.ggml.add_bos_token, 8 evaluated for 7 kept ids).
    added = added_special_tokens(model.model_info, context)
    check.observe(
        "special tokens the tokenizer adds outside context",
        added,
        unit="tokens",
        note="tokenizer.ggml.add_bos_token of /api/show, when context does not start with BOS",
    )
    check.measure(
        "prompt ids in context vs prompt_eval_count",
        {"context prompt ids": prompt_len, "added specials": added, "prompt_eval_count": pec},
        holds=0 <= pec <= prompt_len + added,
        expected="prompt_eval_count at most the prompt ids context holds plus the specials "
        "the tokenizer adds (caching lowers it)",
    )
    decoded = vocab.decode(answer_ids)
    check.attach(
        "context decoded",
        {
            "prompt": vocab.decode(prompt_ids),
            "answer": decoded,
            "first answer pieces": vocab.names(answer_ids[:8]),
        },
        kind="json",
    )
    check.against(
        "answer equals response",
        decoded == reply.get("response"),
        note=f"context[{prompt_len}:] ({len(answer_ids)} ids) decoded with the model's vocabulary",
    )
    check.against(
        "prompt_eval_count",
        prompt_len,
        model=model.name,
        note="prompt ids counted in the returned context",
    )
    check.against("user turn ids", context[:3], model=model.name)
    check.against(
        "assistant turn ids",
        context[max(prompt_len - 4, 0) : max(prompt_len - 1, 0)],
        model=model.name,
    )
    check.observe(
        "first answer pieces (this run's answer)",
        vocab.names(answer_ids[:2]),
        note="the post's 'K', 'ubernetes' belong to its recorded answer; a new run "
        "may word its answer differently",
    )
    if vocab.model == "gpt2" and model.model_info.get("tokenizer.ggml.pre") == "dbrx":
        from claims.probes.tokens.context import decode_cl100k

        specials = {i: vocab.tokens[i] for i in set(context) if i >= CL100K_VOCAB_SIZE}
        same = decode_cl100k(answer_ids, specials) == reply.get("response")
        check.measure(
            "cl100k_base decodes the same answer",
            same,
            holds=same,
            expected="true (phi4's ordinary ids are cl100k_base's)",
        )


# --- Concept 4 ----------------------------------------------------------------------------
def _texts(live: Any, label: str, body: dict[str, Any], runs: int) -> list[str]:
    return [
        str(live.generate(f"{label} run {i + 1}", body).get("response", "")) for i in range(runs)
    ]


@pytest.mark.claim("W2-TEMP0-REPEAT")
def test_temperature_zero_repeats(live, check):
    # The post's request, bounded: a one-sentence tagline fits in 16 tokens; a base
    # model that never stops is cut there, which does not touch the repeat claim.
    options = {"temperature": 0, "num_predict": 16}
    body = {"model": live.model_name, "prompt": TAGLINE_PROMPT, "options": options}
    texts = _texts(live, "temperature 0", body, 2)
    all_identical(check, texts, "1 (both runs identical)")
    check.against(
        "recorded reply",
        strip_quotes(texts[0]),
        model=live.model_name,
        note="compared without surrounding whitespace and quotes",
    )


@pytest.mark.claim("W2-TEMP-VARIES")
def test_temperature_without_seed_varies(live, check):
    """Sampled without a seed, the same request varies.

    Two runs (the post's) can repeat by chance, so replies are drawn until two
    differ, at most TEMP_VARIES_MAX_SAMPLES. The claim is refuted only if all of
    them are identical; if no single reply had a chance above one half, that
    happens with probability at most 2^-(n-1) (0.8% for n = 8), the stated
    probability of a wrong refutation. A sampler that does not vary cannot give
    two different replies, so a "reproduced" verdict cannot be wrong by chance.
    """
    options = {"temperature": 1.2, "num_predict": 16}
    body = {"model": live.model_name, "prompt": TAGLINE_PROMPT, "options": options}
    texts: list[str] = []
    for i in range(TEMP_VARIES_MAX_SAMPLES):
        texts.append(str(live.generate(f"temperature 1.2 without seed, run {i + 1}", body)
                         .get("response", "")))
        if len(set(texts)) > 1 and len(texts) >= 2:
            break
    check.against("temperature", body["options"]["temperature"])
    distinct = len(set(texts))
    wrong = 0.5 ** (TEMP_VARIES_MAX_SAMPLES - 1)
    check.observe("runs drawn", len(texts), note=f"until two differed, at most "
                  f"{TEMP_VARIES_MAX_SAMPLES}; the post drew 2")
    check.measure(
        "replies vary without a seed",
        distinct,
        holds=distinct > 1,
        expected=f"at least 2 distinct among up to {TEMP_VARIES_MAX_SAMPLES} runs",
        note=f"probability of a wrong refutation at most {wrong:.2%} (no reply above 1/2 "
        "chance); a reproduction cannot be wrong by chance",
    )
    if len(texts) == 2:
        check.against("runs", len(texts))
        check.against("distinct replies", distinct, note="the first two runs, as in the post")


@pytest.mark.claim("W2-SEED-REPEAT")
def test_seed_repeats_on_a_warm_model(live, check):
    body = {
        "model": live.model_name,
        "prompt": NAME_PROMPT,
        "options": {"temperature": 1.2, "seed": 42, "num_predict": 8},
    }
    # The post's runs were on a warm model that had served the request before. The
    # first request after a load meets an empty prompt cache, and llama-server's
    # numerics then differ slightly from the cached runs that follow (seen on Ollama
    # 0.31.2: run 1 differed, runs 2-4 agreed), which a seed cannot pin. That request
    # is sent first and shown, not counted among the four.
    warmup = str(live.generate("warm-up: the same request once", body).get("response", ""))
    texts = _texts(live, "temperature 1.2 seed 42", body, 4)
    check.observe(
        "warm-up reply (first after a load, not counted)",
        warmup,
        note="matches the four" if warmup == texts[0] else "differs from the four",
    )
    all_identical(
        check,
        texts,
        "1 (all four identical)",
        note=f"Ollama {live.version}: the seed pins the sampler, not the whole stack",
    )
    check.against("recorded reply", strip_quotes(texts[0]), model=live.model_name)


# --- Concept 5 ----------------------------------------------------------------------------
SYSTEM = {"role": "system", "content": "Reply with only a name or UNKNOWN."}
QUESTION = {"role": "user", "content": "What name did I give it?"}


@pytest.mark.claim("W2-CHAT-STATELESS")
def test_chat_is_stateless(live, check):
    options = bounded(16)
    history = [
        SYSTEM,
        {"role": "user", "content": "My cluster is called Atlas."},
        {"role": "assistant", "content": "Atlas"},
        QUESTION,
    ]
    with_history = live.chat(
        "chat with history", {"model": live.model_name, "messages": history, "options": options}
    )
    without = live.chat(
        "chat without history",
        {"model": live.model_name, "messages": [SYSTEM, QUESTION], "options": options},
    )
    a = strip_quotes(str((with_history.get("message") or {}).get("content", "")))
    b = strip_quotes(str((without.get("message") or {}).get("content", "")))
    pa, pb = with_history.get("prompt_eval_count"), without.get("prompt_eval_count")
    name = live.model_name
    check.against("reply with history", a, model=name)
    check.against("reply without history", b, model=name)
    # Without the history the server has nothing that names Atlas: a reply naming it
    # would mean state kept between requests. That the model uses the history it is
    # sent is its skill, judged for the post's model only.
    check.measure(
        "without the history, nothing names Atlas",
        b,
        holds="atlas" not in b.lower(),
        expected="no Atlas in the reply to the request without the earlier turns",
    )
    check.against(
        "only the resent history names Atlas",
        "atlas" in a.lower() and "atlas" not in b.lower(),
        model=name,
        note=f"with the earlier turns {a!r}, without them {b!r}",
    )
    if isinstance(pa, int) and isinstance(pb, int):
        check.against("prompt tokens with history", pa, model=name)
        check.against("prompt tokens without history", pb, model=name)
        check.against("extra prompt tokens", pa - pb, model=name)
        check.measure(
            "resending history costs prompt tokens",
            pa - pb,
            holds=pa > pb,
            unit="tokens",
            expected="more prompt tokens with the history than without",
            note="prompt caching can lower a count; the difference is what is claimed",
        )
    else:
        check.measure(
            "prompt_eval_count reported",
            {"with": pa, "without": pb},
            holds=False,
            expected="an integer in both replies",
        )


@pytest.mark.claim("W2-STREAM-NDJSON")
def test_chat_streams_ndjson(live, check):
    options = bounded(16)
    body = {
        "model": live.model_name,
        "messages": [{"role": "user", "content": TAGLINE_PROMPT}],
        "options": options,
        "stream": True,
    }
    lines = list(live.client.stream("/api/chat", body, total_timeout=600.0))
    pieces = [str((ln.data.get("message") or {}).get("content", "")) for ln in lines]
    live.exchange(
        "POST /api/chat (stream true)",
        "POST",
        "/api/chat",
        body,
        {
            "lines": [ln.raw.decode("utf-8", "replace") for ln in lines[:12]],
            "total_lines": len(lines),
        },
    )
    check.measure(
        "JSON objects, one per line",
        len(lines),
        holds=len(lines) > 1,
        unit="lines",
        expected="several lines, each parsed as one JSON object",
    )
    check.measure(
        "text sits in message.content",
        sum(
            1 for ln in lines[:-1] if isinstance((ln.data.get("message") or {}).get("content"), str)
        ),
        holds=all(
            isinstance((ln.data.get("message") or {}).get("content"), str) for ln in lines[:-1]
        ),
        expected="every non-final line carries message.content",
    )
    check.measure(
        "last line is the final object",
        lines[-1].data.get("done"),
        holds=lines[-1].data.get("done") is True,
        expected="done: true",
    )
    whole = live.chat(
        "same request, stream false", {k: v for k, v in body.items() if k != "stream"}
    )
    joined = "".join(pieces)
    check.measure(
        "joined fragments are the reply",
        {"streamed": joined, "stream_false": whole["message"]["content"]},
        holds=joined == whole["message"]["content"],
        expected="the same text as the non-streamed reply (temperature 0, seed 42)",
    )
