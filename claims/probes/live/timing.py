"""Client-side clocks for Ollama's streamed replies: TTFT, decode rate, repeats.

Time to first token (TTFT) is what a user of the API waits: the clock
(:func:`time.perf_counter_ns`) starts immediately before the request is sent and
stops when the first streamed line whose text is non-empty arrives. The stop
time is the arrival stamp of the bytes completing that line, taken before the
line is parsed (see :class:`~claims.probes.live.ollama_api.stream.StreamLine`), so neither
JSON parsing nor this module's bookkeeping is counted. Chunks that carry no text
(a thinking model's preamble, an empty first chunk) do not stop the clock.

Beside it the server's own durations from the final chunk are reported
unchanged (nanoseconds): ``load_duration``, ``prompt_eval_duration``,
``eval_duration``, ``total_duration``. Decode rate is given two ways, in
tokens per second: the server's ``eval_count / eval_duration`` and the
client's own, ``(eval_count - 1)`` tokens over the time from the first text
line to the final line (the first token's own time is inside TTFT).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from claims.probes.live.ollama_api import OllamaClient, ReplyError
from claims.probes.live.ollama_api.generation import text_of
from claims.probes.live.ollama_api.payloads import request_body

__all__ = [
    "Samples",
    "ServerDurations",
    "StreamTiming",
    "measure_stream",
    "repeat",
    "timed_chat",
    "timed_generate",
]

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000


def _int(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


@dataclass(frozen=True)
class ServerDurations:
    """The server's timings from a final chunk (ns); absent fields are None.

    Ollama omits a duration that is zero, so a missing ``load_duration`` on a
    warm request is not an error; callers decide which fields they need.
    """

    total_ns: int | None
    load_ns: int | None
    prompt_eval_count: int | None
    prompt_eval_ns: int | None
    eval_count: int | None
    eval_ns: int | None

    @classmethod
    def from_final(cls, final: Mapping[str, Any]) -> ServerDurations:
        return cls(
            total_ns=_int(final, "total_duration"),
            load_ns=_int(final, "load_duration"),
            prompt_eval_count=_int(final, "prompt_eval_count"),
            prompt_eval_ns=_int(final, "prompt_eval_duration"),
            eval_count=_int(final, "eval_count"),
            eval_ns=_int(final, "eval_duration"),
        )

    @staticmethod
    def _rate(count: int | None, ns: int | None) -> float | None:
        if count is None or not ns:
            return None
        return count * NS_PER_S / ns

    @property
    def decode_tokens_per_s(self) -> float | None:
        """eval_count / eval_duration * 1e9 (tokens/s), the masterclass formula."""
        return self._rate(self.eval_count, self.eval_ns)

    @property
    def prefill_tokens_per_s(self) -> float | None:
        """prompt_eval_count / prompt_eval_duration * 1e9 (tokens/s)."""
        return self._rate(self.prompt_eval_count, self.prompt_eval_ns)

    @staticmethod
    def _ms(ns: int | None) -> float | None:
        return None if ns is None else ns / NS_PER_MS

    @property
    def load_ms(self) -> float | None:
        return self._ms(self.load_ns)

    @property
    def prefill_ms(self) -> float | None:
        return self._ms(self.prompt_eval_ns)

    @property
    def decode_ms(self) -> float | None:
        return self._ms(self.eval_ns)

    @property
    def total_ms(self) -> float | None:
        return self._ms(self.total_ns)

    def to_json(self) -> dict[str, Any]:
        return {
            "total_duration_ns": self.total_ns,
            "load_duration_ns": self.load_ns,
            "prompt_eval_count": self.prompt_eval_count,
            "prompt_eval_duration_ns": self.prompt_eval_ns,
            "eval_count": self.eval_count,
            "eval_duration_ns": self.eval_ns,
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "prefill_tokens_per_s": self.prefill_tokens_per_s,
        }


@dataclass(frozen=True)
class StreamTiming:
    """One streamed request, timed by the client (ns from the moment before sending)."""

    path: str
    ttft_ns: int | None
    total_ns: int
    first_text_line: int | None
    lines: int
    text: str
    final: dict[str, Any]
    server: ServerDurations
    line_offsets_ns: tuple[int, ...] = field(repr=False, default=())

    @property
    def ttft_ms(self) -> float | None:
        return None if self.ttft_ns is None else self.ttft_ns / NS_PER_MS

    @property
    def total_ms(self) -> float:
        return self.total_ns / NS_PER_MS

    @property
    def client_decode_tokens_per_s(self) -> float | None:
        """(eval_count - 1) tokens over first-text-to-final time, on the client's clock."""
        count = self.server.eval_count
        if self.ttft_ns is None or count is None or count < 2:
            return None
        span = self.total_ns - self.ttft_ns
        return (count - 1) * NS_PER_S / span if span > 0 else None

    @property
    def median_token_tokens_per_s(self) -> float | None:
        """1 / the median time between streamed token lines (tokens/s, client clock).

        Each streamed line after the first text carries one token; the median gap is
        the typical time of one decode step, which a burst of other work on the
        machine (a few steps preempted) does not move, unlike the mean that
        eval_count / eval_duration gives. The final line (statistics, no token) is
        left out. None with fewer than 4 gaps.
        """
        if self.first_text_line is None:
            return None
        offsets = self.line_offsets_ns[self.first_text_line : max(self.lines - 1, 0)]
        gaps = sorted(b - a for a, b in pairwise(offsets))
        if len(gaps) < 4:
            return None
        mid = statistics.median(gaps)
        return NS_PER_S / mid if mid > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "ttft_ms": self.ttft_ms,
            "client_total_ms": self.total_ms,
            "first_text_line": self.first_text_line,
            "lines": self.lines,
            "client_decode_tokens_per_s": self.client_decode_tokens_per_s,
            "median_token_tokens_per_s": self.median_token_tokens_per_s,
            "done_reason": self.final.get("done_reason"),
            **self.server.to_json(),
        }

    def chart_row(self, label: str, *, cold: bool) -> dict[str, Any]:
        """A row for check.chart("ttft", ...): client TTFT beside the server's phases."""
        return {
            "label": label,
            "cold": cold,
            "ttft_ms": self.ttft_ms,
            "load_ms": self.server.load_ms,
            "prefill_ms": self.server.prefill_ms,
            "decode_ms": self.server.decode_ms,
        }


def measure_stream(
    client: OllamaClient,
    path: str,
    body: Mapping[str, Any],
    *,
    text_key: str,
    first_chunk_timeout: float | None = None,
    stall_timeout: float | None = None,
    total_timeout: float | None = None,
) -> StreamTiming:
    """Send ``body`` to ``path`` streaming and time it; ``text_key`` is "response" or "message".

    Errors from the stream (timeouts, cut streams, error lines) propagate as
    :class:`~claims.probes.errors.ServerError` subclasses.
    """
    lines = client.stream(
        path,
        dict(body, stream=True),
        first_chunk_timeout=first_chunk_timeout,
        stall_timeout=stall_timeout,
        total_timeout=total_timeout,
    )
    parts: list[str] = []
    offsets: list[int] = []
    first_ns: int | None = None
    first_line: int | None = None
    final: dict[str, Any] = {}
    last_ns = 0
    # The generator sends the request on its first next(): start the clock here.
    started = time.perf_counter_ns()
    for line in lines:
        offset = line.received_ns - started
        offsets.append(offset)
        last_ns = offset
        piece = text_of(line.data, text_key)
        if piece:
            parts.append(piece)
            if first_ns is None:
                first_ns, first_line = offset, line.index
        final = line.data
    if not final:
        raise ReplyError(f"{path}: stream produced no lines")
    return StreamTiming(
        path=path,
        ttft_ns=first_ns,
        total_ns=last_ns,
        first_text_line=first_line,
        lines=len(offsets),
        text="".join(parts),
        final=final,
        server=ServerDurations.from_final(final),
        line_offsets_ns=tuple(offsets),
    )


def timed_generate(
    client: OllamaClient,
    model: str,
    prompt: str,
    *,
    options: Mapping[str, Any] | None = None,
    keep_alive: str | float | None = None,
    first_chunk_timeout: float | None = None,
    stall_timeout: float | None = None,
    total_timeout: float | None = None,
) -> StreamTiming:
    """A streamed /api/generate, timed."""
    body = request_body(model, prompt=prompt, options=options, keep_alive=keep_alive)
    return measure_stream(
        client, "/api/generate", body, text_key="response",
        first_chunk_timeout=first_chunk_timeout, stall_timeout=stall_timeout,
        total_timeout=total_timeout,
    )


def timed_chat(
    client: OllamaClient,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    options: Mapping[str, Any] | None = None,
    first_chunk_timeout: float | None = None,
    stall_timeout: float | None = None,
    total_timeout: float | None = None,
) -> StreamTiming:
    """A streamed /api/chat, timed."""
    body = request_body(model, messages=[dict(m) for m in messages], options=options)
    return measure_stream(
        client, "/api/chat", body, text_key="message",
        first_chunk_timeout=first_chunk_timeout, stall_timeout=stall_timeout,
        total_timeout=total_timeout,
    )


@dataclass(frozen=True)
class Samples:
    """Repeated measurements of one quantity, with their unit; raw values kept."""

    values: tuple[float, ...]
    unit: str

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError("Samples needs at least one value")

    @classmethod
    def of(cls, values: Sequence[float], unit: str) -> Samples:
        return cls(tuple(float(v) for v in values), unit)

    @property
    def median(self) -> float:
        return float(statistics.median(self.values))

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    @property
    def spread(self) -> float:
        """high - low, in the samples' unit."""
        return self.high - self.low

    @property
    def stdev(self) -> float | None:
        return statistics.stdev(self.values) if len(self.values) > 1 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "n": len(self.values),
            "median": self.median,
            "low": self.low,
            "high": self.high,
            "spread": self.spread,
            "stdev": self.stdev,
            "samples": list(self.values),
        }


def repeat(fn: Callable[[], StreamTiming], runs: int) -> list[StreamTiming]:
    """Call ``fn`` ``runs`` times in a row (warm repeats); every result is kept."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    return [fn() for _ in range(runs)]
