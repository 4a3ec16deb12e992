"""One deadline for every wait (issue 35): the client against servers that stall on purpose.

Each kind of stall (:mod:`claims.testing.stalling_server`) keeps bytes coming, or
none, so that no single wait on the socket reaches a timeout; the request must
still end by the client's deadline (the user's ``--ollama-timeout``), with a
:class:`~claims.probes.live.ollama_api.errors.ServerTimeout`. The bound asserted
is relative: twice the deadline. A request with no deadline would run until the
server gives up (a minute): the request runs on a thread of its own, so such a
failure ends the test instead of hanging it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from claims.probes.errors import ProbeError
from claims.probes.live.ollama_api import OllamaClient, ServerTimeout
from claims.probes.live.ollama_api.errors import ServerStopped
from claims.testing.stalling_server import StallingServer

DEADLINE_S = 1.5


def _timed(call: Any) -> tuple[float, BaseException | None]:
    """Seconds ``call`` took and what it raised, given up (as a failure) after 10 deadlines."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        started = time.monotonic()
        try:
            call()
        except BaseException as exc:  # handed back to the test
            outcome["raised"] = exc
        outcome["seconds"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(10 * DEADLINE_S)
    if thread.is_alive():
        pytest.fail(f"the request was still waiting after {10 * DEADLINE_S:g} s "
                    f"(deadline {DEADLINE_S:g} s)")
    return outcome["seconds"], outcome.get("raised")


def _client(url: str) -> OllamaClient:
    # Per-wait timeouts far longer than the deadline: only the deadline may end these.
    return OllamaClient(url, connect_timeout=30.0, read_timeout=30.0, stall_timeout=30.0,
                        request_timeout=DEADLINE_S)


@pytest.mark.parametrize("kind", ["headers", "interim", "body"])
def test_a_plain_request_ends_by_its_deadline_whatever_the_server_trickles(kind):
    with StallingServer(kind, interval_s=0.05) as server, _client(server.url) as client:
        took, raised = _timed(client.version)
    assert isinstance(raised, ServerTimeout), raised
    assert took < 2 * DEADLINE_S


def test_a_trickled_head_is_no_reply_within_the_deadline():
    with StallingServer("headers", interval_s=0.05) as server, _client(server.url) as client:
        _, raised = _timed(client.version)
    assert str(raised) == f"/api/version: no reply within {DEADLINE_S:g} s (ReadTimeout)"


@pytest.mark.parametrize("kind", ["headers", "interim", "stream"])
def test_a_stream_ends_by_its_deadline_whatever_the_server_trickles(kind):
    body = {"model": "phi4", "prompt": "hi", "options": {"num_predict": 8}}
    with StallingServer(kind, interval_s=0.05) as server, _client(server.url) as client:
        took, raised = _timed(lambda: list(client.stream("/api/generate", body)))
    assert isinstance(raised, ServerTimeout), raised
    assert took < 2 * DEADLINE_S


def test_a_connection_never_accepted_ends_by_the_deadline():
    with StallingServer("connect") as server, _client(server.url) as client:
        took, raised = _timed(client.version)
    assert isinstance(raised, ProbeError), raised
    assert took < 2 * DEADLINE_S


def test_a_reply_within_the_deadline_is_read():
    with StallingServer("slow", delay_s=0.2) as server, _client(server.url) as client:
        assert client.version() == "0.32.15"


def test_the_breaker_stops_the_next_request_after_a_trickled_head():
    with StallingServer("interim", interval_s=0.05) as server, \
            OllamaClient(server.url, read_timeout=30.0, request_timeout=DEADLINE_S,
                         breaker=True) as client:
        _timed(client.version)
        took, raised = _timed(client.tags)
    assert isinstance(raised, ServerStopped), raised
    assert took < DEADLINE_S
