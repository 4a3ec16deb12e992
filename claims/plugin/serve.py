"""``--ollama-serve[=PATH]``: the ollama tier on a server the suite starts and owns.

Without the option the ollama tier measures the user's server (``--ollama-host``)
and never restarts, crashes or unloads it without an opt-in flag. With it, the
suite runs its own ``ollama serve`` (:mod:`claims.probes.live.ollama_serve`): on a free
loopback port, with a private store sharing the user's models, restarted only
when a test group needs other settings. Then:

* the tier's host is the private server, and cold starts need no
  ``--ollama-allow-unload`` (unloading it disturbs no one);
* tests marked ``@pytest.mark.ollama_server("group")`` run after the others,
  grouped, so each group's server starts once; they get their server from the
  ``ollama_serve`` fixture;
* every ollama-tier check records which server it was judged on (the user's or
  a private one) with its version and environment (fact ``ollama_server``) and
  its runner's llama.cpp build (fact ``ollama_runner_build``);
* the servers stop and their temporary folder goes at the end of the session,
  also after a failure, Ctrl-C or SIGTERM; their logs are kept under
  ``reports/ollama-serve/``;
* the user's server is looked at (read only: /api/version, /api/ps, /api/tags)
  before the first private server starts, for the check that it is unchanged.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from claims.plugin.keys import CHECK, SETTINGS, TIERS_KEY
from claims.plugin.outcomes import not_run
from claims.tiers import OLLAMA

if TYPE_CHECKING:  # imported in every pytest run (the entry point's pytest_plugins)
    from claims.plugin.options import Settings
    from claims.probes.live.listeners import Listener

__all__ = ["AFTER_ALL", "SERVE", "UserServerSnapshot", "ollama_serve", "user_server_snapshot"]

# The ollama_server group of checks that look at the session as a whole (the
# user's server unchanged): they run after every other group.
AFTER_ALL = "after-all"


class UserServerSnapshot:
    """What the user's server and store looked like before the first private server started."""

    def __init__(
        self,
        host: str,
        store: Path | None,
        timeout: float,
        auth: tuple[str, str] | None = None,
    ) -> None:
        self.host = host
        self.store = store
        self.timeout = timeout  # the user's --ollama-timeout
        self.auth = auth
        self.before: dict[str, Any] | None = None

    def take(self) -> dict[str, Any]:
        """The user's server (read only) and store as they are now."""
        from claims.probes.errors import ProbeError
        from claims.probes.live.ollama_api.factory import client_for
        from claims.probes.live.ollama_serve import store_snapshot

        state: dict[str, Any] = {"host": self.host}
        try:
            with client_for(self.host, self.timeout, auth=self.auth) as client:
                state["version"] = client.version()
                state["ps"] = client.ps()
                state["tags"] = [
                    {k: m.get(k) for k in ("name", "digest", "size", "modified_at")}
                    for m in client.tags()
                ]
        except ProbeError as exc:
            state["unreachable"] = str(exc)
        if self.store is not None:
            state["store"] = {k: list(v) for k, v in store_snapshot(self.store).items()}
        return state

    def remember(self) -> None:
        if self.before is None:
            self.before = self.take()


SERVE = pytest.StashKey[Any]()  # the session's PrivateServers (claims.probes.live.ollama_serve)
USER_ENV = pytest.StashKey[Any]()
# The user's server's settings shown beside its checks, when this machine lets us read them.
USER_ENV_NAMES = (
    "OLLAMA_HOST", "OLLAMA_MODELS", "OLLAMA_NUM_PARALLEL", "OLLAMA_MAX_LOADED_MODELS",
    "OLLAMA_KEEP_ALIVE", "OLLAMA_CONTEXT_LENGTH", "OLLAMA_FLASH_ATTENTION", "OLLAMA_ORIGINS",
)


def _user_listener(url: str) -> Listener | str | None:
    """The listening socket of the user's server at ``url`` (None: none), or why not (str).

    Only for a server on this machine; read from /proc, never from the server.
    """
    from claims.probes.errors import ProbeError
    from claims.probes.live.listeners import listeners
    from claims.probes.live.ollama_host import parse_host

    parts = parse_host(url)
    if not parts.loopback:
        return f"the server is at {parts.hostname}, not on this machine"
    try:
        found = listeners(parts.port)
    except ProbeError as exc:
        return str(exc)
    return found[0] if found else None


def _user_server_environment(url: str) -> dict[str, str] | str:
    """The ``OLLAMA_*`` settings of the process listening at ``url`` on this machine, or why not.

    Read from /proc (the socket's owner), never from the server: it does not report them.
    """
    from claims.probes.live.listeners import owner_environment

    found = _user_listener(url)
    if isinstance(found, str):
        return f"not readable: {found}"
    env = owner_environment(found.inode, USER_ENV_NAMES) if found is not None else None
    if env is None:
        return "not readable (no listening socket of this machine's, or another user's process)"
    return env


SNAPSHOT = pytest.StashKey[UserServerSnapshot]()
USER_RUNNER = pytest.StashKey[Any]()
NOT_SEEN = "not known: no runner start in the server's log and no llama-server beside its binary"


def _user_runner_build(url: str) -> dict[str, Any] | str:
    """The llama.cpp build of the runner beside the user's server's binary, or why not.

    The binary is the listening process's own (/proc/PID/exe); its ``llama-server
    --version`` is run, which touches neither the server nor its models.
    """
    from claims.probes.live.listeners import owner_pid
    from claims.probes.live.ollama_serve import runner_version

    found = _user_listener(url)
    if isinstance(found, str):
        return f"not known: {found}"
    pid = owner_pid(found.inode) if found is not None else None
    try:
        exe = Path(os.readlink(f"/proc/{pid}/exe")) if pid is not None else None
    except OSError:
        exe = None
    if exe is None:
        return "not known: the server's process is not readable (another user's, or gone)"
    build = runner_version(exe)
    return build.to_json() if build is not None else f"not known: no llama-server beside {exe}"


def _binary(raw: str) -> Path:
    found = shutil.which(raw) if os.sep not in raw else raw
    if found is None:
        raise pytest.UsageError(f"--ollama-serve: no executable {raw!r} on PATH")
    path = Path(found).expanduser().resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise pytest.UsageError(f"--ollama-serve: {path} is not an executable file")
    return path


def _user_store(settings: Settings) -> Path | None:
    from claims.probes.errors import ProbeError
    from claims.probes.files.ollama_store import locate_store

    try:
        return locate_store(settings.models_dir)
    except ProbeError:
        return None


def _gguf() -> Path:
    from claims.probes.files.artifacts import gemma_gguf

    return gemma_gguf()


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "ollama_server(group): runs on the private server of that group of settings "
        "(--ollama-serve); such tests run after the others, group by group",
    )
    raw = config.getoption("--ollama-serve")
    if raw is None:
        return
    from claims.plugin.session import load_session
    from claims.plugin.tiers import Tiers
    from claims.plugin.writer import EVIDENCE_WRITER
    from claims.probes.live.ollama_serve import PrivateServers

    load_session(config)
    binary = _binary(str(raw))
    settings = config.stash[SETTINGS]
    store = _user_store(settings)
    snapshot = UserServerSnapshot(
        settings.ollama_host, store, settings.ollama_timeout, settings.ollama_auth
    )
    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    keep = None
    if settings.evidence_path is not None:
        keep = settings.evidence_path.parent / "ollama-serve" / str(worker)
    servers = PrivateServers(
        binary,
        store,
        startup_timeout=float(config.getoption("--ollama-serve-timeout")),
        keep_logs=keep,
        gguf=_gguf,
        before_first_start=snapshot.remember,
    )
    # The server is the suite's own: unloading it for a cold start disturbs no one.
    private = replace(
        settings,
        ollama_host=servers.default_url,
        # The user's host, its credentials and remoteness are not the private server's.
        ollama_auth=None,
        ollama_host_shown=None,
        ollama_remote=False,
        allow_unload=True,
        ollama_serve=servers,
        # Its store is its own (the user's blobs shared into it): every store claim reads
        # the store the private server writes, never the user's, which it does not touch.
        models_dir=str(servers.models_dir),
    )
    config.stash[SETTINGS] = private
    config.stash[TIERS_KEY] = Tiers(private)
    config.stash[SERVE] = servers
    config.stash[SNAPSHOT] = snapshot
    writer = config.stash.get(EVIDENCE_WRITER, None)
    if writer is not None:
        writer.settings = private
        writer.tiers = config.stash[TIERS_KEY]
        options = writer.log.run["options"]
        options.update(private.to_json())
        options["ollama_serve"] = str(binary)
        options["user_ollama_host"] = settings.ollama_host
        options["user_models_dir"] = settings.models_dir
    # Stopped when pytest unconfigures (after a failure or Ctrl-C too); atexit is
    # the backstop for an interpreter that ends some other way.
    config.add_cleanup(servers.close)
    atexit.register(servers.close)
    _interrupt_on_sigterm()


def _interrupt_on_sigterm() -> None:
    """Make SIGTERM take pytest's Ctrl-C path, so the private servers are stopped.

    Python's default SIGTERM ends the interpreter at once: no ``finally``, no
    config cleanup, no atexit, and the private ``ollama serve`` (its own process
    group) would outlive the session. Raising KeyboardInterrupt instead lets
    pytest finish as interrupted, write the evidence and run the cleanups. A
    handler someone else installed (a CI runner, xdist) is left alone.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def interrupt(signum: int, frame: object) -> None:
        # A second SIGTERM during the cleanup ends the process the default way.
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise KeyboardInterrupt("SIGTERM")

    signal.signal(signal.SIGTERM, interrupt)


def _group_key(item: pytest.Item, order: dict[str, int]) -> int:
    marker = item.get_closest_marker("ollama_server")
    if marker is None or not marker.args:
        return 0
    group = str(marker.args[0])
    if group == AFTER_ALL:
        return 1 << 30
    return order.setdefault(group, len(order) + 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.stash.get(SERVE, None) is None:
        return
    # Stable: the order within a group is the order in the file.
    order: dict[str, int] = {}
    keys = {id(item): _group_key(item, order) for item in items}
    items.sort(key=lambda item: keys[id(item)])


def server_fact(record: Any) -> dict[str, Any]:
    """The ``ollama_server`` fact of a check judged on a private server."""
    return {
        "kind": "private",
        "group": record.group,
        "url": record.url,
        "version": record.version,
        "binary": record.binary,
        "environment": record.env_set,
        "log": record.log,
        "runner_build": record.runner_build,
    }


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # tryfirst: before the fixtures are set up (the session client asks the server
    # its version), after the claims plugin's wrapper made the check and checked tiers.
    if item.get_closest_marker(OLLAMA.name) is None:
        return
    config = item.config
    check = item.stash.get(CHECK, None)
    servers = config.stash.get(SERVE, None)
    if servers is None:
        if check is not None:
            status = config.stash[TIERS_KEY].known().get(OLLAMA.name)
            url = config.stash[SETTINGS].ollama_host
            if USER_ENV not in config.stash:
                config.stash[USER_ENV] = _user_server_environment(url)
            if USER_RUNNER not in config.stash:
                config.stash[USER_RUNNER] = _user_runner_build(url)
            check.fact("ollama_server", {
                "kind": "user's",
                "url": url,
                "version": status.details.get("version") if status else None,
                "environment": config.stash[USER_ENV],
                "runner_build": config.stash[USER_RUNNER],
            })
            check.fact("ollama_runner_build", config.stash[USER_RUNNER])
        return
    if item.get_closest_marker("ollama_server") is not None:
        return  # the test asks for its group's server itself (fixture ollama_serve)
    from claims.probes.errors import ProbeError

    try:
        server = servers.use()
    except ProbeError as exc:
        not_run(f"--ollama-serve: {exc}")
    if check is not None:
        record = servers.record_of(server)
        check.fact("ollama_server", server_fact(record))
        check.fact("ollama_runner_build", record.runner_build or NOT_SEEN)


@pytest.fixture(scope="session")
def ollama_serve(pytestconfig: pytest.Config) -> Any:
    """The session's private servers (``PrivateServers``); not run without --ollama-serve."""
    servers = pytestconfig.stash.get(SERVE, None)
    if servers is None:
        not_run("needs a server of the suite's own: pass --ollama-serve[=PATH to ollama]")
    return servers


@pytest.fixture(scope="session")
def user_server_snapshot(pytestconfig: pytest.Config) -> UserServerSnapshot:
    """The user's server and store before the first private server started."""
    snapshot = pytestconfig.stash.get(SNAPSHOT, None)
    if snapshot is None:
        not_run("needs a server of the suite's own: pass --ollama-serve[=PATH to ollama]")
    return snapshot
