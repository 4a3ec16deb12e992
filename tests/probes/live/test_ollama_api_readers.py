"""Small readers of Ollama's answers: version strings, time stamps, the embedding-model pick."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from claims.probes.live.ollama_api import ServerHTTPError
from claims.probes.live.ollama_api.embedding_model import pick_embedding_model
from claims.probes.live.ollama_api.stamps import parse_time, parse_version


@pytest.mark.parametrize(("text", "parsed"), [
    ("0.31.2", (0, 31, 2)), ("v0.6.7-rc1", (0, 6, 7)), (" 1.2.3 ", (1, 2, 3)),
    ("0.31", None), ("dev", None), ("", None),
])
def test_versions_read_as_three_numbers(text, parsed):
    assert parse_version(text) == parsed


def test_nanosecond_time_stamps_read_to_the_microsecond():
    a = parse_time("2026-12-04T10:00:00.123456789Z")
    b = parse_time("2026-12-04T10:05:00.123456+00:00")
    assert b - a == timedelta(minutes=5) and a.tzinfo is not None


class StubClient:
    def __init__(self, tags: list[dict[str, Any]], shows: dict[str, list[str]],
                 embeds: bool) -> None:
        self._tags, self._shows, self._embeds = tags, shows, embeds
        self.shown: list[str] = []

    def tags(self) -> list[dict[str, Any]]:
        return self._tags

    def show(self, model: str, *, verbose: bool = False) -> dict[str, Any]:
        self.shown.append(model)
        return {"capabilities": self._shows.get(model, [])}

    def embed(self, model: str, inputs: Any) -> dict[str, Any]:
        if not self._embeds:
            raise ServerHTTPError(400, "this model does not support embeddings", "/api/embed")
        return {"embeddings": [[0.1]]}


def test_the_named_embedding_model_is_taken_when_the_server_has_it():
    client = StubClient([{"name": "nomic-embed-text:latest"}], {}, embeds=False)
    assert pick_embedding_model(client, "nomic-embed-text", "gemma3", allow_pull=False).name \
        == "nomic-embed-text"


def test_a_listed_model_with_the_embedding_capability_is_found_within_the_limit():
    tags = [{"name": f"m{i}"} for i in range(5)] + [{"name": "e"}]
    client = StubClient(tags, {"e": ["embedding"]}, embeds=False)
    pick = pick_embedding_model(client, "nomic", "gemma3", allow_pull=False)
    assert pick.name == "e" and pick.why == "capabilities ['embedding']"
    beyond = pick_embedding_model(StubClient(tags, {"e": ["embedding"]}, embeds=False),
                                  "nomic", "gemma3", allow_pull=False, limit=3)
    assert beyond.name is None


def test_without_one_the_reason_gives_the_servers_answer_and_what_to_pass():
    client = StubClient([{"name": "g", "capabilities": ["completion"]}], {}, embeds=False)
    pick = pick_embedding_model(client, "nomic", "g", allow_pull=False)
    assert pick.name is None and client.shown == []  # listed capabilities need no /api/show
    text = pick.missing("nomic", "g")
    assert "g: completion" in text and "does not support embeddings" in text
    assert "--ollama-embed-model" in text
    assert pick_embedding_model(StubClient([], {}, embeds=True), "nomic", "g",
                                allow_pull=False).name == "g"


def test_the_suites_own_sdk_requests_are_counted_as_its_own():
    from claims.probes.live.ollama_api.usage import Usage, bounded

    usage = Usage()
    body = {"model": "m", "prompt": "hi", "options": bounded(4)}
    usage.external("/api/generate", body, {"eval_count": 3})
    usage.external("/v1/chat/completions", {"model": "m", "messages": [], "max_tokens": 8},
                   {"usage": {"completion_tokens": 2}})
    shown = usage.to_json()
    assert shown["requests"] == 2 and shown["requests_through_sdk_clients"] == 2
    assert shown["generated_tokens"] == 5 and "requests_by_other_clients" not in shown
    assert "openai and ollama packages included" in str(shown["how"])
