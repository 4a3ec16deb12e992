"""The one Ollama client factory (issue 33 item 4, issue 35): the user's deadline everywhere.

The ollama tier's reachability probe, the claim tests' session client and the look
at the user's server are all built by
:func:`claims.probes.live.ollama_api.factory.client_from`, so each waits as long as
``--ollama-timeout`` says, no fixed 3/10/10 s of its own, both ways.
"""

from __future__ import annotations

from dataclasses import dataclass

from claims.plugin.serve import UserServerSnapshot
from claims.probes.live.ollama_api.factory import CONNECT_S, STALL_S, client_for, client_from
from claims.testing.stalling_server import StallingServer
from claims.tiers import OLLAMA


@dataclass(frozen=True)
class Settings:
    ollama_host: str
    ollama_timeout: float
    ollama_auth: tuple[str, str] | None = None
    ollama_remote: bool = False
    ollama_serve: None = None
    engine_model: None = None
    models_dir: None = None
    markexpr: str = ""


def test_the_client_takes_every_limit_from_the_users_timeout():
    with client_for("http://127.0.0.1:9", 2.0, auth=("u", "p"), breaker=True) as client:
        assert client.request_timeout == 2.0
        assert client.read_timeout == 2.0
        assert client.connect_timeout == min(CONNECT_S, 2.0)
        assert client.stall_timeout == min(STALL_S, 2.0)
        assert client.breaker is not None and client.auth == ("u", "p")
    with client_from(Settings("http://127.0.0.1:9", 300.0)) as client:
        assert client.request_timeout == client.read_timeout == 300.0
        assert client.breaker is None


def test_the_reachability_probe_refuses_a_reply_slower_than_the_users_deadline():
    # On 4f018a0 the probe waited a fixed 10 s: a reply after 1.5 s passed a 0.5 s deadline.
    with StallingServer("slow", delay_s=1.5) as server:
        status = OLLAMA.detect(Settings(server.url, ollama_timeout=0.5))
    assert not status.available
    assert "no reply within 0.5 s" in str(status.reason)


def test_the_reachability_probe_waits_as_long_as_the_users_deadline():
    with StallingServer("slow", delay_s=1.0) as server:
        status = OLLAMA.detect(Settings(server.url, ollama_timeout=5.0))
    assert status.available, status.reason
    assert status.details["version"] == "0.32.15"


def test_the_look_at_the_users_server_keeps_the_users_deadline():
    with StallingServer("slow", delay_s=1.5) as server:
        state = UserServerSnapshot(server.url, None, timeout=0.5).take()
    assert "no reply within 0.5 s" in state["unreachable"]
