"""Raw-socket servers on 127.0.0.1 that stall an HTTP client in one particular way.

:class:`~claims.testing.fake_ollama.FakeOllama` speaks HTTP through the standard
library, which cannot send a malformed or endless response head. These servers
write the bytes themselves, one kind of stall each (:data:`KINDS`), to check that
every wait of the Ollama client ends by the user's ``--ollama-timeout``:

* ``connect``: a listening socket whose accept queue is full, so a new
  connection's handshake is never answered;
* ``headers``: the status line and headers, one byte every ``interval_s``;
* ``interim``: ``HTTP/1.1 102 Processing`` interim responses, one after another;
* ``body``: full headers, then a fixed-length JSON body one byte at a time;
* ``stream``: a chunked NDJSON stream whose line never ends (a byte at a time);
* ``slow``: a whole ``/api/version`` reply, but only after ``delay_s``.

Every stall gives up after ``give_up_s`` (so a client without a deadline still
lets the test end, and fail); :meth:`StallingServer.close` stops it at once.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Literal, Self

__all__ = ["KINDS", "Stall", "StallingServer"]

Stall = Literal["connect", "headers", "interim", "body", "stream", "slow"]
KINDS: tuple[Stall, ...] = ("connect", "headers", "interim", "body", "stream", "slow")

_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n"
_VERSION = b'{"version":"0.32.15"}'


class StallingServer:
    """One loopback server stalling each connection in the way ``kind`` says."""

    def __init__(
        self,
        kind: Stall,
        *,
        interval_s: float = 0.1,
        delay_s: float = 0.0,
        give_up_s: float = 60.0,
    ) -> None:
        self.kind = kind
        self.interval_s = interval_s
        self.delay_s = delay_s
        self.give_up_s = give_up_s
        self._stop = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._fillers: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        if kind == "connect":
            self._listener.listen(0)
            self._fill_backlog()
        else:
            self._listener.listen(16)
            self._listener.settimeout(0.1)
            self._start(self._accept_loop)

    # --- lifecycle -----------------------------------------------------------------
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        for sock in (*self._fillers, self._listener):
            with contextlib.suppress(OSError):
                sock.close()

    def _start(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        self._threads.append(thread)
        thread.start()

    # --- the stalls ------------------------------------------------------------------
    def _fill_backlog(self) -> None:
        """Connect until the kernel stops answering handshakes (the accept queue is full)."""
        for _ in range(64):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(("127.0.0.1", self.port))
            self._fillers.append(sock)
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probe.settimeout(0.2)
            try:
                probe.connect(("127.0.0.1", self.port))
            except OSError:
                return  # timed out: new connections now wait
            finally:
                probe.close()
        raise RuntimeError("could not fill the listening socket's accept queue")

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._start(self._serve, conn)

    def _wait(self, seconds: float) -> bool:
        """Sleep; False once the server is closing."""
        return not self._stop.wait(seconds)

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(1.0)
            try:
                conn.recv(65536)  # the request (small: a GET or a short JSON POST)
                self._stall(conn)
            except OSError:
                return  # the client gave up and closed: what a bounded client does

    def _stall(self, conn: socket.socket) -> None:
        ends = time.monotonic() + self.give_up_s
        if self.kind == "slow":
            if self._wait(self.delay_s):
                conn.sendall(_HEAD.replace(b"20", str(len(_VERSION)).encode()) + _VERSION)
            return
        if self.kind == "headers":
            data = _HEAD + b"\r\n" * 10_000  # never a complete head before give_up_s
            for i in range(len(data)):
                if time.monotonic() > ends or not self._wait(self.interval_s):
                    return
                conn.sendall(data[i : i + 1])
            return
        if self.kind == "interim":
            while time.monotonic() < ends and self._wait(self.interval_s):
                conn.sendall(b"HTTP/1.1 102 Processing\r\n\r\n")
            return
        if self.kind == "body":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100000\r\n\r\n{")
            while time.monotonic() < ends and self._wait(self.interval_s):
                conn.sendall(b" ")
            return
        if self.kind == "stream":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n")
            conn.sendall(b'1\r\n{\r\n')
            while time.monotonic() < ends and self._wait(self.interval_s):
                conn.sendall(b"1\r\n \r\n")
            return
