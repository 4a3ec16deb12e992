"""Were requests served one after another or together? Streams timed side by side.

Each request is streamed on its own connection, all sent at once; a stream's
*span* runs from its first chunk with text to its final chunk, on one clock
(``perf_counter_ns``). The connections are siblings of the caller's client
(:meth:`~claims.probes.live.ollama_api.transport.Transport.sibling`): the same
timeouts and the same breaker, so a server that hangs costs one timeout for
all of them, and none for what the caller asks it afterwards. Spans that
overlap were decoded together; spans that follow one another were served
serially. The verdict rests on order, not on speed, so a busy machine cannot
change it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claims.probes.errors import ProbeError

if TYPE_CHECKING:
    from claims.probes.live.ollama_api import OllamaClient

__all__ = ["Span", "concurrent_streams", "max_overlap"]


@dataclass(frozen=True)
class Span:
    """One streamed reply: when its text began and ended (ns), how many text chunks."""

    first_ns: int | None
    last_ns: int | None
    chunks: int
    error: str | None = None

    @property
    def timed(self) -> bool:
        return self.first_ns is not None and self.last_ns is not None and self.chunks >= 2


def max_overlap(spans: Sequence[Span]) -> int:
    """The most spans running at one moment (1: strictly one after another)."""
    events: list[tuple[int, int]] = []
    for s in spans:
        if s.first_ns is not None and s.last_ns is not None:
            events += [(s.first_ns, 1), (s.last_ns, -1)]
    # At equal times an end counts before a start: touching spans do not overlap.
    events.sort(key=lambda e: (e[0], e[1]))
    best = active = 0
    for _, step in events:
        active += step
        best = max(best, active)
    return best


def concurrent_streams(
    client: OllamaClient,
    bodies: Sequence[Mapping[str, Any]],
    *,
    total_timeout: float = 600.0,
) -> list[Span]:
    """Stream each /api/generate body on a sibling of ``client``, all released at one moment.

    ``total_timeout`` bounds each stream, never beyond the client's own request timeout.
    A stream that fails (a timeout, the breaker already open) keeps what it saw
    and its error.
    """
    spans: list[Span | None] = [None] * len(bodies)
    gate = threading.Barrier(len(bodies))

    def one(i: int) -> None:
        first = last = None
        chunks = 0
        try:
            with client.sibling() as stream_client:
                gate.wait(timeout=30.0)
                for line in stream_client.stream(
                    "/api/generate", {**bodies[i], "stream": True}, total_timeout=total_timeout
                ):
                    if line.data.get("response"):
                        chunks += 1
                        first = line.received_ns if first is None else first
                        last = line.received_ns
                    if line.data.get("done") is True:
                        last = line.received_ns if first is not None else last
            spans[i] = Span(first, last, chunks)
        except (ProbeError, threading.BrokenBarrierError) as exc:
            spans[i] = Span(first, last, chunks, error=str(exc) or type(exc).__name__)

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(len(bodies))]
    for t in threads:
        t.start()
    deadline = time.monotonic() + total_timeout + 60.0
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    return [s if s is not None else Span(None, None, 0, error="did not finish") for s in spans]
