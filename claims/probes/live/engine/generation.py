"""What one generation returns and how long it took (client clock and llama.cpp's own).

* :class:`Generation` - the text and token ids of a streamed generation, time
  to the first token with non-empty text and the total (seconds, client clock,
  ``perf_counter_ns``), and llama.cpp's counters for the same call.
* :class:`PerfCounters` - llama.cpp's ``llama_perf_context`` timers: milliseconds
  and token counts for prompt processing and for generation, hence tokens/s.

A cold start (a model loaded and asked at once) holds its engine, so it lives
beside it: :class:`claims.probes.live.engine.model.ColdStart`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from claims.probes.live.engine.runtime import llama_cpp_module

__all__ = ["Generation", "PerfCounters"]


@dataclass(frozen=True)
class PerfCounters:
    """llama.cpp's own timers for one generation (``llama_perf_context``).

    llama.cpp books a decode call of more than one token as prompt processing
    and a single-token call as generation; times are milliseconds.
    """

    prompt_tokens: int
    prompt_ms: float
    eval_tokens: int
    eval_ms: float

    @classmethod
    def read(cls, ctx: Any) -> PerfCounters:
        """The counters of a llama.cpp context (a ``llama_context`` pointer)."""
        data = llama_cpp_module().llama_perf_context(ctx)
        return cls(
            prompt_tokens=int(data.n_p_eval),
            prompt_ms=float(data.t_p_eval_ms),
            eval_tokens=int(data.n_eval),
            eval_ms=float(data.t_eval_ms),
        )

    @staticmethod
    def reset(ctx: Any) -> None:
        """Zero a context's counters, so the next read covers one generation only."""
        llama_cpp_module().llama_perf_context_reset(ctx)

    @property
    def prompt_tokens_per_s(self) -> float | None:
        return self.prompt_tokens / self.prompt_ms * 1000 if self.prompt_ms > 0 else None

    @property
    def eval_tokens_per_s(self) -> float | None:
        return self.eval_tokens / self.eval_ms * 1000 if self.eval_ms > 0 else None

    @property
    def prefill_over_decode(self) -> float | None:
        """The prompt-processing rate over the decode rate of this generation (x)."""
        prefill, decode = self.prompt_tokens_per_s, self.eval_tokens_per_s
        return prefill / decode if prefill and decode else None

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "prompt_ms": round(self.prompt_ms, 3),
            "eval_tokens": self.eval_tokens,
            "eval_ms": round(self.eval_ms, 3),
        }


@dataclass(frozen=True)
class Generation:
    """One generation: what was asked, what came back, and how long it took.

    ``seed`` is the seed asked for; None means llama.cpp drew a random one
    (``LLAMA_DEFAULT_SEED``). ``ttft_s`` is client-observed: from the call to
    the first generated token whose text is non-empty. ``total_s`` runs to
    the last token.
    """

    prompt: str
    text: str
    token_ids: tuple[int, ...]
    prompt_tokens: int
    finish_reason: str
    temperature: float
    seed: int | None
    max_tokens: int
    ttft_s: float | None
    total_s: float
    perf: PerfCounters
    sampling: dict[str, float] = field(default_factory=dict)

    @property
    def completion_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def client_decode_tokens_per_s(self) -> float | None:
        """Tokens after the first, over the time after the first (client clock)."""
        if self.ttft_s is None or self.completion_tokens < 2 or self.total_s <= self.ttft_s:
            return None
        return (self.completion_tokens - 1) / (self.total_s - self.ttft_s)

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "text": self.text,
            "token_ids": list(self.token_ids),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "finish_reason": self.finish_reason,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "sampling": dict(self.sampling),
            "ttft_ms": None if self.ttft_s is None else round(self.ttft_s * 1000, 3),
            "total_ms": round(self.total_s * 1000, 3),
            "perf": self.perf.to_json(),
        }
