"""One ``ollama serve`` process the suite started: start, wait until it answers, stop.

Modelled on Ollama's own integration tests (``integration/utils_test.go``): the
binary runs ``serve`` with ``OLLAMA_HOST`` set to a free loopback port, its output
goes to a log, readiness is polled over HTTP, and it is stopped with an interrupt.
Beyond that: startup is bounded by a timeout (the reason quotes the log's tail), a
process that exits early is reported with its status, and the server runs in its
own process group so that stopping it also ends any runner it left behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from claims.probes.live.ollama_api.breaker import Breaker
from claims.probes.live.ollama_serve.errors import (
    PortInUse,
    ServeError,
    ServerExited,
    StartupTimeout,
)
from claims.probes.live.ollama_serve.processes import ChildProcess, children

__all__ = ["OllamaServe", "log_tail"]

POLL_S = 0.1
STOP_TIMEOUT_S = 10.0
TAIL_LINES = 15
MAX_LOG_READ = 4 << 20  # the log is read from its end; a runaway log costs no more than this
_IN_USE = ("address already in use", "only one usage of each socket address")


def log_tail(text: str, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` non-empty lines of a log, joined with " | " for a one-line reason."""
    kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(kept) if kept else "(the log is empty)"


@dataclass
class OllamaServe:
    """``<binary> serve`` with ``env``, reached at ``http://<host>:<port>``.

    ``env`` is the whole environment (see
    :func:`~claims.probes.live.ollama_serve.environment.server_environment`); ``host``
    and ``port`` are where the server will listen, as ``env`` tells it to (or
    its default).

    ``breaker`` is shared by every client of this server (the checks' and the
    concurrency probe's streams): once a request to it timed out, none waits on it
    again. A restarted server is another object with a closed breaker.
    """

    binary: Path
    env: Mapping[str, str]
    host: str
    port: int
    log_path: Path
    startup_timeout: float = 60.0
    proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    version: str | None = field(default=None, init=False)
    started_s: float | None = field(default=None, init=False)
    returncode: int | None = field(default=None, init=False)
    breaker: Breaker = field(default_factory=Breaker, init=False, repr=False)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    # --- lifecycle -----------------------------------------------------------------
    def start(self) -> OllamaServe:
        """Start the server and wait until GET /api/version answers; ServeError if not."""
        if self.proc is not None:
            raise ServeError(f"{self.binary} serve was already started")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            try:
                self.proc = subprocess.Popen(
                    [str(self.binary), "serve"],
                    env=dict(self.env),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group: see stop()
                )
            except OSError as exc:
                raise ServeError(f"cannot run {self.binary}: {exc.strerror or exc}") from None
        began = time.monotonic()
        try:
            self.version = self._wait_ready(began + self.startup_timeout)
        except BaseException:
            # Ctrl-C or a failed start: leave nothing running.
            self.stop()
            raise
        self.started_s = round(time.monotonic() - began, 3)
        return self

    def _wait_ready(self, deadline: float) -> str:
        assert self.proc is not None
        with httpx.Client(timeout=httpx.Timeout(2.0, connect=1.0), trust_env=False) as client:
            while True:
                code = self.proc.poll()
                if code is not None:
                    raise self._exited(code)
                try:
                    reply = client.get(f"{self.url}/api/version")
                    version = reply.json().get("version") if reply.status_code == 200 else None
                    if isinstance(version, str):
                        return version
                except (httpx.HTTPError, ValueError, AttributeError):
                    pass  # not listening yet, or not yet answering
                if time.monotonic() >= deadline:
                    raise StartupTimeout(
                        f"{self.binary} serve did not answer at {self.url} within "
                        f"{self.startup_timeout:g} s; log: {log_tail(self.log_text())}"
                    )
                time.sleep(POLL_S)

    def _exited(self, code: int) -> ServerExited:
        text = self.log_text()
        what = f"signal {-code}" if code < 0 else f"status {code}"
        message = (
            f"{self.binary} serve exited with {what} before answering at {self.url}; "
            f"log: {log_tail(text)}"
        )
        if any(marker in text.lower() for marker in _IN_USE):
            return PortInUse(message, returncode=code)
        return ServerExited(message, returncode=code)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> int | None:
        """Interrupt the server, wait for it, then end whatever is left of its group.

        Ollama stops its runners when interrupted; the group kill is for a server
        that hangs or crashed and left a runner behind (a runner the isolation check
        killed is already gone). Returns the exit status (negative: a signal).
        """
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is empty
            os.killpg(proc.pid, signal.SIGKILL)
        self.returncode = proc.returncode
        return self.returncode

    # --- observation ---------------------------------------------------------------
    def log_text(self) -> str:
        """The server's log so far (its last 4 MiB at most), as text."""
        try:
            with open(self.log_path, "rb") as log:
                size = log.seek(0, os.SEEK_END)
                log.seek(max(0, size - MAX_LOG_READ))
                return log.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def children(self) -> list[ChildProcess]:
        """The server's live child processes (its runners), from /proc."""
        pid = self.pid
        return children(pid) if pid is not None and self.running() else []
