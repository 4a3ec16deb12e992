"""The masterclass's REST API claims, measured against a live Ollama server (the ollama tier).

Where the masterclass and Ollama's source disagree, the project's notes on the
source decide what is expected, and the catalog records the masterclass's
statement as a known erratum. Requests are small (num_predict of a few dozen
tokens at most). The other subjects have their own modules: test_ollama_context
(num_ctx), test_ollama_clients (OpenAI and SDK clients), test_ollama_embed,
test_ollama_timing, test_ollama_host (this machine's sockets, processes, CLI) and
test_ollama_create (models created on the server, --ollama-allow-create).
"""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest

from claims.probes.live.ollama_api.stamps import parse_version
from claims.probes.live.ollama_api.usage import bounded
from claims.testkit import not_run

pytestmark = pytest.mark.ollama

TAGLINE_PROMPT = "Give me a one-sentence tagline for a coffee shop."
COUNT_PROMPT = "Count from 1 to 200, separated by commas, and nothing else."


# --- 1.5 / 4.x: the REST API ------------------------------------------------------------
@pytest.mark.claim("MC-VERSION")
def test_version_endpoint(live, check):
    reply = live.client.get_json("/api/version")
    live.exchange("GET /api/version", "GET", "/api/version", None, reply)
    version = reply.get("version") if isinstance(reply, dict) else None
    check.measure(
        'reply is {"version": string}',
        reply,
        holds=isinstance(version, str),
        expected='{"version": "<x.y.z>"}',
    )
    check.measure(
        "version string",
        version,
        holds=isinstance(version, str) and parse_version(version) is not None,
        expected="a dotted x.y.z version",
    )


@pytest.mark.claim("MC-HEALTH-TAGS")
def test_tags_as_health_check(live, check):
    started = time.perf_counter()
    models = live.client.tags()  # raises ServerHTTPError on a non-2xx status
    elapsed_ms = (time.perf_counter() - started) * 1000
    live.exchange("GET /api/tags", "GET", "/api/tags", None, {"models": models})
    check.measure(
        "HTTP 200 with a model list",
        len(models),
        holds=isinstance(models, list),
        unit="models",
        expected="status 200 and a 'models' list",
    )
    check.observe("answered in", round(elapsed_ms, 1), unit="ms")


@pytest.mark.claim("MC-STREAM-DEFAULT")
def test_streams_by_default(live, check):
    body = {
        "model": live.model_name,
        "prompt": TAGLINE_PROMPT,
        "options": bounded(16),
    }
    lines = list(live.client.stream("/api/generate", body, total_timeout=300.0))
    live.exchange(
        "POST /api/generate without 'stream'",
        "POST",
        "/api/generate",
        body,
        {
            "lines": [ln.raw.decode("utf-8", "replace") for ln in lines[:8]],
            "total_lines": len(lines),
        },
    )
    check.measure(
        "no stream field: NDJSON, one object per line",
        len(lines),
        holds=len(lines) > 1 and lines[-1].data.get("done") is True,
        unit="lines",
        expected="several lines ending with done: true",
    )
    one = live.generate("POST /api/generate with stream false", body)
    check.measure(
        "stream false: one object",
        sorted(one),
        holds=one.get("done") is True and isinstance(one.get("response"), str),
        expected="a single JSON object with done: true and the whole response",
    )


@pytest.mark.claim("MC-CHAT-REPLY")
def test_chat_reply_fields(live, check, reply_checks):
    body = {
        "model": live.model_name,
        "messages": [{"role": "user", "content": TAGLINE_PROMPT}],
        "options": bounded(16),
    }
    reply = live.chat("POST /api/chat (stream false)", body)
    client_ns = live.client.last_request_ns  # the request alone, not the accounting reads
    reply_checks.fields("MC-CHAT-REPLY", reply)
    check.against("message role", (reply.get("message") or {}).get("role"))
    reply_checks.duration_unit(reply, client_ns)
    reply_checks.phases_within_total(reply, "the total covers the phases")


@pytest.mark.claim("MC-STOP-SEQUENCE")
def test_stop_sequence(live, check):
    """The stop string is taken from the model's own greedy reply, so it is there to stop on.

    Greedy decoding repeats the reply, so with that word as a stop string the same
    request must end just before it: whatever the model writes, the runtime's stop
    handling is what is judged.
    """
    body = {"model": live.model_name, "prompt": COUNT_PROMPT, "options": bounded(24)}
    free = str(live.generate("greedy reply without stop", body).get("response", ""))
    check.observe("reply without stop", free[:200])
    words = [m for m in re.finditer(r"[A-Za-z0-9]+", free) if m.start() > 0]
    if not words:
        not_run(
            "the greedy reply has no word after its first character to use as a stop "
            f"string ({free[:60]!r}); a model that writes a few words runs it"
        )
    stop = words[len(words) // 2].group(0)
    cut = free.index(stop)
    check.observe("stop string", stop, note=f"a word of the greedy reply, first at offset {cut}")
    stopped = live.generate(
        f"same request with stop [{stop!r}]",
        {**body, "options": bounded(24, stop=[stop])},
    )
    text = str(stopped.get("response", ""))
    check.measure(
        "stop string not returned",
        text,
        holds=stop not in text,
        expected=f"the reply ends before {stop!r} and does not contain it",
    )
    check.measure(
        "the reply is the greedy reply up to the stop string",
        {"stopped": text, "greedy prefix": free[:cut]},
        holds=text == free[:cut],
        expected="exactly what the greedy reply holds before the stop string's first occurrence",
    )
    check.measure(
        "generation ended at the stop",
        stopped.get("done_reason"),
        holds=stopped.get("done_reason") == "stop",
        expected="done_reason stop",
    )


@pytest.mark.claim("MC-GO-TEMPLATES")
def test_templates_are_go_templates(live, check):
    model = live.model()
    template = str(model.show.get("template") or "")
    check.attach("template", template, kind="text")
    variables = sorted(
        set(re.findall(r"\.(System|Prompt|Response|Messages|Content|Role|Tools)\b", template))
    )
    check.observe("template variables", variables)
    check.measure(
        "Go text/template actions",
        template.count("{{"),
        holds="{{" in template and "}}" in template,
        expected="{{ ... }} actions over the request's fields",
    )
    specials = sorted(
        set(re.findall(r"<\|[a-z_]+\|>|<start_of_turn>|<end_of_turn>|\[INST\]", template))
    )
    check.observe("special tokens in the template", specials)
    check.measure(
        "request fields reach the template",
        variables,
        holds=bool({"Prompt", "Messages", "Content"} & set(variables)),
        expected=".Prompt (or, in current templates, .Messages with .Content)",
        note="current templates often iterate over .Messages instead of .Prompt",
    )


# --- 5.2: structured output ---------------------------------------------------------------
# Bounded so that every reply the grammar allows ends well inside STRUCTURED_NUM_PREDICT
# tokens: at most about 150 characters of keys, strings and punctuation, plus the few
# whitespace runs the grammar permits. A reply cut by the token limit (done_reason
# "length") decides nothing about the schema.
COUNTRY_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 24},
        "capital": {"type": "string", "maxLength": 24},
        "languages": {
            "type": "array",
            "items": {"type": "string", "maxLength": 16},
            "minItems": 1,
            "maxItems": 3,
        },
    },
    "required": ["name", "capital", "languages"],
    "additionalProperties": False,
}
STRUCTURED_NUM_PREDICT = 256


@pytest.mark.claim("MC-STRUCTURED")
def test_structured_output_validates(live, check):
    options = bounded(STRUCTURED_NUM_PREDICT)
    result = live.client.structured(
        live.model_name, "Tell me about Canada. Respond in JSON.", COUNTRY_SCHEMA, options=options
    )
    live.exchange(
        "POST /api/generate with format = schema",
        "POST",
        "/api/generate",
        {"model": live.model_name, "format": COUNTRY_SCHEMA, "options": options},
        result.reply,
    )
    reason = result.reply.get("done_reason")
    check.observe("done_reason", reason, note=f"num_predict {STRUCTURED_NUM_PREDICT}")
    if reason != "stop":
        not_run(
            f"the reply ended on done_reason {reason!r} after {result.reply.get('eval_count')} "
            f"tokens, before the grammar let the object close: a cut reply decides nothing. "
            f"A model that closes the bounded object within {STRUCTURED_NUM_PREDICT} tokens "
            "runs it"
        )
    check.measure(
        "reply validates against the schema",
        result.value,
        holds=result.valid,
        expected="JSON that jsonschema accepts",
        note="; ".join(result.errors) or None,
    )


@pytest.mark.claim("MC-JSON-GUARANTEE")
def test_json_output_is_not_always_valid(live, check):
    from claims.probes.live.ollama_api import ReplyError

    outcomes = {}
    for label, num_predict in (("allowed 64 tokens", 64), ("cut by num_predict 8", 8)):
        reply = live.generate(
            f"format json, {label}",
            {
                "model": live.model_name,
                "prompt": "Describe Canada as JSON with several fields.",
                "format": "json",
                "options": bounded(num_predict),
            },
        )
        text = reply.get("response")
        if not isinstance(text, str):
            raise ReplyError(f"/api/generate: no response text in {str(reply)[:200]}")
        try:
            json.loads(text)
            valid = True
        except json.JSONDecodeError:
            valid = False
        outcomes[label] = {"valid": valid, "done_reason": reply.get("done_reason")}
    check.observe("outcomes", outcomes)
    check.against(
        "always valid JSON",
        all(o["valid"] for o in outcomes.values()),
        note="valid JSON in every reply, including one cut by num_predict",
    )


# --- 4.4: tools ---------------------------------------------------------------------------------
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "The city name"}},
            "required": ["city"],
        },
    },
}


@pytest.mark.claim("MC-TOOL-CALLS")
def test_tool_calls(live, check):
    name = live.settings.ollama_tools_model
    if not name:
        not_run("needs a tools-capable model: pass --ollama-tools-model (e.g. llama3.2:3b)")
    model = live.model(name)
    check.observe("capabilities", model.show.get("capabilities"))
    question = {"role": "user", "content": "What is the weather in Toronto right now?"}
    body = {
        "model": model.name,
        "messages": [question],
        "tools": [WEATHER_TOOL],
        "options": bounded(64),
    }
    reply = live.chat("chat with tools", body)
    message = reply.get("message") or {}
    calls = message.get("tool_calls") or []
    check.measure(
        "message.tool_calls present",
        len(calls),
        holds=bool(calls),
        expected="at least one tool call",
    )
    if not calls:
        return
    function = calls[0].get("function") or {}
    check.measure(
        "function name",
        function.get("name"),
        holds=function.get("name") == "get_current_weather",
        expected="get_current_weather",
    )
    key = next((k for k, v in function.items() if isinstance(v, dict)), None)
    check.against("arguments key", key, note=f"the key holding the arguments object: {function}")
    follow = live.chat(
        "tool result sent back",
        {
            "model": model.name,
            "options": bounded(64),
            "tools": [WEATHER_TOOL],
            "messages": [
                question,
                message,
                {
                    "role": "tool",
                    "content": "22 degrees Celsius, sunny",
                    "tool_name": "get_current_weather",
                },
            ],
        },
    )
    content = str((follow.get("message") or {}).get("content", ""))
    check.measure(
        "a role tool message is accepted",
        content[:200],
        holds=bool(content.strip()),
        expected="an assistant reply using the tool's result",
    )


# --- 6.x / Q31: loaded models -------------------------------------------------------------
@pytest.mark.claim("MC-PS")
def test_ps_lists_loaded_models(live, check):
    live.client.load(live.model_name)
    entry = live.ps_entry()
    if entry is None:
        check.measure(
            "the loaded model is listed",
            None,
            holds=False,
            expected="/api/ps lists the model right after loading it",
        )
        return
    wanted = ("name", "model", "size", "size_vram", "digest", "details", "expires_at")
    check.measure(
        "fields", sorted(entry), holds=all(k in entry for k in wanted), expected=", ".join(wanted)
    )
    size, vram = entry.get("size"), entry.get("size_vram")
    if isinstance(size, int) and isinstance(vram, int) and size > 0:
        from claims.probes.live.ollama_api.display import processor_column

        check.measure(
            "where it runs",
            processor_column(size, vram),
            holds=size > 0 and 0 <= vram <= size,
            expected="100% GPU, 100% CPU or a CPU/GPU split from size_vram / size",
            note=f"size {size:,} B, size_vram {vram:,} B",
        )



@pytest.mark.claim("MC-NUM-GPU-ALL")
def test_num_gpu_999_puts_every_layer_in_vram(live, check):
    from claims.testkit import needs_flag, not_applicable

    needs_flag(live.settings.allow_unload, "--ollama-allow-unload",
               "reloading the model with a num_gpu option")
    live.client.load(live.model_name)
    default = live.ps_entry()
    if default is None or not default.get("size_vram"):
        not_applicable(
            "the model's default load puts nothing in VRAM (size_vram "
            f"{None if default is None else default.get('size_vram')}): the server has no GPU "
            "it can offload to"
        )
    layers = int(check.premise("num_gpu for every layer"))
    live.client.load(live.model_name, options={"num_gpu": layers})
    entry = live.ps_entry()
    size = None if entry is None else entry.get("size")
    vram = None if entry is None else entry.get("size_vram")
    check.against(
        "every layer in VRAM",
        isinstance(size, int) and size > 0 and vram == size,
        note=f"/api/ps after loading with num_gpu {layers}: size {size}, size_vram {vram}",
    )


@pytest.mark.claim("MC-NO-AUTH")
def test_no_authentication(live, check):
    from claims.probes.live.ollama_api import ServerHTTPError

    show = live.client.show(live.model_name)
    live.exchange(
        "POST /api/show without credentials",
        "POST",
        "/api/show",
        {"model": live.model_name},
        {k: show.get(k) for k in ("details", "parameters")},
    )
    check.measure(
        "model details readable without credentials",
        sorted(show),
        holds="details" in show,
        expected="HTTP 200 with the model's metadata",
    )
    missing = f"claims-no-such-model-{uuid.uuid4().hex[:8]}"
    answers: dict[str, str] = {}
    for method in ("DELETE", "POST"):
        try:
            live.client._request(method, "/api/delete", json={"model": missing})
            answers[method] = "200"
        except ServerHTTPError as exc:
            answers[method] = str(exc)
        check.attach(f"{method} /api/delete (a model that does not exist)", answers[method])
    check.observe(
        "answer by method",
        answers,
        note=f"deleting {missing}, which does not exist: nothing is removed",
    )
    # The delete handler says the model was not found; an unrouted method gets the
    # router's plain "404 page not found" (or 405) and never reaches it.
    reached = [
        m for m, text in answers.items() if "not found" in text and "page not found" not in text
    ]
    check.measure(
        "delete needs no credentials",
        answers,
        holds=bool(reached)
        and not any(("HTTP 401" in t or "HTTP 403" in t) for t in answers.values()),
        expected="the delete handler answers (model not found), never 401/403",
    )
    check.against(
        "delete route",
        ", ".join(f"{m} /api/delete" for m in reached) or "none",
        note="the method whose request reached the delete handler",
    )
