"""A fake ``ollama`` executable: ``serve`` runs :class:`FakeOllama` the way a real server runs.

For testing the private-server lifecycle (:mod:`claims.probes.live.ollama_serve`) in CI,
where there is no Ollama. What it copies from a real 0.31.2 server (and, where they differ,
from 0.32.15: fixtures/ollama-*/; ``fixtures/recorded/ollama-serve/``):

* ``serve`` binds ``OLLAMA_HOST`` (default 127.0.0.1:11434) and fails with
  "address already in use" when it is taken; it logs the ``server config`` line
  with the settings it resolved (the defaults of ``envconfig/config.go``);
* a model is run by a child process started as ``llama-server --model <blob>
  --port N --host 127.0.0.1 ... -c <ctx> -np <slots>`` and logged as
  ``msg="starting llama-server" cmd="..."``; here the child is this module's
  ``runner`` command, a small HTTP server on that port;
* ``OLLAMA_NUM_PARALLEL`` slots per model (requests beyond them wait),
  ``OLLAMA_MAX_LOADED_MODELS`` (0: 3, as on a machine without GPUs; the least
  recently used runner is stopped), ``OLLAMA_KEEP_ALIVE`` and
  ``OLLAMA_CONTEXT_LENGTH`` as defaults, ``OLLAMA_ORIGINS`` (a browser origin
  not allowed gets 403);
* a runner that dies during a request fails that request (HTTP 500 "an error
  was encountered while running the model: unexpected EOF", or that as an
  ``{"error"}`` line once a stream began); the next request logs
  ``llama-server process no longer running ... string="signal: segmentation
  fault"`` and starts a new runner.

``FAKE_OLLAMA_VERSION`` picks the recorded release it answers as (0.31.2 or 0.32.15,
:mod:`claims.testing.ollama_versions`; default 0.31.2): the version it reports, its log
lines' ``source=``, the runner's model-loading flag and the llama.cpp build line the
runner prints when it starts. ``FAKE_OLLAMA_MODE`` makes it misbehave for the
lifecycle tests: ``exit`` (exits at once with status 1), ``hang`` (never listens).
Its replies are scripted: a claims run against it decides nothing about Ollama.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from claims.probes.errors import ProbeError
from claims.probes.files.ollama_store import CONFIG_MEDIA_TYPE, Layer, ModelName, OllamaStore
from claims.probes.live.ollama_api.names import normalize_model_name as _key
from claims.probes.live.ollama_defaults import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    ORIGIN_HOSTS,
    ORIGIN_SCHEMES,
)
from claims.testing.fake_ollama import (
    IMPORTED_AS,
    FakeModel,
    FakeOllama,
    Fault,
    Loaded,
    _Handler,
    _HTTPError,
    _iso,
    _Server,
    keep_alive_seconds,
)
from claims.testing.ollama_versions import ENV as VERSION_ENV
from claims.testing.ollama_versions import OllamaRelease, release
from claims.testing.store_builder import BlobRef, StoreWriter

# The media type of a model's system prompt layer (a create with "system" writes one).
SYSTEM_MEDIA_TYPE = "application/vnd.ollama.image.system"

__all__ = ["FakeServe", "main", "write_executable"]



def _release() -> OllamaRelease:
    """The release this process imitates, named by $FAKE_OLLAMA_VERSION (default 0.31.2)."""
    return release(os.environ.get(VERSION_ENV))

DEFAULT_MODELS_PER_CPU = 3  # server/sched.go: defaultModelsPerGPU * max(len(gpus), 1)


def _log(level: str, source: str, msg: str, **attrs: Any) -> None:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    extra = "".join(f' {k}="{v}"' if " " in str(v) else f" {k}={v}" for k, v in attrs.items())
    print(f'time={now} level={level} source={source} msg="{msg}"{extra}', flush=True)


def _var(name: str) -> str:
    # envconfig.Var: trimmed of spaces and quotes.
    return os.environ.get(name, "").strip().strip("\"'")


def _uint(name: str, default: int) -> int:
    value = _var(name)
    if not value:
        return default
    try:
        return max(int(value), 0)
    except ValueError:
        return default


def _flash_attention() -> str:
    """llama-server's --flash-attn as Ollama derives it (llm/llama_server.go): a set
    OLLAMA_FLASH_ATTENTION decides; unset, "auto" (a machine without GPUs is supported)."""
    value = _var("OLLAMA_FLASH_ATTENTION")
    if not value:
        return "auto"
    return "off" if value.lower() in ("0", "f", "false") else "on"


def _host() -> tuple[str, int]:
    value = _var("OLLAMA_HOST").split("://", 1)[-1].split("/", 1)[0]
    if not value:
        return DEFAULT_HOST, DEFAULT_PORT
    host, _, port = value.rpartition(":")
    if not host:
        return value or DEFAULT_HOST, DEFAULT_PORT
    return host.strip("[]") or DEFAULT_HOST, int(port)


def _origins() -> list[str]:
    given = [o for o in _var("OLLAMA_ORIGINS").split(",") if o]
    for origin in ORIGIN_HOSTS:
        given += [f"http://{origin}", f"https://{origin}", f"http://{origin}:*",
                  f"https://{origin}:*"]
    return given + [f"{scheme}://*" for scheme in ORIGIN_SCHEMES]


def _origin_allowed(origin: str, allowed: list[str]) -> bool:
    for pattern in allowed:
        if pattern == "*" or pattern == origin:
            return True
        if pattern.endswith("*") and origin.startswith(pattern[:-1]):
            return True
    return False


class Runner:
    """A runner child process serving one model on a loopback port."""

    def __init__(self, model: FakeModel, blob: str, ctx: int, slots: int, flash: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.argv = [
            sys.executable, "-m", "claims.testing.fake_ollama_serve", "runner",
            "--model", blob, "--port", str(self.port), "--host", "127.0.0.1",
            "--no-webui", "--offline", "-c", str(ctx * slots), "-np", str(slots),
            *_release().load_flags, "--flash-attn", flash,
        ]
        self.model = model
        self.slots = threading.BoundedSemaphore(slots)
        _log("INFO", "llama_server.go:433", "starting llama-server",
             cmd=" ".join(["llama-server", *self.argv[4:]]))
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def exit_text(self) -> str:
        code = self.proc.poll()
        if code is None:
            return "running"
        if code < 0:
            name = signal.Signals(-code).name
            return {"SIGKILL": "signal: killed", "SIGSEGV": "signal: segmentation fault"}.get(
                name, f"signal: {name}")
        return f"exit status {code}"

    def stop(self) -> None:
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait()


class FakeServe(FakeOllama):
    """The fake server of ``ollama serve``: real port, runner children, env settings."""

    def __init__(
        self,
        *,
        blobs: dict[str, str],
        models: list[FakeModel],
        store: Path | None = None,
        **kwargs: Any,
    ) -> None:
        version = _release().version
        super().__init__(version=version, behaves_as=version, models=models, **kwargs)
        # A real server lists what its store holds, nothing when it is empty.
        self.models = {_key(m.name): m for m in models}
        self.num_parallel = max(_uint("OLLAMA_NUM_PARALLEL", 1), 1)
        self.max_loaded = _uint("OLLAMA_MAX_LOADED_MODELS", 0) or DEFAULT_MODELS_PER_CPU
        self.keep_alive_default = keep_alive_seconds(_var("OLLAMA_KEEP_ALIVE") or "5m", 300.0)
        self.flash = _flash_attention()
        self.default_num_ctx = _uint("OLLAMA_CONTEXT_LENGTH", 0) or 4096
        self.origins = _origins()
        self.blob_paths = blobs  # model name -> its model blob's path
        self.store = store  # OLLAMA_MODELS, whose blobs a create reuses
        self.runners: dict[str, Runner] = {}
        self.used: dict[str, float] = {}  # model key -> last use, for LRU eviction
        self.tasks = 0

    def reuse_layers(self, *, weights: str | None, base: FakeModel | None) -> None:
        """Set to now the times of the store's blobs a real create would reuse.

        As ``touchLayer`` in Ollama's ``manifest/layer.go``: creating FROM a model
        reuses (and touches) its every layer; importing weights reuses an existing
        blob of the same digest, and the config blob of an existing model when the
        release's config would have the same bytes (on 0.32.15 any model of the same
        family, size and quantization; on 0.31.2, whose config names the weights, only
        a model of the same weights).
        """

        if self.store is None or not (self.store / "manifests").is_dir():
            return
        store = OllamaStore(self.store)
        touched: list[Layer] = []
        try:
            for manifest in store.manifests(strict=False):
                key = _key(manifest.name.display)
                if base is not None and key == _key(base.name):
                    touched += manifest.blobs
                    continue
                if weights is None:
                    continue
                model = manifest.model_layer()
                same_weights = model.digest == weights
                if same_weights:
                    touched.append(model)
                fake = self.models.get(key)
                same_config = same_weights or (
                    not _release().config_names_weights
                    and fake is not None
                    and (fake.family, fake.parameter_size, fake.quantization)
                    == IMPORTED_AS
                )
                if same_config:
                    touched.append(manifest.config)
        except ProbeError:
            return
        for layer in touched:
            path = self.store / "blobs" / layer.blob_name
            if path.is_file():
                os.utime(path)

    def stored(self, name: str, base: FakeModel | None, body: dict[str, Any]) -> None:
        """A create FROM ``base`` writes the new model's manifest to the store, as a real one
        does: the base's layers (the weights' blob shared, not copied), a new system layer
        when the request sets one, and a new config; a delete (``base`` None) removes it."""
        if self.store is None or not (self.store / "manifests").is_dir():
            return
        writer = StoreWriter(self.store)
        if base is None:
            writer.manifest_path(ModelName.parse(name)).unlink(missing_ok=True)
            return
        try:
            layers = list(OllamaStore(self.store).manifest(base.name).blobs)
        except ProbeError:
            return  # the base is not in this store: nothing to share
        refs = [BlobRef(layer.media_type, layer.digest, layer.size) for layer in layers
                if layer.media_type != CONFIG_MEDIA_TYPE]
        if isinstance(body.get("system"), str):
            refs.append(writer.blob_bytes(body["system"].encode(), SYSTEM_MEDIA_TYPE))
        writer.model(name, refs, family=base.family or "llama")

    def bind(self, host: str, port: int) -> None:
        self._server = _Server((host, port), _ServeHandler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        super().stop()
        for runner in list(self.runners.values()):
            runner.stop()

    # --- model state ---------------------------------------------------------------------
    def _ensure_loaded(self, model: FakeModel, body: dict[str, Any]) -> float:
        options = body.get("options") or {}
        ctx = int(options.get("num_ctx") or self.default_num_ctx)
        try:
            keep = keep_alive_seconds(body.get("keep_alive"), self.keep_alive_default)
        except ValueError as exc:
            raise _HTTPError(400, str(exc)) from None
        key = _key(model.name)
        started = time.perf_counter()
        with self._lock:
            self._expire()
            current = self.loaded.get(key)
            runner = self.runners.get(key)
            if runner is not None and not runner.alive():
                # As the scheduler's needsReload: a runner that does not answer is replaced.
                _log("WARN", _release().source_runner_gone,
                     "llama-server process no longer running",
                     sys=-(runner.proc.returncode or 0), string=runner.exit_text())
                self.runners.pop(key).stop()
                current = None
            if current is None or current.context_length != ctx or runner is None:
                if runner is not None and runner.alive():
                    self.runners.pop(key).stop()
                self._evict_for(key)
                self.runners[key] = Runner(model, self.blob_paths.get(key, key), ctx,
                                           self.num_parallel, self.flash)
            self.loaded[key] = Loaded(model, ctx, time.time() + keep)
            self.used[key] = time.monotonic()
        return time.perf_counter() - started + 0.0001

    def _evict_for(self, key: str) -> None:
        others = [k for k in self.runners if k != key]
        while len(others) >= self.max_loaded:
            oldest = min(others, key=lambda k: self.used.get(k, 0.0))
            self.runners.pop(oldest).stop()
            self.loaded.pop(oldest, None)
            others.remove(oldest)

    def _expire(self) -> None:
        super()._expire()
        for key in [k for k in self.runners if k not in self.loaded]:
            self.runners.pop(key).stop()

    def _unload_later(self, model: FakeModel) -> None:
        if not self.release.ps_lists_unloading:
            self._unload_listing_at_once(model)
            return

        def drop() -> None:
            with self._lock:
                self.loaded.pop(_key(model.name), None)
                runner = self.runners.pop(_key(model.name), None)
            if runner is not None:
                runner.stop()

        timer = threading.Timer(self.unload_delay_s, drop)
        timer.daemon = True
        timer.start()

    def _unload_listing_at_once(self, model: FakeModel) -> None:
        """0.32.15: /api/ps lists the model no more; its runner stops after the delay,
        unless a request started a new one meanwhile."""
        key = _key(model.name)
        with self._lock:
            self.loaded.pop(key, None)
            runner = self.runners.get(key)

        def stop() -> None:
            with self._lock:
                if self.runners.get(key) is runner and key not in self.loaded:
                    self.runners.pop(key, None)
                else:
                    return
            if runner is not None:
                runner.stop()

        timer = threading.Timer(self.unload_delay_s, stop)
        timer.daemon = True
        timer.start()

    # --- generation through the runner ---------------------------------------------------------
    def _send_answer(
        self,
        h: _Handler,
        body: dict[str, Any],
        fault: Fault | None,
        m: FakeModel,
        now: str,
        shape: Any,
        pieces: list[str],
        final: dict[str, Any],
        extra: dict[str, Any] | None = None,
    ) -> None:
        runner = self.runners.get(_key(m.name))
        if runner is None:
            raise _HTTPError(500, "no runner for the model")
        with runner.slots:
            self._answer(h, body, runner, m, shape, pieces, final, extra or {})

    def _answer(
        self,
        h: _Handler,
        body: dict[str, Any],
        runner: Runner,
        m: FakeModel,
        shape: Any,
        pieces: list[str],
        final: dict[str, Any],
        extra: dict[str, Any],
    ) -> None:
        def failed() -> str:
            # What 0.31.2 answers when its runner dies mid-request (the connection to it
            # ends); the server logs the death only when it next looks at the runner.
            return "an error was encountered while running the model: unexpected EOF"

        def decoded() -> Iterator[str | None]:
            for piece in pieces:
                time.sleep(self.token_interval_s)
                yield piece if runner.alive() else None

        if not runner.alive():
            raise _HTTPError(500, failed())
        # As llama-server logs (at Ollama's verbosity) when a slot takes a request.
        self.tasks += 1
        print(f"slot launch_slot_: id  0 | task {self.tasks} | processing task", flush=True)
        if body.get("stream") is False:
            text = []
            for piece in decoded():
                if piece is None:
                    raise _HTTPError(500, failed())
                text.append(piece)
            h._send_json(200, {"model": m.name, "created_at": _iso(time.time()),
                               **shape("".join(text), extra), **final})
            return
        h._start_chunked()
        for piece in decoded():
            if piece is None:
                h._chunk(json.dumps({"error": failed()}).encode() + b"\n")
                break
            h._chunk(json.dumps({"model": m.name, "created_at": _iso(time.time()),
                                 **shape(piece, {}), "done": False}).encode() + b"\n")
        else:
            h._chunk(json.dumps({"model": m.name, "created_at": _iso(time.time()),
                                 **shape("", extra), **final}).encode() + b"\n")
        h.wfile.write(b"0\r\n\r\n")


class _ServeHandler(_Handler):
    def _dispatch(self, method: str) -> None:
        fake = self.server.fake
        assert isinstance(fake, FakeServe)
        origin = self.headers.get("Origin")
        if origin and not _origin_allowed(origin, fake.origins):
            # gin-contrib/cors answers a disallowed origin with an empty 403.
            self._send(403)
            return
        self._cors = origin
        super()._dispatch(method)

    def end_headers(self) -> None:
        origin = getattr(self, "_cors", None)
        if origin:
            self.send_header("Access-Control-Allow-Origin", origin)
        super().end_headers()


def _models(root: Path) -> tuple[list[FakeModel], dict[str, str]]:
    """The store's models for the fake (none if it holds none) and their model blob paths."""

    if not (root / "manifests").is_dir():
        return [], {}
    store = OllamaStore(root)
    if not store.manifests(strict=False):
        return [], {}
    fake = FakeOllama.from_store(root)
    blobs = {}
    for model in fake.models.values():
        name = _key(model.name)
        try:
            blobs[name] = str(store.model_blob_path(name))
        except Exception:  # a model without a model layer is listed, never run
            blobs[name] = name
    return list(fake.models.values()), blobs


def serve() -> int:
    if _var("FAKE_OLLAMA_MODE") == "exit":
        print("Error: the fake was told to exit at once", file=sys.stderr, flush=True)
        return 1
    host, port = _host()
    models_dir = Path(_var("OLLAMA_MODELS") or Path.home() / ".ollama" / "models")
    env = {
        "OLLAMA_CONTEXT_LENGTH": str(_uint("OLLAMA_CONTEXT_LENGTH", 0)),
        "OLLAMA_FLASH_ATTENTION": "true" if _var("OLLAMA_FLASH_ATTENTION") in ("1", "true")
        else "false",
        "OLLAMA_HOST": f"http://{host}:{port}",
        "OLLAMA_KEEP_ALIVE": _var("OLLAMA_KEEP_ALIVE") or "5m0s",
        "OLLAMA_MAX_LOADED_MODELS": str(_uint("OLLAMA_MAX_LOADED_MODELS", 0)),
        "OLLAMA_MAX_QUEUE": "512",
        "OLLAMA_MODELS": str(models_dir),
        "OLLAMA_NO_CLOUD": "true" if _var("OLLAMA_NO_CLOUD") else "false",
        "OLLAMA_NUM_PARALLEL": str(_uint("OLLAMA_NUM_PARALLEL", 1)),
        "OLLAMA_ORIGINS": "[" + " ".join(_origins()) + "]",
    }
    shown = " ".join(f"{k}:{v}" for k, v in env.items())
    imitated = _release()
    _log("INFO", imitated.source_config, "server config", env=f"map[{shown}]")
    if _var("FAKE_OLLAMA_MODE") == "hang":
        while True:
            time.sleep(1)
    models, blobs = _models(models_dir)
    interval = float(_var("FAKE_OLLAMA_TOKEN_INTERVAL_S") or 0.02)
    fake = FakeServe(blobs=blobs, models=models, store=models_dir, token_interval_s=interval)
    try:
        fake.bind(host, port)
    except OSError as exc:
        why = (exc.strerror or str(exc)).lower()
        print(f"Error: listen tcp {host}:{port}: bind: {why}", flush=True)
        return 1
    _log("INFO", imitated.source_blobs, "total blobs", count=len(blobs))
    # A machine without GPUs, as a real server reports it.
    _log("INFO", "types.go:50", "inference compute", id="cpu", library="cpu", compute='""',
         name="cpu", description="cpu", libdirs="ollama", driver='""', pci_id='""', type='""',
         total="23.5 GiB", available="22.2 GiB")
    _log("INFO", imitated.source_listening,
         f"Listening on {host}:{port} (version {imitated.version})")
    _log("INFO", imitated.source_default_ctx, "vram-based default context", total_vram="0 B",
         default_num_ctx=fake.default_num_ctx)
    stopping = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    stopping.wait()
    fake.stop()
    return 0


def runner(argv: list[str]) -> int:
    """The runner stand-in: answers /health and /slots on --host/--port until killed."""
    args = dict(zip(argv[::2], argv[1::2], strict=False))
    slots = int(args.get("-np", "1"))
    n_ctx = int(args.get("-c", "4096")) // max(slots, 1)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *a: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/health":
                data: Any = {"status": "ok"}
            elif self.path == "/slots":
                data = [{"id": i, "n_ctx": n_ctx, "is_processing": False} for i in range(slots)]
            else:
                self.send_error(404)
                return
            raw = json.dumps(data).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer((args.get("--host", "127.0.0.1"), int(args["--port"])), Handler)
    # What llama-server prints first when it starts: the build it is (runner start line).
    print(_release().runner_build_line, flush=True)
    print(f"srv  llama_server: listening on http://127.0.0.1:{args['--port']}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    server.serve_forever()
    return 0


def create(argv: list[str]) -> int:
    """``ollama create NAME -f Modelfile`` with ``FROM <gguf>``: upload the file, create."""
    import hashlib

    import httpx

    name = argv[0]
    modelfile = Path(argv[argv.index("-f") + 1])
    source = Path(modelfile.read_text(encoding="utf-8").split("FROM", 1)[1].strip())
    digest = "sha256:" + hashlib.sha256(source.read_bytes()).hexdigest()
    host, port = _host()
    base = f"http://{host}:{port}"
    with httpx.Client(timeout=60.0, trust_env=False) as client:
        client.post(f"{base}/api/blobs/{digest}", content=source.read_bytes())
        reply = client.post(f"{base}/api/create",
                            json={"model": name, "files": {source.name: digest}})
    if reply.status_code != 200:
        print(f"Error: {reply.text}", file=sys.stderr)
        return 1
    print("success")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["--version"], ["-v"]):
        print(f"ollama version is {_release().version}")
        return 0
    if args[:1] == ["serve"]:
        return serve()
    if args[:1] == ["runner"]:
        return runner(args[1:])
    if args[:1] == ["create"]:
        return create(args[1:])
    print(f"Error: unknown command {' '.join(args)!r} for the fake ollama", file=sys.stderr)
    return 1


def write_executable(path: Path, mode: str | None = None, version: str | None = None) -> Path:
    """An ``ollama`` executable at ``path`` that runs this fake (``mode``, ``version``: see
    the docstring; ``version`` must be a recorded release)."""
    setting = f"export FAKE_OLLAMA_MODE={mode}\n" if mode else ""
    if version is not None:
        setting += f"export {VERSION_ENV}={release(version).version}\n"
    src = str(Path(__file__).resolve().parents[2])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\n"
        f'export PYTHONPATH="{src}${{PYTHONPATH:+:$PYTHONPATH}}"\n{setting}'
        f'exec "{sys.executable}" -m claims.testing.fake_ollama_serve "$@"\n',
        encoding="utf-8",
    )
    path.chmod(0o755)
    return path


if __name__ == "__main__":
    sys.exit(main())
