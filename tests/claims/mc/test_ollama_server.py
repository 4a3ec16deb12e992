"""The masterclass's server-side claims, judged on servers the suite starts (--ollama-serve).

Its environment variables, parallel slots, resident models, runner isolation and
default bind can only be observed on a server started with the setting in
question, and the isolation claim only by killing the server's runner. None of
that is done to the user's server: each test runs on a private ``ollama serve``
(claims.plugin.serve) of its group of settings, and the last test checks that
the user's server and store came out of the session as they went in.

Settings are read where Ollama reports them, the ``server config`` line it logs
at start (envconfig/config.go), and judged by what the server then does: the
runner's command line, /api/ps, the order in which concurrent streams are
served, what a killed runner leaves behind. Verdicts rest on order and identity,
never on speed.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from http import HTTPStatus
from typing import Any

import pytest

from claims.plugin.serve import AFTER_ALL, NOT_SEEN, server_fact
from claims.probes.live.ollama_defaults import ORIGIN_HOSTS, ORIGIN_SCHEMES
from claims.probes.live.ollama_serve import (
    CLAIM_VARIABLES,
    DEFAULT_GROUP,
    ChildProcess,
    Group,
    InFlight,
    OllamaServe,
    PortInUse,
    ServeError,
    concurrent_streams,
    flag_value,
    import_gguf,
    max_overlap,
    origin_replies,
    rename_gguf,
    version_status,
)
from claims.testkit import not_applicable, not_run
from claims.timing import SettleRule, settle

pytestmark = pytest.mark.ollama

# The document's own example values (6.1's table and compose file, Q16, Q20).
PARALLEL = Group.of("parallel-4", {"OLLAMA_NUM_PARALLEL": "4"})
MAX_ONE = Group.of("max-loaded-1", {"OLLAMA_MAX_LOADED_MODELS": "1"})
MAX_TWO = Group.of("max-loaded-2", {"OLLAMA_MAX_LOADED_MODELS": "2"})
ISOLATION = Group.of("runner-isolation")
DEFAULT_BIND = Group.of("default-bind", default_bind=True)
FLASH_OFF = Group.of("flash-attention-0", {"OLLAMA_FLASH_ATTENTION": "0"})
FLASH_ON = Group.of("flash-attention-1", {"OLLAMA_FLASH_ATTENTION": "1"})

# Replies long enough that two streams served one after another cannot look
# simultaneous (a span needs at least two text chunks), short enough to be cheap.
COUNT_PROMPT = "Count from 1 to 200, separated by commas, and nothing else."
SPAN_TOKENS = 24
# A request still decoding when its runner is killed: far longer than it takes
# to notice it started.
LONG_TOKENS = 2048
STARTED_TIMEOUT_S = 60.0
# A runner starting or exiting: its pid set is settled when unchanged for half a second.
RUNNERS_SETTLE = SettleRule(stable_s=0.5, timeout_s=20.0, poll_s=0.05)
# /api/ps after a load that may evict another model: settled when unchanged for 0.5 s.
RESIDENT_SETTLE = SettleRule(stable_s=0.5, timeout_s=20.0, poll_s=0.05)
# A second model for the residency checks when the server has one model only:
# the same GGUF with bytes appended (another SHA-256, so another blob and runner).
VARIANT = "claims-variant:latest"
# What a runner logs when it takes a request (llama.cpp's llama-server, whose
# output Ollama copies into its own log).
TASK_STARTED = ("launch_slot_", "processing task")


class Private:
    """One test's view of its private server: start it, its model, its runner, its log."""

    def __init__(self, check: Any, servers: Any, settings: Any) -> None:
        self.check = check
        self.servers = servers
        self.settings = settings
        self.server: OllamaServe | None = None
        self.client: Any = None

    def start(self, group: Group) -> OllamaServe:
        from claims.probes.live.ollama_api.factory import client_for

        try:
            server = self.servers.use(group)
        except PortInUse as exc:
            not_run(f"--ollama-serve: {exc}")
        self.close()
        self.server = server
        record = self.servers.record_of(server)
        self.check.fact(f"ollama_server:{group.name}", server_fact(record))
        self.check.fact("ollama_runner_build", record.runner_build or NOT_SEEN)
        # The tier's own deadline end to end, and the server's breaker: a private server
        # that hangs costs one timeout, for this client and the concurrency probe's.
        self.client = client_for(server.url, self.settings.ollama_timeout, breaker=server.breaker)
        return server

    @property
    def record(self) -> Any:
        assert self.server is not None
        return self.servers.record_of(self.server)

    def model(self) -> str:
        """The model under test if the server has it, else its smallest (any model will do)."""
        from claims.probes.live.ollama_api import find_model

        tags = self.client.tags()
        if not tags:
            store = self.servers.store
            why = store.problem if store is not None and store.problem else "no model"
            not_run(f"the private server has no model ({why})")
        entry = find_model(tags, self.settings.ollama_model) or min(
            tags, key=lambda m: m.get("size") or 0
        )
        name = str(entry["name"])
        self.check.fact("model", name)
        return name

    def second_model(self, first: str) -> str:
        """A model whose weights are another blob than ``first``'s (made if there is none)."""
        from claims.probes.files.ollama_store import OllamaStore
        from claims.probes.live.ollama_api import find_model
        from claims.testkit import ProbeError

        tags = self.client.tags()
        if find_model(tags, VARIANT) is not None:
            return VARIANT
        store = OllamaStore(self.servers.models_dir)
        try:
            layer = store.manifest(first).model_layer()
            for entry in tags:
                name = str(entry["name"])
                if name != first and store.manifest(name).model_layer().digest != layer.digest:
                    return name
            source, _ = store.existing_blob(layer)
        except ProbeError as exc:
            not_run(f"no second model to load, and none can be made: {exc}")
        assert self.server is not None
        copy = self.servers.workdir / "variant.gguf"
        shutil.copyfile(source, copy)
        renamed = rename_gguf(copy)
        if renamed is None:
            not_run(f"no second model to load, and {first}'s GGUF has no general.name to change")
        import_gguf(self.servers.binary, self.server.env, VARIANT, copy,
                    self.servers.workdir / "import")
        self.check.note(
            f"{VARIANT} is {first}'s GGUF with general.name changed to {renamed!r}: another "
            "blob, so another runner; it stands in for a second model and is not measured "
            "(bytes appended to a GGUF do not do: `ollama create` stores the GGUF it parsed)"
        )
        return VARIANT

    def runner(self) -> ChildProcess:
        """The server's one model runner (a child started with --model), once settled.

        A runner that was just replaced (killed, or unloaded for another model) can
        still be listed while it exits; the set of runner pids is read until it stays
        the same for RUNNERS_SETTLE.stable_s (claims.probes.live.settle).
        """
        found = self.runners()
        if len(found) != 1:
            raise ServeError(
                f"expected one runner process under the server, found {len(found)}: "
                + "; ".join(" ".join(c.argv[:3]) for c in found)
            )
        return found[0]

    def runners(self) -> list[ChildProcess]:
        """The runner children, read until their pids are unchanged (a settle rule)."""
        from claims.timing import settle

        assert self.server is not None
        server = self.server

        def pids() -> tuple[int, ...]:
            return tuple(sorted(c.pid for c in server.children() if "--model" in c.argv))

        settled = settle(pids, RUNNERS_SETTLE)
        if not settled.stable:
            raise ServeError(f"the server's runner processes did not settle: {settled.describe()}")
        return [c for c in server.children() if c.pid in settled.value]

    def log_since(self, offset: int) -> str:
        assert self.server is not None
        return self.server.log_text()[offset:]

    def attach_log(self) -> None:
        if self.server is not None:
            tail = "\n".join(self.server.log_text().splitlines()[-80:])
            self.check.attach(f"server log (last lines), {self.record.log}", tail)

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


@pytest.fixture
def private(check: Any, ollama_serve: Any, claims_settings: Any) -> Iterator[Private]:
    view = Private(check, ollama_serve, claims_settings)
    try:
        yield view
    finally:
        view.attach_log()
        view.close()


def _span_bodies(model: str, n: int) -> list[dict[str, Any]]:
    return [
        {"model": model, "prompt": COUNT_PROMPT,
         "options": {"num_predict": SPAN_TOKENS, "temperature": 0, "seed": i}}
        for i in range(n)
    ]


def _spans(private: Private, model: str, n: int) -> tuple[int, list[dict[str, Any]]]:
    """Max overlap of ``n`` concurrent streams, and the spans for the evidence."""
    assert private.server is not None
    spans = concurrent_streams(private.client, _span_bodies(model, n))
    shown = [
        {"text_chunks": s.chunks, "error": s.error,
         "first_ms": None if s.first_ns is None else round(s.first_ns / 1e6, 1),
         "last_ms": None if s.last_ns is None else round(s.last_ns / 1e6, 1)}
        for s in spans
    ]
    private.check.attach("concurrent streams (perf_counter ms)", shown, kind="json")
    broken = [s.error for s in spans if s.error]
    if broken:
        raise ServeError(f"a concurrent stream failed: {broken[0]}")
    if not all(s.timed for s in spans):
        raise ServeError(
            "a reply had fewer than two text chunks, so its span cannot show whether it "
            "overlapped the others; nothing was decided"
        )
    return max_overlap(spans), shown


def _origins(value: str) -> list[str]:
    return [o for o in value.strip().removeprefix("[").removesuffix("]").split() if o]


def _local_origin(origin: str) -> bool:
    scheme, _, rest = origin.partition("://")
    host = rest.split("/", 1)[0].rsplit(":", 1)[0] if rest.count(":") else rest.split("/", 1)[0]
    return scheme in ORIGIN_SCHEMES or host in ORIGIN_HOSTS


# --- 6.1: defaults ---------------------------------------------------------------------------
AUTO_MAX_LOADED = "0"  # how Ollama logs OLLAMA_MAX_LOADED_MODELS left to its automatic setting


@pytest.mark.claim("MC-ENV-DEFAULTS")
@pytest.mark.ollama_server(DEFAULT_GROUP.name)
def test_server_defaults(private, check):
    server = private.start(DEFAULT_GROUP)
    record = private.record
    check.observe("claim variables set for this server",
                  sorted(k for k in record.env_set if k in CLAIM_VARIABLES) or "none")
    reported = record.reported_config
    if reported is None:
        raise ServeError("the server logged no 'server config' line; its settings are unknown")
    check.against("OLLAMA_NUM_PARALLEL default", reported.get("OLLAMA_NUM_PARALLEL"),
                  note="the value the server logged at start")
    loaded = reported.get("OLLAMA_MAX_LOADED_MODELS")
    stated = check.premise_text("OLLAMA_MAX_LOADED_MODELS default")
    check.measure(
        "OLLAMA_MAX_LOADED_MODELS default", loaded, holds=loaded in (AUTO_MAX_LOADED, stated),
        expected=f"{stated} (or auto, logged as {AUTO_MAX_LOADED})",
        note=f"{AUTO_MAX_LOADED} is Ollama's automatic setting: 3 models per GPU, 3 without one "
        "(server/sched.go, defaultModelsPerGPU)",
    )
    origins = _origins(reported.get("OLLAMA_ORIGINS", ""))
    check.measure("OLLAMA_ORIGINS default", origins,
                  holds=bool(origins) and all(_local_origin(o) for o in origins),
                  expected="local only (loopback hosts and local app schemes)")
    statuses = origin_replies(server.url, ("http://claims-suite.invalid", "http://localhost:8080"))
    check.measure(
        "a browser page on another origin", statuses,
        holds=statuses["http://claims-suite.invalid"]["status"] == HTTPStatus.FORBIDDEN
        and statuses["http://localhost:8080"]["status"] == HTTPStatus.OK,
        expected="refused (403); a page on localhost is served",
    )
    model = private.model()
    private.client.load(model)
    overlap, _ = _spans(private, model, 2)
    check.measure("two requests sent at once, default settings", overlap, holds=overlap == 1,
                  expected="processed serially: one stream ends before the other's text begins",
                  note="the most streams producing text at one moment")


# --- 7.2 Q16: parallel slots -------------------------------------------------------------------
@pytest.mark.claim("MC-PARALLEL-SLOTS")
@pytest.mark.ollama_server(PARALLEL.name)
def test_parallel_slots(private, check):
    from claims.probes.live.ollama_api import find_model

    slots = int(PARALLEL.env["OLLAMA_NUM_PARALLEL"])
    private.start(PARALLEL)
    model = private.model()
    private.client.load(model)
    runner = private.runner()
    check.attach("runner command line", " ".join(runner.argv))
    np_flag = flag_value(runner.argv, "-np")
    check.measure("KV-cache slots the runner was started with (-np)", np_flag,
                  holds=np_flag == str(slots),
                  expected=f"{slots}, allocated when the model loads, before any request")
    entry = find_model(private.client.ps(), model) or {}
    per_request = entry.get("context_length")
    total = flag_value(runner.argv, "-c")
    if isinstance(per_request, int) and total is not None and total.isdigit():
        check.measure(
            "runner context (-c) against the context of one request", int(total),
            holds=int(total) == slots * per_request,
            expected=f"{slots} × {per_request} tokens: a KV cache for every slot",
        )
    else:
        check.observe("runner context (-c)", total, note=f"/api/ps context_length: {per_request}")
    overlap, _ = _spans(private, model, slots)
    check.measure(f"{slots} requests sent at once", overlap, holds=overlap > 1,
                  expected="decoded together: streams producing text at the same moment",
                  note="the most streams producing text at one moment")


# --- 7.2 Q20: resident models --------------------------------------------------------------------
def _residency(private: Private, group: Group) -> dict[str, Any]:
    private.start(group)
    first = private.model()
    second = private.second_model(first)
    private.client.load(first)
    pid_before = {c.pid for c in private.runners()}
    private.client.load(second)
    resident = list(settle(
        lambda: tuple(sorted(str(m.get("name")) for m in private.client.ps())), RESIDENT_SETTLE
    ).value)
    private.client.load(first)  # the chat model again, after the embedding step
    pids_after = {c.pid for c in private.runners()}
    return {"first": first, "second": second, "resident": resident,
            "first runner kept": bool(pid_before) and pid_before <= pids_after}


@pytest.mark.claim("MC-MAX-LOADED")
@pytest.mark.ollama_server(MAX_ONE.name)
def test_max_loaded_models(private, check):
    one = _residency(private, MAX_ONE)
    check.measure("resident after loading two models, OLLAMA_MAX_LOADED_MODELS=1",
                  one["resident"], holds=one["resident"] == [one["second"]],
                  expected="only the model loaded last")
    two = _residency(private, MAX_TWO)
    check.measure("resident after loading two models, OLLAMA_MAX_LOADED_MODELS=2",
                  two["resident"], holds=sorted([two["first"], two["second"]]) == two["resident"],
                  expected="both")
    check.measure("first model's runner after the second was loaded and the first used again",
                  "same process" if two["first runner kept"] else "restarted",
                  holds=two["first runner kept"], expected="same process (no reload)")


# --- 1.2 / Q1: runner isolation -------------------------------------------------------------------
def _await_task(private: Private, offset: int, done: threading.Event) -> bool:
    deadline = time.monotonic() + STARTED_TIMEOUT_S
    while time.monotonic() < deadline and not done.is_set():
        if any(mark in private.log_since(offset) for mark in TASK_STARTED):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.claim("MC-RUNNER-ISOLATION")
@pytest.mark.ollama_server(ISOLATION.name)
def test_runner_crash_is_isolated(private, check):
    server = private.start(ISOLATION)
    model = private.model()
    private.client.load(model)
    runner = private.runner()
    check.measure("where inference runs", {"server pid": server.pid, "runner pid": runner.pid,
                                           "runner": runner.name},
                  holds=runner.pid != server.pid, expected="a child process of the server")
    offset = len(server.log_text())
    asker = InFlight(server.url, {"model": model, "prompt": COUNT_PROMPT,
                                  "options": {"num_predict": LONG_TOKENS, "temperature": 0}})
    reply, done = asker.reply, asker.done
    if not _await_task(private, offset, done):
        done.wait(60.0)
        raise ServeError(f"the runner never logged taking the request ({reply or 'no reply'})")
    # A segmentation fault as the document describes, without a core file.
    resource.prlimit(runner.pid, resource.RLIMIT_CORE, (0, 0))
    os.kill(runner.pid, signal.SIGSEGV)
    killed_at = time.monotonic()
    asker.join(120.0)
    check.observe("seconds from the kill to the reply", round(time.monotonic() - killed_at, 3),
                  unit="s")
    check.attach("the request in flight", reply, kind="json")
    status = reply.get("status")
    if isinstance(status, int):
        check.against("status of the request in flight", status,
                      note="the request in flight when the runner died")
    else:
        check.measure("status of the request in flight", status, holds=False,
                      expected="an HTTP status in the reply")
    alive = version_status(server.url)
    check.measure("the server after its runner died",
                  {"pid": server.pid, "running": server.running(), "GET /api/version": alive},
                  holds=server.running() and alive == HTTPStatus.OK,
                  expected="the same process, answering")
    after = private.client.generate(model, "Say hello.", options={"num_predict": 8})
    new = private.runner()
    check.measure(
        "the next request", {"done": after.get("done"), "runner pid": new.pid},
        holds=after.get("done") is True and new.pid != runner.pid,
        expected="answered, by a new runner",
    )
    # Read after the next request: 0.31 notices the dead runner (and logs it) when it
    # next looks at it, not at the moment it died.
    logged = [line for line in private.log_since(offset).splitlines()
              if "terminated" in line or "no longer running" in line or "signal:" in line]
    check.measure("the server's log after the kill", logged[:3], holds=bool(logged),
                  expected="the runner's failure is logged")


# --- 6.1 / Q26: default bind ----------------------------------------------------------------------
@pytest.mark.claim("MC-HOST-DEFAULT")
@pytest.mark.ollama_server(DEFAULT_BIND.name)
def test_default_bind_of_a_fresh_server(private, check):
    from claims.probes.live.listeners import process_listeners

    server = private.start(DEFAULT_BIND)
    check.observe("OLLAMA_HOST in the server's environment",
                  server.env.get("OLLAMA_HOST", "unset"))
    assert server.pid is not None
    # Every socket the server process listens on, whatever its port: the port is measured.
    ours = process_listeners(server.pid, None)
    shown = sorted({f"[{s.address}]:{s.port}" if ":" in s.address else f"{s.address}:{s.port}"
                    for s in ours})
    check.observe("listening sockets of the server process", shown,
                  note="from /proc/net/tcp{,6}, matched to the server's open sockets")
    check.against("default bind", ", ".join(shown))
    ports = sorted({s.port for s in ours})
    if len(ports) == 1:
        check.against("port, in 4.1", ports[0])
    else:
        check.measure("port, in 4.1", ports, holds=False, expected="the one port it listens on")
    check.against("default address, in Q26", ", ".join(sorted({s.address for s in ours})))


# --- 6.1 / Q19: flash attention -------------------------------------------------------------------
def _inference_devices(log: str) -> list[str]:
    return [line for line in log.splitlines() if 'msg="inference compute"' in line]


@pytest.mark.claim("MC-FLASH-ATTENTION")
@pytest.mark.ollama_server(FLASH_ON.name)
def test_flash_attention(private, check):
    from claims.probes.live.ollama_api import find_model

    for figure in ("KV-cache saving", "long-context prefill speedup", "long context",
                   "compute capability", "attention memory traffic without it"):
        check.not_judged(figure, "stated for no model, context length or GPU: only the "
                         "direction of the memory and prefill changes is judged")
    server = private.start(FLASH_ON)
    model = private.model()
    private.client.load(model)
    flag = flag_value(private.runner().argv, "--flash-attn")
    check.observe("runner's --flash-attn with OLLAMA_FLASH_ATTENTION=1", flag)
    devices = _inference_devices(server.log_text())
    gpus = [d for d in devices if "library=cpu" not in d.lower()]
    if not gpus:
        not_applicable(
            "the claim is about NVIDIA GPUs of compute capability 8.0+; the private server "
            f"found none ({devices[0].strip() if devices else 'it logged no inference device'})"
        )
    check.attach("inference devices", "\n".join(gpus))
    prompt = " ".join([COUNT_PROMPT] * 400)  # several thousand tokens: a long context
    options = {"num_ctx": 8192, "num_predict": 4, "temperature": 0}
    rows = {}
    for group in (FLASH_OFF, FLASH_ON):
        private.start(group)
        private.client.load(model, options={"num_ctx": 8192})
        reply = private.client.generate(model, prompt, options=options)
        entry = find_model(private.client.ps(), model) or {}
        count, duration = reply.get("prompt_eval_count"), reply.get("prompt_eval_duration")
        rows[group.name] = {
            "size_vram": entry.get("size_vram"),
            "prefill tokens/s": round(count / duration * 1e9, 1) if count and duration else None,
            "--flash-attn": flag_value(private.runner().argv, "--flash-attn"),
        }
    check.attach("with and without OLLAMA_FLASH_ATTENTION", rows, kind="json")
    off, on = rows[FLASH_OFF.name], rows[FLASH_ON.name]
    if not (off["size_vram"] and on["size_vram"] and off["prefill tokens/s"]
            and on["prefill tokens/s"]):
        raise ServeError(f"the server reported no memory or prefill figures: {rows}")
    check.measure("GPU memory with flash attention, against without",
                  round(on["size_vram"] / off["size_vram"], 3),
                  holds=on["size_vram"] <= off["size_vram"], expected="smaller (up to 50% less)")
    check.measure("long-context prefill rate with flash attention, against without",
                  round(on["prefill tokens/s"] / off["prefill tokens/s"], 2),
                  holds=on["prefill tokens/s"] > off["prefill tokens/s"],
                  expected="faster (the document: 2-4x, for no stated model)")


# --- the user's server, after all of the above ----------------------------------------------------
@pytest.mark.ollama_server(AFTER_ALL)
@pytest.mark.claims_selfcheck
def test_user_server_unchanged(user_server_snapshot, ollama_serve):
    """The private servers left the user's server and store as they found them.

    The last private server is stopped first: a server's creates can move the times of
    blobs it shares with the user's store, which are put back when it stops
    (claims.probes.live.ollama_serve.store).
    """
    before = user_server_snapshot.before
    if before is None:
        not_run("no private server was started in this session, so there is nothing to compare")
    ollama_serve.stop_current()
    after = user_server_snapshot.take()
    changes = []
    for key in ("unreachable", "version", "ps", "tags"):
        if before.get(key) != after.get(key):
            changes.append(f"{key}: {_brief(before.get(key))} -> {_brief(after.get(key))}")
    old_store, new_store = before.get("store") or {}, after.get("store") or {}
    for path in sorted(set(old_store) | set(new_store)):
        if old_store.get(path) != new_store.get(path):
            changes.append(f"store {path}: (size, mtime) {old_store.get(path)} -> "
                           f"{new_store.get(path)}")
    assert not changes, (
        f"the user's server at {before['host']} or its store changed during the session "
        "(another client of that server may have done it; the private servers never "
        "connect to it): " + "; ".join(changes)
    )


def _brief(value: Any) -> str:
    """A model listing as its names (and expiry), anything else as its repr, shortened."""
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        value = [{k: v.get(k) for k in ("name", "digest", "expires_at", "context_length")
                  if k in v} for v in value]
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + "…"
