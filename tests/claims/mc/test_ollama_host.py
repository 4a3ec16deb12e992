"""The masterclass's claims read from the server's host (the ollama tier): the default
listening address, how the server reaches its runner, and the CLI's commands.
Each needs the suite to run on the server's own machine.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from claims.probes.live.loopback import is_loopback
from claims.probes.live.ollama_defaults import DEFAULT_PORT
from claims.testkit import not_run

pytestmark = pytest.mark.ollama


# --- 6.1 / Q26: the listening address ------------------------------------------------------
@pytest.mark.claim("MC-HOST-DEFAULT")
def test_default_bind_address(live, check):
    from claims.probes.live.listeners import listeners, owner_environment

    parts = urlsplit(live.settings.ollama_host)
    if not is_loopback(parts.hostname):
        not_run(
            "the listening address is read from this machine's socket table; the server "
            f"under test is at {parts.hostname}. Run the suite on the server's host to check it"
        )
    port = parts.port or DEFAULT_PORT
    if port != DEFAULT_PORT:
        not_run(
            f"the server listens on port {port}, so it was started with OLLAMA_HOST; the "
            "default bind is not observable. A server started without OLLAMA_HOST runs it"
        )
    found = listeners(port)
    if not found:
        not_run(
            f"no socket on this machine listens on port {port}: the server runs in "
            "another network namespace (a container) or elsewhere. Run the suite in the "
            "server's own network namespace to check it"
        )
    env = owner_environment(found[0].inode, ("OLLAMA_HOST",))
    if env and env.get("OLLAMA_HOST"):
        not_run(
            f"the server was started with OLLAMA_HOST={env['OLLAMA_HOST']}; its default "
            "bind is not observable. A server started without OLLAMA_HOST runs it"
        )
    check.observe(
        "server environment",
        "readable, no OLLAMA_HOST"
        if env is not None
        else "not readable (another user's process); a bind set by OLLAMA_HOST would look the same",
    )
    shown = [
        f"[{s.address}]:{s.port}" if ":" in s.address else f"{s.address}:{s.port}" for s in found
    ]
    check.observe("listening sockets", shown, note="from /proc/net/tcp and /proc/net/tcp6")
    check.against("default bind", ", ".join(sorted(set(shown))))
    check.against("default address, in Q26", ", ".join(sorted({s.address for s in found})))


# --- 1.2: how the server reaches its runner ---------------------------------------------------
@pytest.mark.claim("MC-RUNNER-IPC")
def test_runner_transport(live, check):
    from claims.probes.live.listeners import listeners, listening_pid
    from claims.probes.live.ollama_serve import runners

    parts = urlsplit(live.settings.ollama_host)
    if not is_loopback(parts.hostname):
        not_run(
            "the runner process is found in this machine's /proc; the server is remote. "
            "Run the suite on the server's own host to check it"
        )
    live.client.load(live.model_name)  # a runner exists only while a model is loaded
    found = runners()
    # Several servers may run here (other users, other ports): take the runners whose
    # parent is the server that listens on the address under test.
    server_pid = listening_pid(parts.port or DEFAULT_PORT)
    check.observe(
        "server process",
        server_pid,
        note=f"owner of the socket listening on port {parts.port or DEFAULT_PORT}"
        if server_pid is not None
        else "the listening socket's owner is not readable here",
    )
    mine = [r for r in found if server_pid is not None and r.ppid == server_pid]
    if not mine:
        seen = ", ".join(f"{r.form} (pid {r.pid}, parent {r.ppid})" for r in found)
        not_run(
            "no runner child of the server under test is visible in /proc (a container, or "
            f"another PID namespace); runners seen: {seen or 'none'}. Run the suite on the "
            "server's own host, outside a container, to check it"
        )
    pid, form, argv = mine[0].pid, mine[0].form, list(mine[0].argv)
    check.attach("runner command line", " ".join(argv))
    check.observe("runner", form, note=f"pid {pid}, child of the server (pid {server_pid})")
    port = int(argv[argv.index("--port") + 1]) if "--port" in argv else None
    if port is None:
        # Without a port the runner may well talk over a socket file or a pipe: the
        # command line cannot tell, so this is no evidence against the claim.
        not_run(
            f"the runner (pid {pid}) has no --port argument; its transport cannot be read "
            "from its command line"
        )
    sockets = listeners(port)
    shown = sorted({f"{s.address}:{s.port}" for s in sockets})
    check.observe("runner's listening sockets", shown, note=f"pid {pid}, --port {port}")
    transport = f"HTTP over TCP {', '.join(shown)}" if shown else f"TCP port {port} (not listening)"
    check.against("transport", transport, note="the runner's --port argument and its socket")


# --- 7.1 / 2.6: the CLI --------------------------------------------------------------------------
@pytest.mark.claim("MC-CLI-COMMANDS")
def test_cli_commands(live, check, catalog):
    from claims.probes.files.ollama_cli import cli_help

    shown = cli_help()
    if shown is None:
        not_run("the ollama CLI is not on PATH on this machine; put it on PATH to run it")
    check.attach("ollama --help", shown.text)
    commands = list(shown.commands)
    check.observe("commands the CLI lists", commands)
    stated = list(catalog.get("MC-CLI-COMMANDS").figure("commands").values)
    check.against(
        "commands",
        [c for c in stated if c in commands],
        unordered=True,
        note="the stated commands the CLI lists",
    )
    check.against("tag command", "tag" in commands)
