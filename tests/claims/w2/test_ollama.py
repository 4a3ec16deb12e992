"""W2 claims measured against a live Ollama server (the ollama tier).

The requests are Week 2's own (prompts, options, num_predict 96 for the
benchmark), sent to the model under test (--ollama-model, default phi4).
Figures the post states for phi4 on the Spark are compared only when phi4 is
under test (and, for timings, on the dgx-spark profile); otherwise the claim's
general form is checked and those figures are reported not applicable.

Timings are compared as the range of the repeated runs: a stated "23.4 to 23.5
tok/s" agrees when it overlaps [slowest, fastest] of the warm runs, each
figure with its printed precision. Figures that describe one recorded run only
(its exact token count, its 46 ms prefill) are recorded beside the live value,
not compared: a new run is a new sample, not a replay.

Cold starts unload the model first and therefore need --ollama-allow-unload; without
it those checks are reported not run after the warm measurements are recorded.

Every request is bounded (num_predict) and, unless the claim is about randomness,
greedy with Week 2's seed 42 (claims.probes.live.ollama_api.usage.bounded): a base
model may never stop on its own, and a verdict must not hang on a sampled token.
Timing comparisons keep a margin taken from the measured spread of the repeated
warm runs and the clock's measured resolution (claims.probes.live.ollama_api.margins);
the evidence shows both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from statistics import median
from typing import Any

import pytest

from claims.probes.live.ollama_api.usage import bounded
from claims.testkit import Interval, model_matches, needs_flag, not_run

pytestmark = pytest.mark.ollama

WEEK2_PROMPT = "Explain Kubernetes scheduling in three sentences."
TAGLINE_PROMPT = "Give me a one-sentence tagline for a coffee shop."
NAME_PROMPT = "Reply with one invented coffee shop name and nothing else."
BENCH_CONTEXTS = (2048, 4096)
# The blocks in the order they run: the post's two, then 2048 again. Decode speed on
# a shared machine drifts by several percent within a minute (a run measured 4096
# 9% faster than the 2048 block before it, the next -4%), so the claim that the
# context does not change the speed is judged against the 2048 block on either side
# of the 4096 one (an A-B-A design): drift moves the two comparisons apart, a real
# effect of the context moves both alike.
BENCH_BLOCKS = (*BENCH_CONTEXTS, BENCH_CONTEXTS[0])
# Per context: run 1 cold (after an unload), then warm runs. The post ran two warm;
# four let the rate claims compare the two fastest of each context, which a single
# stalled run on a shared CPU cannot decide (claims.probes.live.ollama_api.margins).
BENCH_RUNS = 5
# The post's benchmark asks for 96 tokens; 24 (as in the captures) time the first token,
# the load and the decode rate as well, and keep the six runs to seconds on a slow CPU.
BENCH_NUM_PREDICT = 24
BENCH_OPTIONS = bounded(BENCH_NUM_PREDICT)
# Week 2's own request sends only model and prompt; here it is bounded (32 tokens) and
# made greedy, which none of the claims about its reply depends on.
WEEK2_OPTIONS = bounded(32)
# W2-TEMP-VARIES: samples drawn until two differ, at most this many (see the test).
TEMP_VARIES_MAX_SAMPLES = 8
# How a generate reply may end (Ollama's llm DoneReason: stop, length; "load" and
# "unload" answer requests without a prompt).
DONE_REASONS = ("stop", "length")
SIZE_DISPLAY = re.compile(r"^(\d+(?:\.\d)?) (B|KB|MB|GB|TB)$")
# The bars that decide the vague claims, the same in every tier of each claim
# (tests/claims/w2/test_recorded.py explains them): "much faster per token" is at
# least twice the rate; "seconds" against the post's slowest warm first token
# (0.20 s) is a factor of 5; "seconds" against "about a tenth of a second" of load
# is a factor of 10.
PREFILL_MUCH_FASTER = 2.0
COLD_OVER_WARM_TTFT = 5.0
COLD_OVER_WARM_LOAD = 10.0
# W2-NUMCTX-NOT-SPEED: "did not change decode speed". The post's own rates at the two
# contexts differ by under 0.5%; 5% is ten times that, wide enough for the run-to-run
# noise of a warm model on a shared machine, narrow enough that a real per-token
# cost of the larger cache (which would grow with the context) would show.
NUMCTX_RATE_CHANGE_MAX = 0.05
# W2-TOKS-PER-SEC: eval_count / eval_duration against the client's own clock over
# the streamed tokens. A wrong unit is off by a factor of 1,000; the two clocks time
# slightly different spans (the client's adds transfer and chunk batching, the
# server's leaves out the first token), which moves the ratio by some percent, so
# 0.8-1.25 (a quarter either way on a log scale) tells the two cases apart.
CLIENT_CLOCK_RATIO = (0.8, 1.25)


def span(values: list[float]) -> Interval:
    """The range of repeated measurements, for comparison with a stated figure."""
    return Interval(min(values), max(values))


def against_span(
    live: Any, name: str, values: list[float], *, note: str, samples: str | None = None
) -> None:
    """Compare the range of repeated runs with the stated figure, attaching the runs first."""
    if samples is not None:
        live.check.attach(samples, values, kind="json")
    live.check.against(name, span(values), model=live.model_name, note=note)


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


def displayed_size(size: int) -> tuple[float, str]:
    """A byte count as `ollama list` / `ollama ps` print it ("9.1 GB")."""
    from claims.probes.files.ollama_store import human_bytes

    m = SIZE_DISPLAY.match(human_bytes(size))
    assert m is not None, human_bytes(size)
    return float(m.group(1)), m.group(2)


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


# --- shared measurements ----------------------------------------------------------------
@dataclass
class Week2Reply:
    body: dict[str, Any]
    reply: dict[str, Any]
    client_ns: int

    def recorded_by(self, live: Any) -> dict[str, Any]:
        """The reply, its exchange attached to ``live``'s check (every claim it serves shows it)."""
        live.exchange(
            "POST /api/generate (Week 2 request)", "POST", "/api/generate", self.body, self.reply
        )
        return self.reply


@pytest.fixture(scope="module")
def week2_reply(ollama_client: Any, ollama_model: Any) -> Week2Reply:
    """Week 2's non-streaming generate request, sent once and shared (Concepts 2-3)."""
    body = {
        "model": ollama_model.name,
        "prompt": WEEK2_PROMPT,
        "stream": False,
        "options": dict(WEEK2_OPTIONS),
    }
    reply = ollama_client.post_json("/api/generate", body)
    # The request's own round trip, without the session's accounting reads of /api/ps.
    return Week2Reply(body, reply, ollama_client.last_request_ns)


@dataclass
class BenchRow:
    context: int
    run: int
    cold: bool
    timing: Any
    block: int = 0  # index into BENCH_BLOCKS

    @property
    def label(self) -> str:
        kind = "cold" if self.cold else "first" if self.run == 1 else "warm"
        again = " again," if self.block >= len(BENCH_CONTEXTS) else ""
        return f"ctx {self.context}{again} run {self.run} ({kind})"


@dataclass
class Benchmark:
    rows: list[BenchRow]
    ps: dict[int, dict[str, Any] | None]
    unloaded: bool
    exchanges: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)

    def warm(self, context: int | None = None, block: int | None = None) -> list[BenchRow]:
        return [
            r
            for r in self.rows
            if r.run > 1 and context in (None, r.context) and block in (None, r.block)
        ]

    def cold(self) -> list[BenchRow]:
        return [r for r in self.rows if r.cold]


@pytest.fixture(scope="module")
def week2_bench(ollama_client: Any, ollama_model: Any, claims_settings: Any) -> Benchmark:
    """Week 2's Concept 6 benchmark: per block of BENCH_BLOCKS, one cold run then warm runs.

    Without --ollama-allow-unload the first run at each context is kept but marked
    "first" (it may include a reload for the new num_ctx) and no cold figure
    is claimed from it.
    """
    from claims.probes.live.ollama_api import find_model
    from claims.probes.live.timing import measure_stream

    bench = Benchmark(rows=[], ps={}, unloaded=claims_settings.allow_unload)
    for block, context in enumerate(BENCH_BLOCKS):
        for run in range(1, BENCH_RUNS + 1):
            cold = run == 1 and claims_settings.allow_unload
            if cold:
                ollama_client.unload(ollama_model.name, timeout=60.0)
            body = {
                "model": ollama_model.name,
                "prompt": WEEK2_PROMPT,
                "options": {**BENCH_OPTIONS, "num_ctx": context},
            }
            timing = measure_stream(
                ollama_client, "/api/generate", body, text_key="response", total_timeout=600.0
            )
            row = BenchRow(context, run, cold, timing, block)
            bench.rows.append(row)
            final = {k: v for k, v in timing.final.items() if k != "context"}
            bench.exchanges.append(
                (
                    row.label,
                    {**body, "stream": True},
                    {"streamed_text": timing.text, "final_chunk": final},
                )
            )
        if context not in bench.ps:  # the 2048 control block asks /api/ps nothing new
            bench.ps[context] = find_model(ollama_client.ps(), ollama_model.name)
    return bench


def record_benchmark(live: Any, bench: Benchmark) -> None:
    for label, body, reply in bench.exchanges:
        live.exchange(label, "POST", "/api/generate", body, reply)
    live.check.attach(
        "benchmark rows",
        [{"label": r.label, **r.timing.to_json()} for r in bench.rows],
        kind="json",
    )
    live.check.chart(
        "ttft",
        [r.timing.chart_row(r.label, cold=r.cold) for r in bench.rows],
        title=f"{live.model_name}: client TTFT beside the server's phases",
    )


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
        value, unit = displayed_size(int(entry["size"]))
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
    if port != 11434:
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
        note=f"request bounded by num_predict {WEEK2_OPTIONS['num_predict']}",
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

        specials = {i: vocab.tokens[i] for i in set(context) if i >= 100256}
        same = decode_cl100k(answer_ids, specials) == reply.get("response")
        check.measure(
            "cl100k_base decodes the same answer",
            same,
            holds=same,
            expected="true (phi4's ordinary ids are cl100k_base's)",
        )


# --- Concept 3 ----------------------------------------------------------------------------
@pytest.mark.claim("W2-TOKS-PER-SEC")
def test_tokens_per_second(live, check, week2_reply, week2_bench):
    from claims.probes.live.timing import ServerDurations

    reply = week2_reply.recorded_by(live)
    d = ServerDurations.from_final(reply)
    if d.decode_tokens_per_s is None:
        check.measure(
            "eval_count and eval_duration present",
            reply.get("eval_count"),
            holds=False,
            expected="both present and non-zero",
        )
        return
    check.observe("eval_count (this run)", d.eval_count, unit="tokens")
    check.observe("decode time (this run)", round((d.eval_ns or 0) / 1e9, 3), unit="s")
    rates = [d.decode_tokens_per_s] + [
        r.timing.server.decode_tokens_per_s
        for r in week2_bench.warm()
        if r.timing.server.decode_tokens_per_s is not None
    ]
    against_span(
        live,
        "tokens per second",
        rates,
        samples="decode rates (tok/s)",
        note=f"range of {len(rates)} runs: the Week 2 request and the warm week2_bench runs",
    )
    # That the formula is the generation speed, not merely a ratio of two fields: the
    # streamed warm runs also time the tokens on the client's clock.
    pairs = [
        (r.timing.server.decode_tokens_per_s, r.timing.client_decode_tokens_per_s)
        for r in week2_bench.warm()
        if r.timing.server.decode_tokens_per_s and r.timing.client_decode_tokens_per_s
    ]
    if not pairs:
        check.measure(
            "streamed warm runs timed on both clocks",
            0,
            holds=False,
            expected="eval_count, eval_duration and a first-to-last token span",
        )
        return
    low, high = CLIENT_CLOCK_RATIO
    ratios = [server / client for server, client in pairs]
    check.measure(
        "eval_count / eval_duration over the client-clock rate",
        [round(x, 3) for x in ratios],
        holds=all(low <= x <= high for x in ratios),
        expected=f"between {low} and {high} in every warm run: the formula times the "
        "generated tokens in seconds",
        note="client rate: (eval_count - 1) over first-to-last streamed text",
    )


@pytest.mark.claim("W2-PREFILL-FASTER")
def test_prefill_faster_than_decode(live, check, week2_reply, week2_bench):
    """Prefill's per-token rate against decode's, over every request that timed both.

    One request's 8- to 20-token prefill lasts tens of milliseconds, so a single
    sample is scheduling noise on a shared CPU (a contended run once read 0.84x
    from one such sample). The Week 2 request and the benchmark's six runs each
    report both rates; the bar is judged on the fastest samples and decided only
    when the fastest and second-fastest agree (claims.probes.live.ollama_api.margins).
    """
    from claims.probes.live.ollama_api.margins import BestRates
    from claims.probes.live.timing import ServerDurations

    reply = week2_reply.recorded_by(live)
    record_benchmark(live, week2_bench)
    d = ServerDurations.from_final(reply)
    check.against(
        "prompt tokens",
        d.prompt_eval_count,
        model=live.model_name,
        note="Ollama may count fewer when a cached prompt prefix is reused",
    )
    samples = [("Week 2 request", d)] + [(r.label, r.timing.server) for r in week2_bench.rows]
    timed = [
        (label, s.prefill_tokens_per_s, s.decode_tokens_per_s)
        for label, s in samples
        if s.prefill_tokens_per_s and s.decode_tokens_per_s
    ]
    check.observe("prefill time (Week 2 request)", round((d.prompt_eval_ns or 0) / 1e6, 2),
                  unit="ms")
    check.observe(
        "prefill and decode rates per request",
        {label: [round(p, 1), round(r, 2)] for label, p, r in timed},
        unit="tok/s",
        note="[prefill, decode] of each request that reports both",
    )
    if len(timed) < 2:
        not_run(
            f"{len(timed)} of {len(samples)} replies report both prompt_eval and eval timings "
            "(Ollama omits zero durations; a fully cached prompt reports none); two are needed"
        )
    rates = BestRates.of([p for _, p, _ in timed], [r for _, _, r in timed])
    check.attach("prefill over decode: samples", rates.to_json(), kind="json")
    verdict = rates.decide(lambda ratio: ratio >= PREFILL_MUCH_FASTER)
    if verdict is None:
        not_run(
            f"the fastest samples give {rates.best:.2f}x and the second-fastest "
            f"{rates.runner_up:.2f}x, either side of the {PREFILL_MUCH_FASTER:g}x bar; the "
            "requests' own scatter decides nothing, rerun on a quieter machine"
        )
    check.measure(
        "prefill per-token rate over decode rate",
        [round(rates.best, 2), round(rates.runner_up, 2)],
        unit="x",
        holds=verdict is True,
        expected=f">= {PREFILL_MUCH_FASTER:g}x ('much faster') for the fastest and the "
        "second-fastest samples",
        note=f"fastest and second-fastest of {len(timed)} requests, each rate on its own",
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
    if model_matches("phi4", name):
        check.measure(
            "only the resent history names Atlas",
            {"with": a, "without": b},
            holds="atlas" in a.lower() and "atlas" not in b.lower(),
            expected="Atlas with the earlier turns, no Atlas without them",
        )
    else:
        check.observe(
            "reply with history names Atlas",
            "atlas" in a.lower(),
            note=f"whether {name} uses the history is the model's skill, judged for phi4 only",
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


# --- Concept 6 ----------------------------------------------------------------------------
def documents_case(live: Any) -> bool:
    """Whether the document's own bars apply: its model (phi4) on its machine (a Spark)."""
    return model_matches("phi4", live.model_name) and live.check.profile == "dgx-spark"


def documents_bar(live: Any, name: str, ratio: float, bar: float, expected: str) -> None:
    """The document's own cold/warm factor: judged for its case, otherwise shown beside it.

    Only phi4 on a Spark is held to the post's factor (``ratio >= bar``); any other
    model or machine is judged by :func:`cold_beyond_warm`'s margin, and the ratio
    is recorded with the reason it is not compared.
    """
    if documents_case(live):
        live.check.measure(
            name, round(ratio, 1), holds=ratio >= bar, unit="x", expected=expected
        )
    else:
        live.check.observe(
            name,
            round(ratio, 1),
            unit="x",
            note=f"the post's {bar:g}x bar is for phi4 on the Spark; {live.model_name} on "
            f"the {live.check.profile} profile is judged by the margin",
        )


def cold_beyond_warm(
    live: Any, name: str, cold: list[float], warm: list[float], resolution_s: float, what: str
) -> None:
    """The general form: every cold value exceeds the slowest warm one by a justified margin.

    A cold request pays a model load that a warm one does not; that load has to
    show as more than the warm runs' own jitter and more than the clock's
    resolution can blur (claims.probes.live.ollama_api.margins).
    """
    from claims.probes.live.ollama_api.margins import separation_margin

    margin = separation_margin(warm, resolution_s)
    live.check.attach(f"{name}: margin", margin.to_json(), kind="json")
    live.check.observe(f"{name}: clock resolution", resolution_s, unit="s")
    live.check.observe(f"{name}: spread of the warm runs", round(margin.spread_s, 6), unit="s")
    gap = min(cold) - max(warm)
    if abs(gap) <= margin.margin_s:
        # Inside the noise band the runs decide nothing either way: neither a
        # confirmation nor a refutation (a busy machine's jitter, not the runtime).
        not_run(
            f"{name}: the cold runs differ from the slowest warm run by {gap:.3g} s, within "
            f"the margin {margin.margin_s:.3g} s that the warm runs' own spread sets; rerun "
            "on a quieter machine to decide it"
        )
    live.check.measure(
        f"{name}: fastest cold minus slowest warm",
        round(gap, 4),
        holds=gap > margin.margin_s,
        unit="s",
        expected=f"more than the margin, {margin.margin_s:.4g} s: {what}",
        note=margin.describe(),
    )


@pytest.mark.claim("W2-COLD-TTFT")
def test_cold_ttft_far_above_warm(live, check, week2_bench):
    from claims.probes.live.ollama_api.margins import clock_resolution_s

    record_benchmark(live, week2_bench)
    warm = [r.timing.ttft_ms / 1000 for r in week2_bench.warm() if r.timing.ttft_ms is not None]
    against_span(
        live,
        "warm TTFT",
        warm,
        samples="warm TTFT samples (s)",
        note=f"range of {len(warm)} warm runs, num_predict {BENCH_NUM_PREDICT}",
    )
    needs_flag(
        live.settings.allow_unload, "--ollama-allow-unload", "measuring a cold start (unload first)"
    )
    cold = [r.timing.ttft_ms / 1000 for r in week2_bench.cold() if r.timing.ttft_ms is not None]
    against_span(
        live,
        "cold TTFT",
        cold,
        samples="cold TTFT samples (s)",
        note=f"range of {len(cold)} cold runs (after unload)",
    )
    cold_beyond_warm(
        live,
        "first token",
        cold,
        warm,
        clock_resolution_s(),
        "the cold request waits for the model load before its first token",
    )
    # The extra wait is the load: what the cold runs report as load_duration beyond
    # the warm ones, beside what they waited beyond the warm first token.
    extra_load = [
        (r.timing.server.load_ms or 0) / 1000 - median(
            [(w.timing.server.load_ms or 0) / 1000 for w in week2_bench.warm()]
        )
        for r in week2_bench.cold()
    ]
    check.observe(
        "cold runs: extra TTFT and extra load_duration over the warm medians",
        {
            "extra TTFT (s)": [round(c - median(warm), 3) for c in cold],
            "extra load_duration (s)": [round(x, 3) for x in extra_load],
        },
    )
    documents_bar(
        live,
        "cold TTFT over warm TTFT",
        min(cold) / median(warm),
        COLD_OVER_WARM_TTFT,
        f"cold at least {COLD_OVER_WARM_TTFT:g}x the warm median "
        "(the post saw about 35x; its bar for phi4 on the Spark)",
    )


@pytest.mark.claim("W2-LOAD-DURATION")
def test_load_duration_cold_versus_warm(live, check, week2_bench):
    from claims.probes.live.ollama_api.margins import server_resolution_s

    record_benchmark(live, week2_bench)
    warm = [r.timing.server.load_ms for r in week2_bench.warm() if r.timing.server.load_ms]
    # The catalog's ranges are the recorded rows: a live run is judged cold against warm.
    check.observe("warm load_duration", [round(x, 1) for x in warm], unit="ms")
    needs_flag(
        live.settings.allow_unload, "--ollama-allow-unload", "measuring a cold load (unload first)"
    )
    cold = [r.timing.server.load_ms for r in week2_bench.cold() if r.timing.server.load_ms]
    check.observe("cold load_duration", [round(x, 1) for x in cold], unit="ms")
    check.observe("slowest cold load", round(max(cold) / 1000, 3), unit="s")
    reported = [
        int(r.timing.final.get("load_duration") or 0) for r in week2_bench.rows
    ]
    cold_beyond_warm(
        live,
        "load_duration",
        [c / 1000 for c in cold],
        [w / 1000 for w in warm],
        server_resolution_s(reported),
        "a cold request reports the model load that warm requests do not pay",
    )
    documents_bar(
        live,
        "cold load over warm load",
        min(cold) / max(warm),
        COLD_OVER_WARM_LOAD,
        f"cold load_duration at least {COLD_OVER_WARM_LOAD:g}x every warm one "
        "(seconds against ~0.1 s; the post's bar for phi4 on the Spark)",
    )


@pytest.mark.claim("W2-NUMCTX-NOT-SPEED")
def test_num_ctx_does_not_change_decode_speed(live, check, week2_bench):
    """The warm decode rate at 4096 against 2048, in an A-B-A design, fastest runs first.

    Other work only slows a run down, so each block is read through its fastest
    and second-fastest runs (claims.probes.live.ollama_api.margins.BestRates); the
    machine's drift is caught by comparing the 4096 block with the 2048 block
    before it and with the one after it. The claim holds when all four ratios are
    within the bar, is refuted when all four are beyond it on the same side, and
    is not decided otherwise.
    """
    from claims.probes.live.ollama_api.margins import BestRates

    record_benchmark(live, week2_bench)
    check.against("contexts", list(BENCH_CONTEXTS))
    blocks = [
        [
            r.timing.server.decode_tokens_per_s
            for r in week2_bench.warm(block=i)
            if r.timing.server.decode_tokens_per_s is not None
        ]
        for i in range(len(BENCH_BLOCKS))
    ]
    flat = [x for block in blocks for x in block]
    against_span(live, "decode rate", flat, note="range of the warm runs of every block")
    small, large = BENCH_CONTEXTS
    before, middle, after = blocks
    check.observe(
        "warm decode rates per block",
        {f"{small} before": [round(x, 2) for x in before],
         f"{large}": [round(x, 2) for x in middle],
         f"{small} after": [round(x, 2) for x in after]},
        unit="tok/s",
    )
    try:
        pairs = {"before": BestRates.of(middle, before), "after": BestRates.of(middle, after)}
    except ValueError as exc:
        not_run(f"warm decode rates at {large} over {small}: {exc}")
    for side, pair in pairs.items():
        check.attach(f"decode rate at {large} over {small} {side}: samples", pair.to_json(),
                     kind="json")
    ratios = [r for pair in pairs.values() for r in (pair.best, pair.runner_up)]
    changes = [round(100 * (r - 1), 2) for r in ratios]
    bar = NUMCTX_RATE_CHANGE_MAX
    if all(abs(r - 1) < bar for r in ratios):
        verdict = True
    elif all(r - 1 >= bar for r in ratios) or all(1 - r >= bar for r in ratios):
        verdict = False
    else:
        not_run(
            f"the decode rate at {large} changed {changes[0]:+.1f}% / {changes[1]:+.1f}% "
            f"against the {small} runs before it and {changes[2]:+.1f}% / {changes[3]:+.1f}% "
            f"against those after it (fastest / second-fastest), not all on one side of "
            f"±{bar:.0%}: the machine's drift decides nothing, rerun on a quieter machine"
        )
    check.measure(
        f"decode rate change from {small} to {large}",
        changes,
        holds=verdict,
        unit="%",
        expected=f"within ±{bar:.0%} against the {small} runs before and after, fastest and "
        "second-fastest (an 18-token prompt uses neither context fully)",
        note=f"[before: fastest, second; after: fastest, second] of {len(before)}, "
        f"{len(middle)} and {len(after)} warm runs",
    )


@pytest.mark.claim("W2-PS-CONTEXT")
def test_ps_reports_the_requested_context(live, check, week2_bench):
    entry = week2_bench.ps.get(BENCH_CONTEXTS[-1])
    live.exchange("GET /api/ps after the 4096 runs", "GET", "/api/ps", None, {"entry": entry})
    if entry is None:
        check.measure(
            "model listed by /api/ps",
            None,
            holds=False,
            expected="the model still loaded right after its runs",
        )
        return
    if "context_length" not in entry:
        not_run(f"Ollama {live.version} does not report context_length in /api/ps (v0.10.0+)")
    check.against("CONTEXT", entry["context_length"])
    check.against("ID", str(entry.get("digest", ""))[:12], model=live.model_name)
    size, vram = entry.get("size"), entry.get("size_vram")
    if isinstance(size, int) and isinstance(vram, int) and size > 0:
        from claims.probes.live.ollama_api.display import processor_column

        text = processor_column(size, vram)
        check.against("PROCESSOR", text, note=f"size_vram {vram:,} of size {size:,} bytes")
        value, unit = displayed_size(size)
        check.against(
            "SIZE",
            value,
            unit=unit,
            model=live.model_name,
            note=f"{size:,} bytes, printed as ollama ps does",
        )


@pytest.mark.claim("W2-CTX-MEMORY")
def test_larger_context_takes_more_memory(live, check, week2_bench):
    sizes = {c: (week2_bench.ps.get(c) or {}).get("size") for c in BENCH_CONTEXTS}
    live.exchange("GET /api/ps after each context", "GET", "/api/ps", None, week2_bench.ps)
    if not all(isinstance(s, int) for s in sizes.values()):
        check.measure(
            "loaded sizes reported",
            sizes,
            holds=False,
            expected="/api/ps lists the model with a size after each context's runs",
        )
        return
    small, large = (int(sizes[c] or 0) for c in BENCH_CONTEXTS)
    check.measure(
        "loaded size at 4096 over 2048",
        {"2048": small, "4096": large, "growth": large - small},
        holds=large > small,
        unit="B",
        expected="the 4096-token load takes more memory than the 2048-token load",
    )
