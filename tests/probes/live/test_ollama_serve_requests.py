"""claims.probes.live.ollama_serve.requests: plain requests whose reply is the measurement,
sent to the suite's loopback fake of an Ollama server."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from claims.probes.live.ollama_serve import InFlight, origin_replies, version_status
from claims.testing.fake_ollama import FakeOllama


@pytest.fixture(scope="module")
def fake():
    with FakeOllama(token_interval_s=0.001) as server:
        yield server


class _Cors(BaseHTTPRequestHandler):
    """Ollama's rule in small: a page of localhost is served and named, another refused."""

    def do_GET(self) -> None:
        origin = self.headers.get("Origin", "")
        local = origin.startswith("http://localhost")
        self.send_response(200 if local else 403)
        if local:
            self.send_header("Access-Control-Allow-Origin", origin)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def cors() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Cors)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_each_origin_gets_the_status_and_allowed_origin_a_page_of_it_would(cors):
    replies = origin_replies(cors, ("http://claims-suite.invalid", "http://localhost:8080"))
    assert replies == {
        "http://claims-suite.invalid": {"status": 403, "allow-origin": None},
        "http://localhost:8080": {"status": 200, "allow-origin": "http://localhost:8080"},
    }


def test_a_server_that_answers_gives_its_status(fake):
    assert version_status(fake.url) == 200


def test_a_request_in_flight_ends_with_the_servers_reply(fake):
    model = next(iter(fake.models))
    asker = InFlight(fake.url, {"model": model, "prompt": "hi", "options": {"num_predict": 4}})
    assert asker.done.wait(60.0)
    asker.join(10.0)
    assert asker.reply["status"] == 200 and '"done":true' in asker.reply["body"].replace(" ", "")


def test_a_request_in_flight_to_nobody_ends_with_the_transport_error():
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    asker = InFlight(f"http://127.0.0.1:{port}", {"model": "m", "prompt": "hi"})
    assert asker.done.wait(30.0)
    assert asker.reply["status"] is None and asker.reply["body"].startswith("ConnectError")
