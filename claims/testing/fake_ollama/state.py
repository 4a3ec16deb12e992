"""A fake Ollama's state: which models it has, which are loaded, until when.

State changes as a real server's would: a request loads its model (a cold load
waits ``cold_load_s`` seconds), keep_alive sets when it expires, an unload with
keep_alive 0 drops it (after ``unload_delay_s`` on 0.31.2, which still lists it
meanwhile; at once on 0.32.15).
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claims.catalog import load_catalog
from claims.probes.files.ollama_store.names import same_model
from claims.probes.live.ollama_api.names import normalize_model_name as _norm
from claims.testing import recordings
from claims.testing.fake_ollama.faults import Fault
from claims.testing.fake_ollama.models import FakeModel, default_models, keep_alive_seconds
from claims.testing.fake_ollama.replies import GO_MAX_DURATION_S
from claims.testing.ollama_versions import DEFAULT_RELEASE, OllamaRelease, release
from claims.text.references import resolve

__all__ = ["Exchange", "FakeState", "Loaded"]


@dataclass
class Loaded:
    model: FakeModel
    context_length: int
    expires: float  # time.time() seconds, inf = never


@dataclass
class Exchange:
    """One request the fake served; stream timings in perf_counter_ns (the test's clock)."""

    method: str
    path: str
    body: Any
    arrival_ns: int = 0
    first_chunk_ns: int | None = None


class _HTTPError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _sleep(seconds: float) -> None:
    if seconds > 0:
        time.sleep(seconds)


def _sleep_until(deadline: float) -> None:
    """Sleep until perf_counter() reaches ``deadline``; the last 2 ms are spun.

    time.sleep overshoots by up to a scheduler tick under load; spinning the
    tail keeps the injected delay exact to well under the 2 ms the TTFT
    instrument is held to.
    """
    remaining = deadline - time.perf_counter()
    if remaining > 0.002:
        time.sleep(remaining - 0.002)
    while time.perf_counter() < deadline:
        time.sleep(0)


class FakeState:
    """A fake server's state: its settings, models, loaded runners, faults and exchanges.

    The routes (:mod:`.routes`, :mod:`.generation`) read and change it; the
    :class:`~claims.testing.fake_ollama.FakeOllama` built on them serves it.
    """

    def __init__(
        self,
        *,
        version: str = "0.12.6",
        behaves_as: str = DEFAULT_RELEASE,
        first_token_delay_s: float = 0.0,
        token_interval_s: float = 0.0,
        interval_factors: tuple[float, ...] = (),
        cold_load_s: float = 0.0,
        headers_with_first_chunk: bool = True,
        default_num_ctx: int = 4096,
        unload_delay_s: float = 0.05,
        empty_leading_chunks: int = 0,
        models: list[FakeModel] | None = None,
    ) -> None:
        self.version = version
        # A version /api/version answers once a generation was served (upgraded_mid_run).
        self.upgrade_to: str | None = None
        # The recorded release it imitates (claims.testing.ollama_versions): the few
        # answers that differ between releases follow it; /api/version says `version`.
        self.release: OllamaRelease = release(behaves_as)
        self.first_token_delay_s = first_token_delay_s
        self.token_interval_s = token_interval_s
        # Streamed replies take these multiples of token_interval_s in turn (cycling):
        # requests of one kind that differ as a busy machine's do, reproducibly
        # (claims.timing's planned samples are tested on it). Empty: all alike.
        if any(f <= 0 for f in interval_factors):
            raise ValueError(f"interval factors must be positive, got {interval_factors}")
        self.interval_factors = tuple(interval_factors)
        self._streams = 0
        self.cold_load_s = cold_load_s
        self.headers_with_first_chunk = headers_with_first_chunk
        self.default_num_ctx = default_num_ctx
        self.unload_delay_s = unload_delay_s
        # Chunks with no text before the first token, as thinking models send.
        self.empty_leading_chunks = empty_leading_chunks
        self.models: dict[str, FakeModel] = {_norm(m.name): m for m in (models or default_models())}
        self.loaded: dict[str, Loaded] = {}
        self.faults: list[Fault] = []
        self.exchanges: list[Exchange] = []
        self.blobs: dict[str, int] = {}  # digest -> size, uploaded through /api/blobs
        recorded_w2 = recordings.fixtures_dir() / "recorded" / "W2.json"
        # The catalog figures the file names instead of copying (claims.text.references).
        self.recorded = resolve(json.loads(recorded_w2.read_text(encoding="utf-8")), load_catalog())
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._rng = random.Random()
        self._unseeded = 0
        self._openai_counter = 0

    def stream_interval_s(self) -> float:
        """Seconds between the token chunks of the next streamed reply: ``token_interval_s``
        times the next of ``interval_factors`` (cycling), when any are set."""
        if not self.interval_factors:
            return self.token_interval_s
        with self._lock:
            factor = self.interval_factors[self._streams % len(self.interval_factors)]
            self._streams += 1
        return self.token_interval_s * factor

    def add_fault(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def _take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.matches(path):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    # --- model state ------------------------------------------------------------------
    def _model(
        self,
        body: dict[str, Any],
        *,
        missing: Callable[[str], str] = lambda name: f"model '{name}' not found",
        required: bool = True,
    ) -> FakeModel:
        """The model a request names; Ollama's 400/404 when it names none or a missing one.

        ``missing`` words the 404 as the route does; ``required`` False: a request
        without a model is a missing model named "" (what /api/generate answers).
        """
        name = body.get("model") or body.get("name")
        if not isinstance(name, str) or not name:
            if required:
                raise _HTTPError(400, "model is required")
            name = ""
        model = self.find(name) if name else None
        if model is None:
            raise _HTTPError(404, missing(name))
        return model

    def find(self, name: str) -> FakeModel | None:
        """The served model ``name`` is, by Ollama's rule (ParseName, then EqualFold)."""
        return next((m for m in self.models.values() if same_model(m.name, name)), None)

    def _expire(self) -> None:
        now = time.time()
        for key in [k for k, v in self.loaded.items() if v.expires <= now]:
            del self.loaded[key]

    def _ensure_loaded(self, model: FakeModel, body: dict[str, Any]) -> float:
        """Load (or reload at a new context) and return the load time in seconds."""
        options = body.get("options") or {}
        ctx = int(options.get("num_ctx") or self.default_num_ctx)
        try:
            keep = keep_alive_seconds(body.get("keep_alive"), 300.0)
        except ValueError as exc:
            raise _HTTPError(400, str(exc)) from None
        started = time.perf_counter()
        with self._lock:
            self._expire()
            current = self.loaded.get(_norm(model.name))
            cold = current is None or current.context_length != ctx
        if cold:
            _sleep(self.cold_load_s)
        expires = time.time() + (GO_MAX_DURATION_S if math.isinf(keep) else keep)
        with self._lock:
            self.loaded[_norm(model.name)] = Loaded(model, ctx, expires)
        # A loaded model still reports a small load_duration (queueing, as Ollama does).
        return time.perf_counter() - started + 0.0001

    def _unload_later(self, model: FakeModel) -> None:
        # Until the runner is gone 0.31.2's /api/ps still lists the model, expiring now
        # (its 07-ps-empty.json right after keep_alive 0); 0.32.15's lists none.
        key = _norm(model.name)
        if not self.release.ps_lists_unloading:
            self._unload_at_once(key)
            return
        with self._lock:
            current = self.loaded.get(key)
            if current is not None:
                current.expires = min(current.expires, time.time() + self.unload_delay_s)

        def drop() -> None:
            with self._lock:
                # A request that reloaded the model meanwhile keeps its new runner.
                if self.loaded.get(key) is current:
                    self.loaded.pop(key, None)

        timer = threading.Timer(self.unload_delay_s, drop)
        timer.daemon = True
        timer.start()

    def _unload_at_once(self, key: str) -> None:
        """0.32.15: the model leaves /api/ps before the next read can see it."""
        with self._lock:
            self.loaded.pop(key, None)
