"""The failures a fake Ollama injects, and the hostile modes that arm them.

A :class:`Fault` hits the requests whose path starts with its ``path``: an HTTP
status, a hung reply, a stream cut or ended before ``done``, a malformed line, an
``{"error": ...}`` line, a stall, a slow first chunk, a never-ending trickle.
:func:`wedge_generation`, :func:`never_finish_streams` and :func:`hostile_text`
arm an existing fake with an attack on the instrument (issue 22), one line each
in a test. A hung or trickling handler gives up on its own after
:data:`HOSTILE_HOLD_S` seconds (and at once when the fake stops).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, Protocol

from claims.probes.live.ollama_api.names import normalize_model_name as _norm
from claims.testing.fake_ollama.models import FakeModel, default_models

__all__ = [
    "GENERATION_PATHS",
    "HOSTILE_HOLD_S",
    "Fault",
    "FaultKind",
    "hostile_text",
    "never_finish_streams",
    "wedge_generation",
]


FaultKind = Literal[
    "status",  # answer with HTTP `status` and an {"error": ...} body
    "hang",  # read the request, then never answer
    "close",  # read the request, then close the connection without a reply
    "cut",  # stream `after_lines` lines, then drop the connection mid-body
    "end",  # stream `after_lines` lines, then end the body cleanly without done:true
    "malformed",  # stream `after_lines` lines, then a line that is not JSON
    "error_line",  # stream `after_lines` lines, then {"error": ...} (status 200 already sent)
    "stall",  # stream `after_lines` lines, then pause `delay_s` before going on
    "slow_first",  # wait `delay_s` before the first chunk (headers included)
    "trickle",  # stream a chunk every `delay_s`, never done (stream false: never answer)
]


@dataclass
class Fault:
    """A failure to inject into requests whose path starts with ``path`` (None: all)."""

    kind: FaultKind
    path: str | None = None
    status: int = 500
    after_lines: int = 1
    delay_s: float = 0.0
    message: str = "an error was encountered while running the model: unexpected EOF"
    times: int | None = None  # how many requests it hits; None: every one

    def matches(self, path: str) -> bool:
        return (self.path is None or path.startswith(self.path)) and self.times != 0


class Armable(Protocol):
    """What a hostile mode arms: a fake's faults and the models it lists."""

    models: dict[str, FakeModel]

    def add_fault(self, fault: Fault) -> Fault: ...


GENERATION_PATHS = ("/api/generate", "/api/chat", "/api/embed", "/api/embeddings",
                    "/v1/chat/completions")


HOSTILE_HOLD_S = 120.0


def wedge_generation(fake: Armable) -> None:
    """A wedged runner: /api/version, tags, show and ps answer; no generation ever does."""
    for path in GENERATION_PATHS:
        fake.add_fault(Fault("hang", path=path))


def never_finish_streams(fake: Armable, interval_s: float = 0.2) -> None:
    """Generation streams trickle a chunk every ``interval_s`` and never send ``done``."""
    for path in ("/api/generate", "/api/chat"):
        fake.add_fault(Fault("trickle", path=path, delay_s=interval_s))


def hostile_text(fake: Armable, text: str) -> None:
    """Model names and error bodies that carry ``text`` (terminal escapes, say).

    /api/tags lists one more model whose name holds ``text``, and /api/show
    answers 404 with ``text`` in its error body, as a hostile server would.
    """
    model = default_models()[0]
    extra = replace(model, name=f"evil{text}:latest")
    fake.models[_norm(extra.name)] = extra
    fake.add_fault(Fault("status", path="/api/show", status=404,
                         message=f"model '{text}' not found"))
