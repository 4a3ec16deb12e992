"""The private servers of one test session: one at a time, one per group of settings.

A *group* is a set of server settings some checks need (``OLLAMA_NUM_PARALLEL=4``,
no ``OLLAMA_HOST`` for the default bind, ...). :meth:`PrivateServers.use` returns
the running server of a group, stopping the previous group's first: servers are
restarted only when the group changes. Everything lives in one temporary folder
(store, home, logs) that :meth:`PrivateServers.close` removes, after copying the
logs to ``keep_logs``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claims.probes.files.artifacts import GEMMA_MODEL_NAME
from claims.probes.live.ollama_defaults import DEFAULT_PORT
from claims.probes.live.ollama_serve.build import parse_runner_build, runner_version
from claims.probes.live.ollama_serve.environment import parse_server_config, server_environment
from claims.probes.live.ollama_serve.errors import PortInUse, ServeError
from claims.probes.live.ollama_serve.ports import free_port, port_is_free
from claims.probes.live.ollama_serve.server import OllamaServe
from claims.probes.live.ollama_serve.store import SharedStore, import_gguf, share_store

__all__ = ["DEFAULT_GROUP", "Group", "PrivateServers", "ServerRecord"]

PORT_ATTEMPTS = 3


@dataclass(frozen=True)
class Group:
    """Server settings some checks need: ``OLLAMA_*`` values, and whether to set OLLAMA_HOST."""

    name: str
    settings: tuple[tuple[str, str], ...] = ()
    default_bind: bool = False  # start without OLLAMA_HOST (it then binds 127.0.0.1:11434)

    @classmethod
    def of(cls, name: str, settings: Mapping[str, str] | None = None, *,
           default_bind: bool = False) -> Group:
        return cls(name, tuple(sorted((settings or {}).items())), default_bind)

    @property
    def env(self) -> dict[str, str]:
        return dict(self.settings)


DEFAULT_GROUP = Group("default")


@dataclass
class ServerRecord:
    """What the evidence says about one private server: how it ran and what it reported."""

    group: str
    binary: str
    url: str
    settings: dict[str, str]
    env_set: dict[str, str]
    log: str
    version: str | None = None
    pid: int | None = None
    startup_s: float | None = None
    started: float | None = None
    stopped: float | None = None
    returncode: int | None = None
    reported_config: dict[str, str] | None = None
    # The runner's llama.cpp build (RunnerBuild.to_json): from the log once a model has
    # loaded, before that from `llama-server --version` beside the binary.
    runner_build: dict[str, Any] | None = None
    # The user's blobs whose times this server moved (ollama create reuses a layer by
    # touching it), put back when it stopped (SharedStore.restore_times).
    restored_blob_times: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class PrivateServers:
    """Private ``ollama serve`` processes for one session; see the module docstring."""

    binary: Path
    user_store: Path | None
    startup_timeout: float = 60.0
    keep_logs: Path | None = None
    base_env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    # The GGUF imported when the user's store cannot be shared (called only then).
    gguf: Callable[[], Path] | None = None
    # Called once, before the first server starts (the plugin snapshots the user's server).
    before_first_start: Callable[[], None] | None = None
    default_port: int = field(default_factory=free_port)
    workdir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="claims-ollama-")))
    current: OllamaServe | None = field(default=None, init=False)
    current_group: Group | None = field(default=None, init=False)
    store: SharedStore | None = field(default=None, init=False)
    records: list[ServerRecord] = field(default_factory=list, init=False)
    closed: bool = field(default=False, init=False)
    _imported: bool = field(default=False, init=False)

    @property
    def default_url(self) -> str:
        return f"http://127.0.0.1:{self.default_port}"

    @property
    def models_dir(self) -> Path:
        return self.workdir / "models"

    # --- groups --------------------------------------------------------------------
    def use(self, group: Group = DEFAULT_GROUP) -> OllamaServe:
        """The running server of ``group``, started (and the previous one stopped) if need be."""
        if self.closed:
            raise ServeError("the session's private servers were already shut down")
        same = self.current is not None and self.current_group == group
        if same and self.current is not None and self.current.running():
            return self.current
        # Another group, or the server died (a check crashed more than its runner).
        self.stop_current()
        if self.store is None:
            if self.before_first_start is not None:
                self.before_first_start()
            self._prepare_store()
        server = self._start(group)
        self.current, self.current_group = server, group
        if not self._imported and self.store is not None and self.store.method != "hard links":
            self._import(server)
        return server

    def _prepare_store(self) -> None:
        if self.user_store is not None:
            self.store = share_store(self.user_store, self.models_dir)
        else:
            self.models_dir.mkdir(parents=True, exist_ok=True)
            self.store = SharedStore(self.models_dir, "empty", problem="no user store found")

    def _import(self, server: OllamaServe) -> None:
        assert self.store is not None
        self._imported = True
        if self.gguf is None:
            return
        gguf = self.gguf()
        import_gguf(self.binary, server.env, GEMMA_MODEL_NAME, gguf, self.workdir / "import")
        self.store.method = "imported"
        self.store.source = gguf
        self.store.models = [GEMMA_MODEL_NAME]

    def _ports(self, group: Group) -> list[int]:
        if group.default_bind:
            return [DEFAULT_PORT]
        if group == DEFAULT_GROUP:
            # The session's settings point the ollama tier at this port.
            return [self.default_port]
        return [free_port() for _ in range(PORT_ATTEMPTS)]

    def _start(self, group: Group) -> OllamaServe:
        last: PortInUse | None = None
        for port in self._ports(group):
            if group.default_bind and not port_is_free(port):
                raise PortInUse(
                    f"port {port} is taken (another Ollama server, probably the user's): a "
                    "server started without OLLAMA_HOST could not bind its default address",
                    returncode=None,
                )
            host = None if group.default_bind else f"127.0.0.1:{port}"
            env = server_environment(
                self.base_env,
                models=self.models_dir,
                home=self.workdir / "home",
                host=host,
                settings=group.env,
            )
            (self.workdir / "home").mkdir(exist_ok=True)
            n = len(self.records) + 1
            log = self.workdir / "logs" / f"{n:02d}-{group.name}.log"
            server = OllamaServe(self.binary, env, "127.0.0.1", port, log, self.startup_timeout)
            record = ServerRecord(
                group=group.name,
                binary=str(self.binary),
                url=server.url,
                settings=group.env,
                env_set={k: v for k, v in env.items() if k.startswith("OLLAMA_")},
                log=str(self._kept(log)),
                started=time.time(),
            )
            self.records.append(record)
            try:
                server.start()
            except PortInUse as exc:
                self._finish(record, server)
                last = exc
                continue
            except ServeError:
                self._finish(record, server)
                raise
            record.version, record.pid, record.startup_s = (
                server.version, server.pid, server.started_s
            )
            record.reported_config = parse_server_config(server.log_text())
            found = runner_version(self.binary)
            record.runner_build = found.to_json() if found is not None else None
            return server
        assert last is not None
        raise last

    def _kept(self, log: Path) -> Path:
        return self.keep_logs / log.name if self.keep_logs is not None else log

    def _finish(self, record: ServerRecord, server: OllamaServe) -> None:
        record.returncode = server.stop()
        record.stopped = time.time()
        if self.store is not None:
            # Its creates may have moved the times of blobs it shares with the user's store.
            record.restored_blob_times = self.store.restore_times()
        if record.reported_config is None:
            record.reported_config = parse_server_config(server.log_text())
        self._read_runner_build(record, server)
        if self.keep_logs is not None:
            try:
                self.keep_logs.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(server.log_path, self.keep_logs / server.log_path.name)
            except OSError:
                record.log = str(server.log_path) + " (not kept: copy failed)"

    def record_of(self, server: OllamaServe) -> ServerRecord:
        """The record of ``server``, its runner build brought up to date from its log."""
        record = next(r for r in reversed(self.records) if r.url == server.url)
        self._read_runner_build(record, server)
        return record

    @staticmethod
    def _read_runner_build(record: ServerRecord, server: OllamaServe) -> None:
        # A runner that started logged its build: that is what ran, so it replaces
        # what `llama-server --version` said before any model loaded.
        found = parse_runner_build(server.log_text())
        if found is not None and found.source == "runner start line":
            record.runner_build = found.to_json()

    def stop_current(self) -> None:
        if self.current is not None:
            self._finish(self.record_of(self.current), self.current)
        self.current, self.current_group = None, None

    def close(self) -> None:
        """Stop the running server and remove the temporary folder (logs kept first)."""
        if self.closed:
            return
        self.closed = True
        try:
            self.stop_current()
        finally:
            shutil.rmtree(self.workdir, ignore_errors=True)
