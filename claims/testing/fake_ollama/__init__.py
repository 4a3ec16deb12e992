"""A loopback fake of the Ollama server, for testing the instrument, not the claims.

What it answers is checked against recordings of real servers: the contract test
(tests/testing/test_fake_ollama.py) replays the requests captured from Ollama
0.31.2 and 0.32.15 (fixtures/ollama-<version>/http/, http-by-hand/) and compares
status codes, content types, fields and their types, error texts, stream framing,
done_reason values and expires_at for each keep_alive form. ``behaves_as`` (or
:meth:`FakeOllama.as_release`) picks the release it imitates; the few answers that
differ between them are in :mod:`claims.testing.ollama_versions`.

:class:`FakeOllama` runs :class:`http.server.ThreadingHTTPServer` on 127.0.0.1
with a port chosen by the OS. Replies are scripted from the exchanges Week 2
records (``fixtures/recorded/W2.json``: the generate reply, the seed runs) and
from the shapes in the project's notes on Ollama's API: streamed replies are
real chunked NDJSON written line by line, headers go out together with the
first chunk as Ollama's Go server does, and state (which models are loaded, at
what context, until when) changes as a real server's would.

Timing and failures are injected: ``first_token_delay_s`` (the server waits
that long after reading a request before its first text chunk),
``token_interval_s`` (between chunks; ``interval_factors`` scale it reply by reply,
in turn), and :class:`Fault` entries (HTTP status,
a hung reply, a stream cut or ended before ``done``, a malformed line, an
``{"error": ...}`` line, a stall). It must never stand in for a real server in a
claims run: its figures are scripted, so verdicts against it mean nothing.

The package, from the bottom up: :mod:`.models` (what it serves),
:mod:`.faults` (what it can be made to do wrong), :mod:`.replies` (what its
replies say), :mod:`.state` (what it holds and how that changes),
:mod:`.handler` (HTTP: a request to its route), :mod:`.routes` and
:mod:`.generation` (the routes), and :class:`FakeOllama` here (start, stop, its
address).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from claims.probes.files.gguf_file import read_header
from claims.probes.files.ollama_store import OllamaStore
from claims.testing.fake_ollama.faults import (
    GENERATION_PATHS,
    Fault,
    hostile_text,
    never_finish_streams,
    wedge_generation,
)
from claims.testing.fake_ollama.generation import GenerationRoutes
from claims.testing.fake_ollama.handler import _Handler, _Server, unused_port
from claims.testing.fake_ollama.models import (
    IMPORTED_AS,
    FakeModel,
    default_models,
    keep_alive_seconds,
)
from claims.testing.fake_ollama.replies import _iso
from claims.testing.fake_ollama.state import Loaded, _HTTPError
from claims.testing.ollama_versions import release

__all__ = [
    "GENERATION_PATHS",
    "IMPORTED_AS",
    "FakeModel",
    "FakeOllama",
    "Fault",
    "Loaded",
    "_HTTPError",
    "_Handler",
    "_Server",
    "_iso",
    "default_models",
    "hostile_text",
    "keep_alive_seconds",
    "never_finish_streams",
    "unused_port",
    "upgraded_mid_run",
    "wedge_generation",
]


class FakeOllama(GenerationRoutes):
    """A scripted Ollama on 127.0.0.1 (port chosen by the OS). Use as a context manager."""

    # Set by start(): the listening server and the thread serving it.
    _server: _Server | None = None
    _thread: threading.Thread | None = None

    @classmethod
    def as_release(cls, version: str, **kwargs: Any) -> FakeOllama:
        """A fake answering as the recorded release ``version``, /api/version included."""
        return cls(version=release(version).version, behaves_as=version, **kwargs)

    @classmethod
    def from_store(cls, root: Path, **kwargs: Any) -> FakeOllama:
        """A fake whose models are the manifests of a real store on disk.

        Names, digests (the manifest's SHA-256) and sizes come from the store,
        the architecture and tokenizer fields from each model blob's GGUF
        header, so the store cross-checks of the claim tests have something
        true to find.
        """

        store = OllamaStore(root)
        models = []
        for manifest in store.manifests():
            header = read_header(store.model_blob_path(manifest.name), verify_layout=False)
            arch = str(header.get("general.architecture") or "llama")
            info = {
                k: header.get(k)
                for k in header.keys()  # noqa: SIM118 (GGUFHeader is not a dict)
                if not k.startswith("tokenizer.ggml.")
                or k in ("tokenizer.ggml.model", "tokenizer.ggml.pre")
            }
            info = {k: v for k, v in info.items() if isinstance(v, (int, float, str, bool))}
            models.append(
                FakeModel(
                    name=manifest.name.display
                    if ":" in manifest.name.display
                    else f"{manifest.name.display}:latest",
                    digest=manifest.digest,
                    size=manifest.total_size,
                    family=arch,
                    parameter_size=str(header.parameter_count),
                    quantization="Q4_K_M",
                    model_info=info,
                    base_bytes=manifest.total_size,
                )
            )
        return cls(models=models, **kwargs)

    # --- lifecycle ------------------------------------------------------------------
    def start(self) -> FakeOllama:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the fake first"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def upgraded_mid_run(fake: FakeOllama, version: str) -> None:
    """The server is replaced by release ``version`` after its first generation (an upgrade
    during a run): /api/version answers ``version`` from then on."""
    fake.upgrade_to = version
