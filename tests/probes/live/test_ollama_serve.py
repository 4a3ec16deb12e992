"""The private-server lifecycle (claims.probes.live.ollama_serve), on a fake ``ollama`` executable.

CI has no Ollama: ``claims.testing.fake_ollama_serve`` stands in for the binary
(``serve`` binds OLLAMA_HOST, logs its settings, runs models in child
processes). What is tested is the suite's side: the port, the environment, the
store, restarts between groups, a crashed child, cleanup, a startup timeout, a
binary that exits at once, a port already taken.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest

from claims.probes.files.ollama_store import MODEL_MEDIA_TYPE
from claims.probes.live.ollama_api import OllamaClient
from claims.probes.live.ollama_api.errors import ServerStopped
from claims.probes.live.ollama_defaults import DEFAULT_PORT
from claims.probes.live.ollama_serve import (
    DEFAULT_GROUP,
    Group,
    PortInUse,
    PrivateServers,
    ServeError,
    ServerExited,
    Span,
    StartupTimeout,
    children,
    concurrent_streams,
    flag_value,
    log_tail,
    max_overlap,
    parse_server_config,
    port_is_free,
    runner_form,
    runners,
    server_environment,
    share_store,
    store_snapshot,
)
from claims.probes.live.ollama_serve import ports as ports_module
from claims.probes.live.ollama_serve import store as store_module
from claims.probes.live.ollama_serve.processes import _ppid
from claims.testing.fake_ollama import FakeOllama, wedge_generation
from claims.testing.fake_ollama_serve import write_executable
from claims.testing.store_builder import StoreWriter, write_tiny_gguf

pytestmark = pytest.mark.slow

RECORDED = Path(__file__).resolve().parents[3] / "fixtures" / "recorded" / "ollama-serve"
RECORDED_LOG = RECORDED / "serve-0.31.2.log"
BUILT_LOG = RECORDED / "built-0.31.2.log"


@pytest.fixture(scope="module")
def user_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's store with two small models (two distinct model blobs)."""
    tmp = tmp_path_factory.mktemp("user")
    writer = StoreWriter(tmp / "models")
    for i, name in enumerate(("tiny:latest", "example/tiny:f32")):
        gguf = write_tiny_gguf(tmp / f"m{i}.gguf", seed=i, n_tokens=32 + i)
        blob = writer.blob_file(gguf, MODEL_MEDIA_TYPE, link="copy")[0]
        writer.model(name, [blob], model_type="256")
    return tmp / "models"


@pytest.fixture
def fake_ollama(tmp_path: Path) -> Path:
    return write_executable(tmp_path / "bin" / "ollama")


@pytest.fixture
def servers(fake_ollama: Path, user_store: Path, tmp_path: Path):
    pool = PrivateServers(
        fake_ollama, user_store, startup_timeout=30.0, keep_logs=tmp_path / "kept",
        base_env={**os.environ, "OLLAMA_NUM_PARALLEL": "7", "OLLAMA_MODELS": "/user/models",
                  "OLLAMA_HOST": "0.0.0.0:11434"},
    )
    try:
        yield pool
    finally:
        pool.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose (its parent has not reaped it yet).
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False


def _wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


# --- parsing what a real server logs ----------------------------------------------------------
def test_server_config_line_of_a_real_server_is_parsed():
    config = parse_server_config(RECORDED_LOG.read_text(encoding="utf-8"))
    assert config is not None
    assert config["OLLAMA_NUM_PARALLEL"] == "1"
    assert config["OLLAMA_MAX_LOADED_MODELS"] == "0"
    assert config["OLLAMA_KEEP_ALIVE"] == "5m0s"
    assert config["OLLAMA_HOST"] == "http://127.0.0.1:11434"
    assert config["OLLAMA_ORIGINS"].startswith("[http://localhost ")
    assert config["CUDA_VISIBLE_DEVICES"] == ""


def test_no_server_config_line_is_none():
    assert parse_server_config("time=x level=INFO msg=\"Listening on 127.0.0.1:1\"\n") is None


def test_runner_command_line_of_a_real_server_gives_its_flags():
    line = next(x for x in RECORDED_LOG.read_text().splitlines() if "starting llama-server" in x)
    argv = tuple(line.split('cmd="', 1)[1].rstrip('"').split())
    assert flag_value(argv, "--port") == "44537"
    assert flag_value(argv, "--host") == "127.0.0.1"
    assert flag_value(argv, "-np") == "1"
    assert flag_value(argv, "--missing") is None


def test_parent_pid_is_read_after_the_last_parenthesis():
    assert _ppid("123 (a (weird) name) S 77 123 123 0") == 77
    assert _ppid("garbage") is None


def test_children_of_this_process_include_a_child_it_started():
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        found = children(os.getpid())
        assert proc.pid in [c.pid for c in found]
    finally:
        proc.kill()
        proc.wait()


def _fake_proc(root, pid: int, ppid: int, argv: list[str], state: str = "S") -> None:
    entry = root / str(pid)
    entry.mkdir()
    (entry / "stat").write_text(f"{pid} (a (b) c) {state} {ppid} 0 0\n")
    (entry / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")


@pytest.mark.parametrize(("argv", "form"), [
    (["/usr/bin/ollama", "runner", "--model", "m", "--port", "1"], "ollama runner"),
    (["/usr/lib/ollama/llama-server", "--model", "m", "--port", "2"], "llama-server"),
    (["/usr/bin/ollama", "serve"], None),
    (["python", "llama-server"], None),
    ([], None),
])
def test_a_runner_is_known_by_its_command_line(argv, form):
    assert runner_form(argv) == form


def test_runners_are_found_with_their_parents_and_zombies_left_out(tmp_path):
    _fake_proc(tmp_path, 10, 1, ["/bin/ollama", "serve"])
    _fake_proc(tmp_path, 11, 10, ["/lib/llama-server", "--port", "5"])
    _fake_proc(tmp_path, 12, 10, ["/bin/ollama", "runner", "--port", "6"], state="Z")
    _fake_proc(tmp_path, 13, 99, ["/bin/ollama", "runner", "--port", "7"])
    (tmp_path / "self").mkdir()
    found = runners(tmp_path)
    assert [(r.pid, r.ppid, r.form) for r in found] == [
        (11, 10, "llama-server"), (13, 99, "ollama runner")]
    assert [c.pid for c in children(10, tmp_path)] == [11]
    assert flag_value(found[0].argv, "--port") == "5"


def test_log_tail_is_one_line_of_the_last_lines():
    assert log_tail("a\n\nb\nc\n", lines=2) == "b | c"
    assert log_tail("") == "(the log is empty)"


def test_overlap_of_spans():
    serial = [Span(0, 10, 3), Span(10, 20, 3)]
    together = [Span(0, 10, 3), Span(5, 20, 3), Span(6, 7, 2)]
    assert max_overlap(serial) == 1
    assert max_overlap(together) == 3
    assert max_overlap([Span(None, None, 0)]) == 0


STREAM_DEADLINE_S = 1.0


def _stream_bodies(n: int) -> list[dict[str, object]]:
    return [{"model": "phi4", "prompt": f"count {i}", "options": {"num_predict": 6}}
            for i in range(n)]


def _breaker_client(url: str, stopped: list[str]) -> OllamaClient:
    client = OllamaClient(url, connect_timeout=STREAM_DEADLINE_S, read_timeout=STREAM_DEADLINE_S,
                          request_timeout=STREAM_DEADLINE_S, breaker=True)
    client.on_stop = stopped.append
    return client


def test_concurrent_streams_run_side_by_side_on_siblings_of_the_client():
    with FakeOllama(token_interval_s=0.01) as fake, _breaker_client(fake.url, []) as client:
        spans = concurrent_streams(client, _stream_bodies(3))
        assert [s.error for s in spans] == [None, None, None]
        assert all(s.timed for s in spans) and max_overlap(spans) == 3
        generations = [e for e in fake.exchanges if e.path == "/api/generate"]
        assert len(generations) == 3


def test_a_hung_server_costs_the_concurrent_streams_one_timeout_not_one_per_request():
    stopped: list[str] = []
    with FakeOllama() as fake, _breaker_client(fake.url, stopped) as client:
        wedge_generation(fake)
        first = concurrent_streams(client, _stream_bodies(3))
        # All three were sent at once and waited out the same deadline side by side.
        assert all(s.error and "/api/generate" in s.error for s in first), first
        assert len(stopped) == 1 and "no reply within 1 s" in stopped[0]
        asked = len(fake.exchanges)
        # The breaker is the client's: neither another probe nor the check's own next
        # request waits on the server again, and nothing more is sent.
        again = concurrent_streams(client, _stream_bodies(3))
        assert all((s.error or "").startswith("not sent: the server stopped answering")
                   for s in again), again
        with pytest.raises(ServerStopped):
            client.version()
        assert len(fake.exchanges) == asked and len(stopped) == 1


# --- the environment ------------------------------------------------------------------------------
def test_environment_drops_the_users_ollama_settings(tmp_path: Path):
    env = server_environment(
        {"PATH": "/bin", "OLLAMA_NUM_PARALLEL": "9", "OLLAMA_HOST": "0.0.0.0"},
        models=tmp_path / "m", home=tmp_path / "h", host="127.0.0.1:5", settings={},
    )
    assert env == {
        "PATH": "/bin", "HOME": str(tmp_path / "h"), "OLLAMA_MODELS": str(tmp_path / "m"),
        "OLLAMA_NO_CLOUD": "1", "OLLAMA_HOST": "127.0.0.1:5",
    }


def test_environment_without_host_leaves_ollama_host_unset(tmp_path: Path):
    env = server_environment({}, models=tmp_path, home=tmp_path, host=None,
                             settings={"OLLAMA_NUM_PARALLEL": "4"})
    assert "OLLAMA_HOST" not in env
    assert env["OLLAMA_NUM_PARALLEL"] == "4"


@pytest.mark.parametrize("key", ["OLLAMA_HOST", "OLLAMA_MODELS", "PATH"])
def test_environment_refuses_settings_the_session_owns(tmp_path: Path, key: str):
    with pytest.raises(ValueError, match=key):
        server_environment({}, models=tmp_path, home=tmp_path, host=None, settings={key: "x"})


# --- start, port, environment ---------------------------------------------------------------------
def test_a_private_server_starts_on_its_port_with_its_own_settings(servers: PrivateServers):
    server = servers.use()
    assert server.url == servers.default_url
    assert server.version == "0.31.2"
    record = servers.record_of(server)
    config = record.reported_config
    assert config is not None
    # The user's OLLAMA_* never reach the private server: defaults are Ollama's.
    assert config["OLLAMA_NUM_PARALLEL"] == "1"
    assert config["OLLAMA_HOST"] == f"http://127.0.0.1:{servers.default_port}"
    assert config["OLLAMA_MODELS"] == str(servers.models_dir)
    assert record.env_set["OLLAMA_NO_CLOUD"] == "1"
    assert server.env["HOME"] == str(servers.workdir / "home")
    names = [m["name"] for m in httpx.get(f"{server.url}/api/tags", timeout=5).json()["models"]]
    assert sorted(names) == ["example/tiny:f32", "tiny:latest"]


def test_the_server_is_restarted_only_between_groups(servers: PrivateServers):
    first = servers.use()
    assert servers.use() is first
    assert servers.use(DEFAULT_GROUP) is first
    four = Group.of("four", {"OLLAMA_NUM_PARALLEL": "4"})
    second = servers.use(four)
    assert second is not first and not first.running()
    assert second.port != servers.default_port
    assert servers.record_of(second).reported_config["OLLAMA_NUM_PARALLEL"] == "4"
    again = servers.use()
    assert again.port == servers.default_port and again is not first
    assert [r.group for r in servers.records] == ["default", "four", "default"]


def test_a_server_that_died_is_started_again(servers: PrivateServers):
    first = servers.use()
    assert first.pid is not None
    os.kill(first.pid, signal.SIGKILL)
    first.proc.wait()
    second = servers.use()
    assert second is not first and second.running()


# --- the store ------------------------------------------------------------------------------------
def test_the_users_blobs_are_shared_by_hard_link_and_manifests_copied(
    user_store: Path, tmp_path: Path
):
    before = store_snapshot(user_store)
    shared = share_store(user_store, tmp_path / "private")
    assert shared.method == "hard links" and shared.problem is None
    assert sorted(shared.models) == ["example/tiny:f32", "tiny:latest"]
    for blob in (user_store / "blobs").iterdir():
        twin = tmp_path / "private" / "blobs" / blob.name
        assert twin.stat().st_ino == blob.stat().st_ino
    for manifest in (user_store / "manifests").rglob("*"):
        if manifest.is_file():
            twin = tmp_path / "private" / manifest.relative_to(user_store)
            assert twin.read_bytes() == manifest.read_bytes()
            assert twin.stat().st_ino != manifest.stat().st_ino
    assert store_snapshot(user_store) == before


def test_a_store_that_cannot_be_linked_is_left_empty_with_the_reason(
    user_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def cross_device(src: object, dst: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(store_module.os, "link", cross_device)
    shared = share_store(user_store, tmp_path / "private")
    assert shared.method == "empty" and shared.models == []
    assert "Invalid cross-device link" in (shared.problem or "")
    assert list((tmp_path / "private" / "blobs").iterdir()) == []


def test_without_shared_blobs_the_gguf_is_imported_with_ollama_create(
    fake_ollama: Path, user_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    def cross_device(src: object, dst: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr(store_module.os, "link", cross_device)
    gguf = write_tiny_gguf(tmp_path / "bundled.gguf")
    pool = PrivateServers(fake_ollama, user_store, startup_timeout=30.0, gguf=lambda: gguf)
    try:
        server = pool.use()
        assert pool.store is not None and pool.store.method == "imported"
        models = httpx.get(f"{server.url}/api/tags", timeout=5).json()["models"]
        assert [m["name"] for m in models] == ["gemma3:270m"]
    finally:
        pool.close()


def test_the_users_store_is_unchanged_by_a_session(servers: PrivateServers, user_store: Path):
    before = store_snapshot(user_store)
    server = servers.use()
    reply = httpx.post(f"{server.url}/api/generate", timeout=10,
                       json={"model": "tiny", "prompt": "hi", "stream": False})
    assert reply.status_code == 200
    servers.close()
    assert store_snapshot(user_store) == before


def test_blob_times_a_private_server_moved_are_put_back(user_store: Path, tmp_path: Path):
    before = store_snapshot(user_store)
    shared = share_store(user_store, tmp_path / "private")
    blobs = sorted((tmp_path / "private" / "blobs").iterdir())
    # What Ollama's create does to a layer it reuses (touchLayer): the shared inode's time.
    os.utime(blobs[0])
    assert store_snapshot(user_store) != before
    assert shared.restore_times() == [blobs[0].name]
    assert store_snapshot(user_store) == before
    assert shared.restore_times() == [] and shared.restored == [blobs[0].name]


def test_a_blob_the_user_replaced_meanwhile_keeps_its_times(user_store: Path, tmp_path: Path):
    shared = share_store(user_store, tmp_path / "private")
    (path, *_), = [list(shared.times)]
    replaced = tmp_path / "replaced"
    shutil.copyfile(path, replaced)
    os.replace(path, path.with_name(path.name + ".orig"))
    try:
        os.replace(replaced, path)  # another inode, as a user's re-pull would leave it
        moved = path.stat().st_mtime_ns
        assert shared.restore_times() == []
        assert path.stat().st_mtime_ns == moved
    finally:
        os.replace(path.with_name(path.name + ".orig"), path)


def test_a_create_on_the_private_server_leaves_the_users_blob_times(
    servers: PrivateServers, user_store: Path
):
    before = store_snapshot(user_store)
    server = servers.use()
    reply = httpx.post(f"{server.url}/api/create", timeout=10,
                       json={"model": "derived", "from": "tiny", "stream": False})
    assert reply.status_code == 200
    # The fake reuses tiny's layers as a real create does: it touches them, through the link.
    assert store_snapshot(user_store) != before
    servers.stop_current()
    assert store_snapshot(user_store) == before
    assert servers.records[-1].restored_blob_times


# --- a crashed runner child -----------------------------------------------------------------------
def test_a_killed_runner_fails_its_request_and_the_next_gets_a_new_one(servers: PrivateServers):
    server = servers.use()
    with httpx.Client(timeout=10, trust_env=False) as http:
        http.post(f"{server.url}/api/generate", json={"model": "tiny", "prompt": ""})
        (runner,) = [c for c in server.children() if "--model" in c.argv]
        assert flag_value(runner.argv, "--host") == "127.0.0.1"
        os.kill(runner.pid, signal.SIGSEGV)
        assert _wait_gone(runner.pid)
        assert http.get(f"{server.url}/api/version").status_code == 200
        reply = http.post(f"{server.url}/api/generate",
                          json={"model": "tiny", "prompt": "hi", "stream": False})
        assert reply.status_code == 200
    (new,) = [c for c in server.children() if "--model" in c.argv]
    assert new.pid != runner.pid
    assert "segmentation fault" in server.log_text()


def test_the_fake_fails_a_killed_request_and_logs_it_as_a_real_server_does(
    servers: PrivateServers,
):
    """Against what a real 0.31.2 did (fixtures/recorded/ollama-serve/)."""
    import json
    import threading

    recorded = json.loads((RECORDED / "killed-runner-reply.json").read_text())
    warn = next(x for x in BUILT_LOG.read_text().splitlines() if "no longer running" in x)
    server = servers.use()
    with httpx.Client(timeout=30, trust_env=False) as http:
        http.post(f"{server.url}/api/generate", json={"model": "tiny", "prompt": ""})
        (runner,) = [c for c in server.children() if "--model" in c.argv]
        reply: dict[str, httpx.Response] = {}

        def ask() -> None:
            reply["r"] = http.post(f"{server.url}/api/generate", json={
                "model": "tiny", "prompt": "hi", "stream": False})

        asker = threading.Thread(target=ask)
        asker.start()
        deadline = time.monotonic() + 10
        while "processing task" not in server.log_text() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(runner.pid, signal.SIGSEGV)
        asker.join(30)
        assert reply["r"].status_code == recorded["status"]
        assert reply["r"].json() == recorded["body"]
        assert "no longer running" not in server.log_text()  # not yet: noticed on next use
        http.post(f"{server.url}/api/generate", json={"model": "tiny", "prompt": ""})
    line = next(x for x in server.log_text().splitlines() if "no longer running" in x)
    for part in ('level=WARN', 'msg="llama-server process no longer running"', "sys=11",
                 'string="signal: segmentation fault"'):
        assert part in warn and part in line


def test_the_fakes_runner_command_line_has_the_real_flags(servers: PrivateServers):
    real = next(x for x in BUILT_LOG.read_text().splitlines() if "starting llama-server" in x)
    real_argv = tuple(real.split('cmd="', 1)[1].rstrip('"').split())
    server = servers.use(Group.of("four", {"OLLAMA_NUM_PARALLEL": "4"}))
    httpx.post(f"{server.url}/api/generate", json={"model": "tiny", "prompt": ""}, timeout=10)
    (runner,) = [c for c in server.children() if "--model" in c.argv]
    for flag in ("--host", "-c", "-np", "--flash-attn"):
        assert flag_value(runner.argv, flag) == flag_value(real_argv, flag), flag


# --- cleanup --------------------------------------------------------------------------------------
def test_close_stops_server_and_runners_and_removes_the_folder_keeping_logs(
    servers: PrivateServers, tmp_path: Path
):
    server = servers.use()
    httpx.post(f"{server.url}/api/generate", json={"model": "tiny", "prompt": ""}, timeout=10)
    pids = [server.pid, *(c.pid for c in server.children())]
    assert len(pids) == 2
    servers.close()
    assert all(_wait_gone(pid) for pid in pids if pid is not None)
    assert not servers.workdir.exists()
    kept = tmp_path / "kept" / "01-default.log"
    assert "server config" in kept.read_text()
    assert servers.records[0].returncode == 0  # it stopped on the interrupt, not killed
    with pytest.raises(ServeError, match="already shut down"):
        servers.use()


def test_an_interrupt_while_starting_leaves_nothing_running(
    fake_ollama: Path, user_store: Path, monkeypatch: pytest.MonkeyPatch
):
    from claims.probes.live.ollama_serve.server import OllamaServe

    started: list[int] = []

    def interrupted(self: OllamaServe, deadline: float) -> str:
        assert self.pid is not None
        started.append(self.pid)
        raise KeyboardInterrupt

    monkeypatch.setattr(OllamaServe, "_wait_ready", interrupted)
    pool = PrivateServers(fake_ollama, user_store)
    try:
        with pytest.raises(KeyboardInterrupt):
            pool.use()
    finally:
        pool.close()
    assert started and _wait_gone(started[0])


# --- failures to start ----------------------------------------------------------------------------
def test_a_server_that_never_answers_times_out_with_its_log(tmp_path: Path, user_store: Path):
    hung = write_executable(tmp_path / "bin" / "ollama", mode="hang")
    pool = PrivateServers(hung, user_store, startup_timeout=1.5)
    try:
        with pytest.raises(StartupTimeout) as info:
            pool.use()
        pid = pool.records[0].pid
    finally:
        pool.close()
    message = str(info.value)
    assert "did not answer" in message and "1.5 s" in message
    assert 'msg="server config"' in message  # the log's tail is in the reason
    assert pid is None  # never recorded as started
    assert pool.records[0].returncode is not None


def test_a_binary_that_exits_at_once_is_reported_with_its_status(
    tmp_path: Path, user_store: Path
):
    broken = write_executable(tmp_path / "bin" / "ollama", mode="exit")
    pool = PrivateServers(broken, user_store)
    try:
        with pytest.raises(ServerExited) as info:
            pool.use()
    finally:
        pool.close()
    assert info.value.returncode == 1
    assert "exited with status 1" in str(info.value)
    assert "told to exit at once" in str(info.value)


def test_a_binary_that_cannot_run_is_a_clear_error(tmp_path: Path, user_store: Path):
    missing = tmp_path / "nothing-here"
    pool = PrivateServers(missing, user_store)
    try:
        with pytest.raises(ServeError, match="cannot run"):
            pool.use()
    finally:
        pool.close()


@pytest.fixture
def taken_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


def test_the_default_port_taken_is_port_in_use(servers: PrivateServers, taken_port: int):
    servers.default_port = taken_port
    with pytest.raises(PortInUse, match="address already in use"):
        servers.use()


def test_a_group_port_taken_meanwhile_is_retried_on_another(
    servers: PrivateServers, taken_port: int, monkeypatch: pytest.MonkeyPatch
):
    from claims.probes.live.ollama_serve import session

    offered = iter([taken_port, ports_module.free_port(), ports_module.free_port()])
    monkeypatch.setattr(session, "free_port", lambda: next(offered))
    server = servers.use(Group.of("retry", {"OLLAMA_NUM_PARALLEL": "2"}))
    assert server.port != taken_port and server.running()
    assert [r.returncode for r in servers.records] == [1, None]


def test_the_default_bind_needs_port_11434_free(servers: PrivateServers):
    blocker = None
    if port_is_free(DEFAULT_PORT):
        blocker = socket.socket()
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        blocker.bind(("127.0.0.1", DEFAULT_PORT))
        blocker.listen()
    try:
        with pytest.raises(PortInUse, match="11434 is taken"):
            servers.use(Group.of("bind", default_bind=True))
    finally:
        if blocker is not None:
            blocker.close()


def test_rename_gguf_changes_one_letter_of_general_name_and_nothing_else(tmp_path):
    import gguf

    from claims.probes.files.gguf_file import read_header
    from claims.probes.live.ollama_serve import rename_gguf
    from claims.testing.store_builder import write_tiny_gguf

    plain = write_tiny_gguf(tmp_path / "plain.gguf")
    assert rename_gguf(plain) is None  # no general.name: nothing to change
    named = tmp_path / "named.gguf"
    writer = gguf.GGUFWriter(str(named), "llama")
    writer.add_name("Tiny")
    writer.add_block_count(1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()
    before = named.read_bytes()
    assert rename_gguf(named) == "TinX"
    after = named.read_bytes()
    assert len(after) == len(before)
    assert sum(a != b for a, b in zip(before, after, strict=True)) == 1
    assert read_header(named).get("general.name") == "TinX"
    assert rename_gguf(named) == "TinY"  # an X becomes a Y: always another name
