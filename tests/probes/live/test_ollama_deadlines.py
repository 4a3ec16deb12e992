"""The transport against hostile servers (issue 22): deadlines, stream bounds, the breaker,
redirects and credentials.

Each case runs against the fake's hostile modes on 127.0.0.1
(:func:`~claims.testing.fake_ollama.wedge_generation`,
:func:`~claims.testing.fake_ollama.never_finish_streams`) or an httpx mock
transport, and checks the exact error; no assertion is a time budget.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from claims.probes.live.ollama_api import OllamaClient, ServerHTTPError, ServerTimeout, StreamError
from claims.probes.live.ollama_api.errors import ServerStopped
from claims.probes.live.ollama_api.transport import STREAM_MARGIN_LINES, stream_line_bound
from claims.testing.fake_ollama import FakeOllama, never_finish_streams, wedge_generation

DEADLINE_S = 1.0  # the request timeout every case runs under
PROMPT = "Explain Kubernetes scheduling in three sentences."


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


def client_for(url: str, **kwargs: Any) -> OllamaClient:
    return OllamaClient(url, connect_timeout=DEADLINE_S, read_timeout=DEADLINE_S,
                        request_timeout=DEADLINE_S, **kwargs)


def body(num_predict: int | None = 16) -> dict[str, Any]:
    out: dict[str, Any] = {"model": "phi4", "prompt": PROMPT, "stream": True}
    if num_predict is not None:
        out["options"] = {"num_predict": num_predict}
    return out


def test_a_never_ending_stream_ends_at_the_request_deadline_even_when_asked_for_longer(fake):
    never_finish_streams(fake, interval_s=0.05)
    with client_for(fake.url) as client, pytest.raises(ServerTimeout) as caught:
        # A test asking for 600 s (as the timing tests do) still gets the deadline.
        list(client.stream("/api/generate", body(num_predict=None), total_timeout=600.0))
    assert "stream still running after 1 s" in str(caught.value)
    assert "past its deadline" in str(caught.value)


def test_a_stream_past_its_num_predict_bound_is_cut_and_says_so(fake):
    never_finish_streams(fake, interval_s=0.001)
    with OllamaClient(fake.url, read_timeout=30.0, request_timeout=30.0) as client:
        lines = client.stream("/api/generate", body(num_predict=4))
        with pytest.raises(StreamError) as caught:
            list(lines)
    bound = 4 + 1 + STREAM_MARGIN_LINES
    assert caught.value.line == bound + 1
    assert str(caught.value) == (
        f"/api/generate, line {bound + 1}: stopped reading: {bound} lines without the final "
        f"object (done: true), past the request's own bound (num_predict=4, so at most 5 lines "
        f"+ {STREAM_MARGIN_LINES})"
    )


@pytest.mark.parametrize(
    ("path", "request_body", "bound"),
    [
        ("/api/generate", {"options": {"num_predict": 96}}, 96 + 1 + 24),
        ("/api/chat", {"options": {"num_predict": 8}}, 8 + 1 + STREAM_MARGIN_LINES),
        ("/api/generate", {"options": {"num_predict": -1}}, None),  # "until it stops"
        ("/api/generate", {}, None),
        ("/api/pull", {"options": {"num_predict": 8}}, None),
    ],
)
def test_the_stream_bound_follows_num_predict(path, request_body, bound):
    found = stream_line_bound(path, request_body)
    assert (found[0] if found else None) == bound


def test_a_wedged_server_costs_one_timeout_then_the_breaker_answers_at_once(fake):
    wedge_generation(fake)
    stopped: list[str] = []
    with client_for(fake.url, breaker=True) as client:
        client.on_stop = stopped.append
        assert client.version() == fake.version  # the wedged runner still answers this
        with pytest.raises(ServerTimeout):
            client.post_json("/api/generate", {**body(), "stream": False})
        asked = len(fake.exchanges)
        with pytest.raises(ServerStopped) as caught:
            client.version()
        with pytest.raises(ServerStopped):
            list(client.stream("/api/chat", {"model": "phi4", "messages": []}))
    assert len(fake.exchanges) == asked  # nothing more was sent
    assert stopped == ["POST /api/generate: no reply within 1 s (ReadTimeout)"]
    assert str(caught.value) == (
        "not sent: the server stopped answering (POST /api/generate: no reply within 1 s "
        "(ReadTimeout))"
    )


def test_a_sibling_shares_the_timeouts_and_the_breaker(fake):
    wedge_generation(fake)
    stopped: list[str] = []
    with client_for(fake.url, breaker=True, auth=("user", "pw")) as client:
        client.on_stop = stopped.append
        with client.sibling() as sibling:
            assert (sibling.host, sibling.request_timeout, sibling.stall_timeout, sibling.auth) == (
                client.host, client.request_timeout, client.stall_timeout, client.auth)
            with pytest.raises(ServerTimeout):
                sibling.post_json("/api/generate", {**body(), "stream": False})
        asked = len(fake.exchanges)
        with pytest.raises(ServerStopped):  # the sibling's timeout stopped the client too
            client.version()
    assert len(fake.exchanges) == asked
    assert stopped == ["POST /api/generate: no reply within 1 s (ReadTimeout)"]


def test_on_stop_needs_a_breaker(fake):
    with client_for(fake.url) as client:
        assert client.stopped is None and client.on_stop is None
        with pytest.raises(ValueError, match="breaker"):
            client.on_stop = print


def test_without_the_breaker_a_timeout_stops_nothing(fake):
    wedge_generation(fake)
    with client_for(fake.url) as client:
        with pytest.raises(ServerTimeout):
            client.post_json("/api/generate", {**body(), "stream": False})
        assert client.version() == fake.version


def mock_client(handler: Any, **kwargs: Any) -> OllamaClient:
    return OllamaClient("http://127.0.0.1:9", transport=httpx.MockTransport(handler), **kwargs)


def test_a_redirect_is_reported_as_one_not_as_an_empty_json_reply():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "http://127.0.0.1:9/login"})

    with mock_client(handler) as client, pytest.raises(ServerHTTPError) as caught:
        client.version()
    assert caught.value.status == 302
    assert str(caught.value).startswith(
        "/api/version: HTTP 302: a redirect to http://127.0.0.1:9/login (not followed"
    )


def test_credentials_are_sent_as_basic_auth_to_the_host_and_kept_out_of_its_url():
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"version": "0.31.2"})

    with mock_client(handler, auth=("user", "s3cret")) as client:
        assert client.version() == "0.31.2"
        assert "s3cret" not in client.host
    (request,) = seen
    assert request.headers["authorization"] == "Basic " + base64.b64encode(b"user:s3cret").decode()
    assert (request.url.host, request.url.port) == ("127.0.0.1", 9)


def test_a_reply_body_that_trickles_ends_at_the_deadline_not_a_fresh_wait():
    import time

    def trickle() -> Iterator[bytes]:
        for _ in range(200):  # bounded: 20 s at most if the deadline failed
            time.sleep(0.1)
            yield b" "

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=trickle())

    client = mock_client(handler, read_timeout=DEADLINE_S, request_timeout=DEADLINE_S)
    with client, pytest.raises(ServerTimeout) as caught:
        client.version()
    assert str(caught.value) == "/api/version: reply body still incomplete after 1 s"


def test_a_request_gets_the_shorter_of_its_own_total_and_the_deadline_and_only_a_pull_more():
    with OllamaClient("http://127.0.0.1:9", request_timeout=5.0) as client:
        assert client._deadline(600.0).seconds == 5.0  # the timing tests' 600 s
        assert client._deadline(2.0).seconds == 2.0
        assert client._deadline(None).seconds == 5.0
        assert client._deadline(3600.0, outlast=True).seconds == 3600.0  # pull, opt-in
    with OllamaClient("http://127.0.0.1:9") as client:  # no deadline set: as before
        assert client._deadline(600.0).seconds == 600.0 and client._deadline().seconds is None
