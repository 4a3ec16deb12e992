"""Which models are in memory: loading one, and unloading it until /api/ps no longer lists it."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claims.probes.live.ollama_api.errors import ServerTimeout
from claims.probes.live.ollama_api.inventory import InventoryEndpoints
from claims.probes.live.ollama_api.names import find_model
from claims.probes.live.ollama_api.payloads import json_object, request_body

__all__ = ["LoadingEndpoints", "UnloadResult"]


@dataclass(frozen=True)
class UnloadResult:
    """How an unload went: seconds until /api/ps no longer listed the model."""

    model: str
    done_reason: str | None
    seconds_until_gone: float
    polls: int


class LoadingEndpoints(InventoryEndpoints):
    """Load and unload through /api/generate with an empty prompt (unload as `ollama stop` does)."""

    def load(
        self,
        model: str,
        *,
        keep_alive: str | float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Load ``model`` with an empty prompt (the reply says done_reason "load")."""
        body = request_body(model, prompt="", options=options, keep_alive=keep_alive, stream=False)
        return json_object(self.post_json("/api/generate", body), "/api/generate")

    def unload(
        self, model: str, *, timeout: float = 30.0, poll_interval: float = 0.2
    ) -> UnloadResult:
        """Unload ``model`` (empty prompt, keep_alive 0) and wait until /api/ps drops it.

        Unloading is asynchronous on the server, so the reply alone proves
        nothing; /api/ps is polled every ``poll_interval`` seconds for at most
        ``timeout`` seconds (then :class:`~claims.probes.live.ollama_api.errors.ServerTimeout`).
        """
        reply = json_object(
            self.post_json("/api/generate", {"model": model, "keep_alive": 0, "stream": False}),
            "/api/generate",
        )
        started = time.monotonic()
        polls = 0
        while True:
            polls += 1
            if find_model(self.ps(), model) is None:
                return UnloadResult(
                    model=model,
                    done_reason=reply.get("done_reason"),
                    seconds_until_gone=time.monotonic() - started,
                    polls=polls,
                )
            if time.monotonic() - started > timeout:
                raise ServerTimeout(
                    f"/api/ps still lists {model} {timeout:g} s after keep_alive 0 ({polls} polls)"
                )
            time.sleep(poll_interval)
