"""Fixtures shared by the claim tests (by tier)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from claims.plugin.options import Settings
from claims.testkit import not_run

# The checkout: the transcriptions a claim test reads lie under it.
ROOT = Path(__file__).resolve().parents[2]

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


# --- ollama tier: the timing pools ----------------------------------------------------

@pytest.fixture(scope="session")
def ollama_pools(
    request: pytest.FixtureRequest, ollama_client: Any, ollama_model: Any,
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


# --- offline: a program a document prints, against the lab's file ------------------------


@pytest.fixture
def printed_program(check: Any, recorded: Any) -> Callable[[str, str], None]:
    """Judge a claim "the program the document prints is the lab's ``lab_path``": the
    printed text is the document's transcription (``programs_printed`` in
    ``fixtures/recorded/<DOC>.json``, each line anchored where the document prints it),
    the file is the bundled lab copy; compared as claims.probes.files.printed_programs
    reads a program. The catalog states the figure "same program as the lab's file"."""
    from claims.probes.files.printed_programs import compare_programs, rendering_undone
    from claims.testing import lab
    from claims.text.transcribed import PROGRAMS_PRINTED

    def judge(doc_id: str, lab_path: str) -> None:
        rel = recorded(doc_id)[PROGRAMS_PRINTED][lab_path]
        printed = (ROOT / rel).read_text("utf-8")
        file = (lab.lab_dir() / lab_path).read_text("utf-8")
        check.fact("lab file", f"{lab.PROVENANCE}: {lab_path}")
        check.fact("printed program", f"{rel} (the document's text, transcribed)")
        result = compare_programs(printed, file)
        check.observe("printed program", result.printed_lines,
                      note="its non-blank lines, as the document prints them")
        check.observe("lab file", result.file_lines, note="its non-blank lines")
        # What the comparison passed over, so a reader sees the rendering was there.
        check.observe("blog rendering undone", rendering_undone(printed) or "none",
                      note="lines of the printed text, by kind")
        if result.first_difference is not None:
            (p_line, p_text), (f_line, f_text) = result.first_difference
            check.observe("first difference", {
                "printed": f"line {p_line}: {p_text}" if p_line else "(ends before)",
                "lab file": f"line {f_line}: {f_text}" if f_line else "(ends before)",
            }, note="line numbers of the transcription (as printed) and of the lab file")
            check.attach("differing lines (- printed, + lab file)", "\n".join(result.diff))
        check.against("same program as the lab's file", result.same)

    return judge
