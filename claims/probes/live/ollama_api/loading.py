"""Which models are in memory: loading one, and unloading it until /api/ps no longer lists it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claims.probes.live.ollama_api.errors import ServerTimeout
from claims.probes.live.ollama_api.inventory import InventoryEndpoints
from claims.probes.live.ollama_api.names import find_model
from claims.probes.live.ollama_api.payloads import json_object, request_body
from claims.probes.live.settle import SettleRule, settle

__all__ = ["LoadingEndpoints", "UnloadResult"]


# A model has left /api/ps when it stays absent this long (s): an unload completes
# a moment after its reply, and a read at that moment can still list it.
UNLOAD_STABLE_S = 0.2


@dataclass(frozen=True)
class UnloadResult:
    """How an unload went: seconds until /api/ps stably no longer listed the model."""

    model: str
    done_reason: str | None
    seconds_until_gone: float
    polls: int
    reads: dict[str, Any] | None = None  # the settle rule's record (claims.probes.live.settle)


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
        nothing; /api/ps is polled every ``poll_interval`` seconds until the model
        has been absent for UNLOAD_STABLE_S (a settle rule, claims.probes.live.settle), for
        at most ``timeout`` seconds (then
        :class:`~claims.probes.live.ollama_api.errors.ServerTimeout`).
        """
        reply = json_object(
            self.post_json("/api/generate", {"model": model, "keep_alive": 0, "stream": False}),
            "/api/generate",
        )
        rule = SettleRule(stable_s=UNLOAD_STABLE_S, timeout_s=timeout, poll_s=poll_interval)
        settled = settle(
            lambda: find_model(self.ps(), model) is not None, rule, done=lambda listed: not listed
        )
        if not settled.stable:
            raise ServerTimeout(
                f"/api/ps still lists {model} {timeout:g} s after keep_alive 0 "
                f"({settled.reads} polls; {settled.describe()})"
            )
        return UnloadResult(
            model=model,
            done_reason=reply.get("done_reason"),
            # When the absence that lasted was first seen.
            seconds_until_gone=settled.runs[-1].first_s,
            polls=settled.reads,
            reads=settled.to_json(),
        )
