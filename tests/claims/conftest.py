"""Fixtures shared by the claim tests (by tier)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from claims.plugin.options import Settings
from claims.testkit import not_run

# --- engine tier: llama.cpp running a GGUF file, loaded once per session ---------

# One context large enough for the prefill test's long prompt; 42 is the seed
# Week 2 uses, so a run of the suite is reproducible end to end.
ENGINE_N_CTX = 2048
ENGINE_SEED = 42


@pytest.fixture(scope="session")
def engine_model(claims_settings: Settings) -> Any:
    """Which model file the engine tier runs (--claims-engine-model, default the Gemma file)."""
    from claims.probes.errors import ProbeError
    from claims.probes.live.engine.model_file import describe_engine_model

    try:
        return describe_engine_model(claims_settings.engine_model, claims_settings.models_dir)
    except ProbeError as exc:
        not_run(f"engine tier has no model file: {exc}")


@pytest.fixture(scope="session")
def engine(engine_model: Any) -> Iterator[Any]:
    """The model loaded in llama.cpp, once for the whole session."""
    from claims.probes.errors import PrerequisiteMissing
    from claims.probes.live.engine import Engine, llama_cpp_module

    try:
        llama_cpp_module()
    except PrerequisiteMissing as exc:
        not_run(str(exc))
    loaded = Engine.load(engine_model.path, n_ctx=ENGINE_N_CTX, seed=ENGINE_SEED)
    try:
        yield loaded
    finally:
        loaded.close()


@pytest.fixture(scope="session")
def engine_header(engine_model: Any) -> Any:
    """The engine model's GGUF header, read by the file probe (not by the engine)."""
    from claims.probes.files.gguf_file import read_header

    return read_header(engine_model.path)


@pytest.fixture
def engine_facts(check: Any, engine: Any, engine_model: Any) -> Any:
    """Record which engine and model a check ran on; returns the engine."""
    import llama_cpp

    check.fact("engine", f"llama-cpp-python {llama_cpp.__version__}")
    check.fact("engine_model", engine_model.name)
    check.fact("engine_model_path", str(engine_model.path))
    check.fact("engine_model_source", engine_model.source)
    if engine_model.sha256:
        check.fact("engine_model_sha256", engine_model.sha256)
    check.fact("engine_model_description", engine.description)
    check.fact("engine_threads", engine.n_threads)
    check.fact("engine_n_ctx", engine.n_ctx)
    return engine


# About 300 prompt tokens: enough that prompt processing runs in full batches
# and its rate is not dominated by fixed per-call costs. Shared by the Week 2
# and masterclass prefill/decode claims, so the model is asked only once.
PREFILL_PROMPT = " ".join(["Explain Kubernetes scheduling in three sentences."] * 40)
PREFILL_REPLY_TOKENS = 32
PREFILL_REPEATS = 3


@pytest.fixture(scope="session")
def engine_budget() -> Any:
    """The engine tier's seconds for timing samples, shared by its pools
    (claims.timing.budget; the same default as --ollama-budget)."""
    from claims.timing.budget import Budget
    from claims.timing.policy import DEFAULT_BUDGET_S

    return Budget(DEFAULT_BUDGET_S)


@pytest.fixture(scope="session")
def engine_prefill_runs(engine: Any, engine_budget: Any) -> Any:
    """Greedy generations from a long prompt, with llama.cpp's perf counters, as a pool.

    The engine tier's sample of the *prefill over decode rate* quantity (its catalog
    figures' ``quantity``), read by W2-PREFILL-FASTER and MC-PREFILL-DECODE alike: a
    :class:`claims.timing.procedures.SamplePool` holding a few runs (their best rates
    are shown), drawn on by the claims' timing rule up to the paired plan's cap when
    the first runs do not decide it, within the tier's budget.
    """
    from claims.timing.policy import PAIRED
    from claims.timing.procedures import SamplePool

    def take(k: int) -> list[Any]:
        return [
            engine.generate(PREFILL_PROMPT, max_tokens=PREFILL_REPLY_TOKENS, temperature=0.0)
            for _ in range(k)
        ]

    pool: SamplePool[Any] = SamplePool(take, PAIRED.looks[-1], budget=engine_budget,
                                       name="engine requests", first_look=PAIRED.looks[0])
    pool.extend(PREFILL_REPEATS)
    return pool


# --- ollama tier: a live Ollama server -------------------------------------------------
#
# Every request goes through one session client whose deadline is --ollama-timeout
# (default 120 s) end to end: connection, a cold load before the first chunk (phi4
# loads in ~6 s on the Spark), and the whole reply or stream (96 tokens take ~4 s
# there), whatever longer total a test asks for. The stall timeout bounds the
# silence between two chunks once a stream has begun (Ollama's own integration
# tests use 30 s). The first request that times out stops the tier: the server is
# wedged, and every later test would wait out its own timeout (issue 22), so the
# remaining ollama tests are not run, naming the request that hung. The breaker is per
# process (claims.probes.live.ollama_api.breaker): under xdist each worker pays that
# one timeout.
# Nothing here unloads, pulls, creates or deletes without its opt-in flag.

OLLAMA_STALL_S = 30.0
OLLAMA_CONNECT_S = 5.0
REPLY_EXCERPT_CHARS = 1500
@pytest.fixture(scope="session")
def ollama_client(claims_settings: Settings, tiers: Any) -> Iterator[Any]:
    import os

    from claims.probes.live.ollama_api import OllamaClient
    from claims.probes.live.ollama_api.usage import Usage

    timeout = claims_settings.ollama_timeout
    with OllamaClient(
        claims_settings.ollama_host,
        connect_timeout=min(OLLAMA_CONNECT_S, timeout),
        read_timeout=timeout,
        stall_timeout=min(OLLAMA_STALL_S, timeout),
        request_timeout=timeout,
        breaker=True,
        auth=claims_settings.ollama_auth,
    ) as client:

        def stop_tier(hung: str) -> None:
            # PYTEST_CURRENT_TEST is pytest's documented "which test is running".
            test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
            tiers.stop(
                "ollama",
                f"the Ollama server stopped answering: {hung}"
                + (f" (in {test})" if test else "")
                + f"; --ollama-timeout is {timeout:g} s; the tier's remaining tests are not run",
            )

        client.on_stop = stop_tier
        # Count what the session costs the server (loads, generated tokens, bounds).
        client.usage = Usage()
        yield client


@pytest.fixture(scope="session")
def ollama_version(ollama_client: Any) -> str:
    version: str = ollama_client.version()
    return version


class ServerModel:
    """A model as the server lists it (/api/tags) and describes it (/api/show)."""

    def __init__(self, name: str, entry: dict[str, Any], show: dict[str, Any]) -> None:
        self.name = name
        self.entry = entry
        self.show = show

    @property
    def digest(self) -> str:
        return str(self.entry.get("digest", ""))

    @property
    def size(self) -> int | None:
        size = self.entry.get("size")
        return size if isinstance(size, int) else None

    @property
    def model_info(self) -> dict[str, Any]:
        info = self.show.get("model_info")
        return info if isinstance(info, dict) else {}

    @property
    def architecture(self) -> str | None:
        arch = self.model_info.get("general.architecture")
        return arch if isinstance(arch, str) else None

    def info(self, suffix: str) -> Any:
        """model_info[<arch>.<suffix>] (e.g. "context_length")."""
        return self.model_info.get(f"{self.architecture}.{suffix}")


def _server_model(client: Any, settings: Settings, name: str) -> ServerModel:
    from claims.probes.live.ollama_api import find_model

    entry = find_model(client.tags(), name)
    if entry is None:
        if not settings.allow_pull:
            not_run(f"model {name} is not on the server; pull it or pass --ollama-allow-pull")
        client.pull(name, total_timeout=3600.0)
        entry = find_model(client.tags(), name)
        if entry is None:
            not_run(f"model {name} is still not listed after pulling it")
    return ServerModel(str(entry.get("name") or name), entry, client.show(name))


@pytest.fixture(scope="session")
def ollama_model(ollama_client: Any, claims_settings: Settings) -> ServerModel:
    """The model under test (--ollama-model, default phi4), present on the server."""
    return _server_model(ollama_client, claims_settings, claims_settings.ollama_model)


@pytest.fixture(scope="session")
def ollama_pools(
    request: pytest.FixtureRequest, ollama_client: Any, ollama_model: ServerModel,
    claims_settings: Settings, catalog: Any,
) -> Any:
    """The run's timing pools (claims.timing.pools): one per measured quantity, shared by
    every claim that judges it, all drawing on --ollama-budget. The pools the selected
    ollama-tier claims read (by their figures' quantities) reserve their first looks."""
    from claims.timing.budget import Budget
    from claims.timing.pools import OllamaPools, pools_for

    ids = {
        str(m.args[0])
        for item in request.session.items
        if item.get_closest_marker("ollama") is not None
        for m in item.iter_markers("claim")
        if m.args
    }
    quantities = [
        f.quantity for c in catalog if c.id in ids for f in c.stated if f.quantity
    ]

    def unload() -> None:
        if not claims_settings.allow_unload:  # the claims check the flag before drawing
            raise RuntimeError("cold/warm pairs need --ollama-allow-unload")
        ollama_client.unload(ollama_model.name, timeout=60.0, poll_interval=0.05)

    return OllamaPools(ollama_client, ollama_model.name, Budget(claims_settings.ollama_budget),
                       unload=unload, needed=pools_for(quantities))


class LiveOllama:
    """The ollama tier's view of one test: the client plus evidence recording.

    Every exchange it makes is attached to the check (request body and an
    excerpt of the reply), and the server version and host are recorded as facts.
    Its tests are on the ollama tier, so their evidence source is "live".
    """

    def __init__(self, check: Any, client: Any, settings: Settings, version: str) -> None:
        self.check = check
        self.client = client
        self.settings = settings
        self.version = version
        self._model: ServerModel | None = None
        check.fact("ollama_version", version)
        check.fact("ollama_host", settings.ollama_host)
        if settings.ollama_remote:
            check.fact("ollama_remote", True)  # measured on another machine
        # The session's running totals, so the run's facts end with the whole tier's cost.
        if getattr(client, "usage", None) is not None:
            check.fact("ollama_usage", client.usage.to_json())
            client.on_usage = lambda usage: check.fact("ollama_usage", usage.to_json())

    @property
    def model_name(self) -> str:
        """The model under test (--ollama-model), checked once to be on the server.

        A request naming a model the server lacks would fail with its 404, which
        says nothing about the claim: such a test is not run, naming the model.
        """
        if self._model is None:
            self._model = self.model(self.settings.ollama_model)
        return self.settings.ollama_model

    def exchange(self, label: str, method: str, path: str, body: Any, reply: Any) -> None:
        import json

        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        if len(text) > REPLY_EXCERPT_CHARS:
            text = text[:REPLY_EXCERPT_CHARS] + f" … [{len(text) - REPLY_EXCERPT_CHARS} more chars]"
        self.check.attach(
            label,
            {
                "request": {
                    "method": method,
                    "url": f"{self.settings.ollama_host}{path}",
                    "body": body,
                },
                "reply_excerpt": text,
            },
            kind="http",
        )

    def model(self, name: str | None = None) -> ServerModel:
        model = _server_model(self.client, self.settings, name or self.model_name)
        self.check.fact(f"model_digest:{model.name}", model.digest)
        return model

    def generate(self, label: str, body: dict[str, Any]) -> dict[str, Any]:
        """A non-streaming /api/generate with ``body`` (stream false is added)."""
        return self._post_once(label, "/api/generate", body)

    def chat(self, label: str, body: dict[str, Any]) -> dict[str, Any]:
        """A non-streaming /api/chat with ``body`` (stream false is added)."""
        return self._post_once(label, "/api/chat", body)

    def _post_once(self, label: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        from claims.probes.live.ollama_api.usage import bound_of

        if bound_of(path, body) is None and (body.get("prompt") or body.get("messages")):
            from claims.testkit import CheckUsageError

            # A test's own mistake, reported as an error, never as a verdict.
            raise CheckUsageError(f"{label}: an unbounded generation (set num_predict)")
        body = {**body, "stream": False}
        reply: dict[str, Any] = self.client.post_json(path, body)
        self.exchange(label, "POST", path, body, reply)
        return reply

    def timed(self, label: str, path: str, body: dict[str, Any]) -> Any:
        """A streamed request timed by the TTFT instrument (claims.probes.live.timing)."""
        from claims.probes.live.timing import measure_stream

        timing = measure_stream(
            self.client,
            path,
            body,
            text_key="message" if path == "/api/chat" else "response",
        )  # bounded by the client's deadline (--ollama-timeout) and the body's num_predict
        final = {k: v for k, v in timing.final.items() if k != "context"}
        self.exchange(
            label,
            "POST",
            path,
            {**body, "stream": True},
            {"streamed_text": timing.text, "final_chunk": final, "lines": timing.lines},
        )
        return timing

    def client_ps_entry(self, name: str | None = None) -> dict[str, Any] | None:
        """The model's /api/ps entry, without attaching the exchange (for polling)."""
        from claims.probes.live.ollama_api import find_model

        return find_model(self.client.ps(), name or self.model_name)

    def ps_entry(self, name: str | None = None) -> dict[str, Any] | None:
        from claims.probes.live.ollama_api import find_model

        models = self.client.ps()
        self.exchange("GET /api/ps", "GET", "/api/ps", None, {"models": models})
        return find_model(models, name or self.model_name)

    def unload(self, name: str | None = None) -> Any:
        """Unload a model (opt-in: --ollama-allow-unload) and wait until /api/ps drops it."""
        from claims.testkit import needs_flag

        needs_flag(
            self.settings.allow_unload, "--ollama-allow-unload", "unloading a model (a cold start)"
        )
        result = self.client.unload(name or self.model_name, timeout=60.0)
        self.check.observe(
            "unload: seconds until /api/ps dropped the model",
            round(result.seconds_until_gone, 3),
            unit="s",
        )
        return result

    def matching_store(self, model: ServerModel) -> Any:
        """(store, manifest) of the server's own store for ``model``, or why not (a str).

        A store on this machine counts only when its manifest for the model has
        the SHA-256 the server lists as the model's digest: another store (a
        copy, another user's) would describe a different file.
        """
        from claims.probes.errors import ProbeError
        from claims.probes.files.ollama_store import OllamaStore, locate_store

        try:
            store = OllamaStore(locate_store(self.settings.models_dir))
            manifest = store.manifest(model.name)
        except ProbeError as exc:
            return f"no readable model store for {model.name} ({exc}); pass --ollama-models-dir"
        except OSError as exc:
            return f"the model store cannot be read ({exc.strerror}); pass --ollama-models-dir"
        if manifest.digest != model.digest:
            return (
                f"the store at {store.root} has a different {model.name} (manifest "
                f"{manifest.digest[:12]}, server {model.digest[:12]}); pass --ollama-models-dir"
            )
        self.check.fact("ollama_store", str(store.root))
        return store, manifest


@pytest.fixture
def live(
    check: Any, ollama_client: Any, ollama_version: str, claims_settings: Settings
) -> LiveOllama:
    """The live Ollama server for one claim test, with evidence recording."""
    return LiveOllama(check, ollama_client, claims_settings, ollama_version)


# --- Ollama reply objects, live or recorded ----------------------------------------------

# total_duration in the right unit is of the order of the client's round trip:
# shorter (it leaves out connection and transfer), never much longer. The candidate
# units are 1,000x apart, so the window only has to be far narrower than that: 0.3
# leaves the client up to 70% of the round trip for connection, transfer and JSON,
# and 1.05 allows for the two clocks' granularity.
DURATION_UNITS = (("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000))
DURATION_FIT = (0.3, 1.05)
PHASES = ("load_duration", "prompt_eval_duration", "eval_duration")


class ReplyChecks:
    """Checks of a generate or chat reply object that several claims make alike."""

    def __init__(self, check: Any, catalog: Any) -> None:
        self.check = check
        self.catalog = catalog

    def fields(self, claim_id: str, reply: Mapping[str, Any]) -> None:
        """The fields ``claim_id`` states that the reply has (order and extra fields aside)."""
        stated = set(self.catalog.get(claim_id).figure("fields").values)
        self.check.against(
            "fields",
            [k for k in reply if k in stated],
            unordered=True,
            note=f"all fields of the reply: {', '.join(reply)}",
        )

    def duration_unit(self, reply: Mapping[str, Any], client_ns: int) -> None:
        """Which unit makes total_duration fit the client's own wall clock for the request."""
        total = reply.get("total_duration")
        unit = "unknown"
        if isinstance(total, int) and total > 0:
            low, high = DURATION_FIT
            unit = next(
                (name for name, f in DURATION_UNITS if low <= total * f / client_ns <= high), unit
            )
        self.check.against(
            "duration unit",
            unit,
            note=f"total_duration {total} against {client_ns:,} ns on the client clock",
        )

    def phases_within_total(self, reply: Mapping[str, Any], name: str) -> None:
        """Load, prefill and decode durations add up to at most total_duration (when all given)."""
        total = reply.get("total_duration")
        parts = [p for p in (reply.get(k) for k in PHASES) if isinstance(p, int)]
        if len(parts) == len(PHASES) and isinstance(total, int):
            phases = sum(parts)
            self.check.measure(
                name,
                {"sum": phases, "total": total},
                holds=phases <= total,
                expected="load + prefill + decode <= total",
            )


@pytest.fixture
def reply_checks(check: Any, catalog: Any) -> ReplyChecks:
    """Shared checks of an Ollama reply, recorded into this test's check."""
    return ReplyChecks(check, catalog)
