"""Week 2's shared live requests: its non-streaming generate reply, sent once per module."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from claims.probes.live.ollama_api.usage import bounded

WEEK2_PROMPT = "Explain Kubernetes scheduling in three sentences."
# Week 2's own request sends only model and prompt; here it is bounded (32 tokens) and
# made greedy, which none of the claims about its reply depends on.
WEEK2_OPTIONS = bounded(32)


@dataclass
class Week2Reply:
    body: dict[str, Any]
    reply: dict[str, Any]
    client_ns: int

    def recorded_by(self, live: Any) -> dict[str, Any]:
        """The reply, its exchange attached to ``live``'s check (every claim it serves shows it)."""
        live.exchange(
            "POST /api/generate (Week 2 request)", "POST", "/api/generate", self.body, self.reply
        )
        return self.reply


@pytest.fixture(scope="module")
def week2_reply(ollama_client: Any, ollama_model: Any) -> Week2Reply:
    """Week 2's non-streaming generate request, sent once and shared (Concepts 2-3)."""
    body = {
        "model": ollama_model.name,
        "prompt": WEEK2_PROMPT,
        "stream": False,
        "options": dict(WEEK2_OPTIONS),
    }
    reply = ollama_client.post_json("/api/generate", body)
    # The request's own round trip, without the session's accounting reads of /api/ps.
    return Week2Reply(body, reply, ollama_client.last_request_ns)
