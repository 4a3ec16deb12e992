"""NDJSON streams: line framing, bounded buffering and per-line arrival times.

Ollama streams a reply as one JSON object per line. The bytes are read chunk
by chunk as they arrive; each line is stamped with :func:`time.perf_counter_ns`
when the chunk completing it arrives, *before* it is split off or parsed,
which is what the TTFT measurement in :mod:`claims.probes.live.timing` relies on.

At most one unfinished line is held (``MAX_LINE_BYTES``) and a whole stream
may not pass ``MAX_STREAM_BYTES``, so a server that never sends a newline or
never stops costs bounded memory. A line that is not a JSON object, an
``{"error": ...}`` line, a broken connection and a stream that ends before its
final object all raise :class:`~claims.probes.live.ollama_api.errors.StreamError`;
a stall raises :class:`~claims.probes.live.ollama_api.errors.ServerTimeout`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from claims.probes.live.ollama_api.errors import ServerTimeout, StreamError, reason, seconds

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_STREAM_BYTES",
    "LineFramer",
    "StreamLine",
    "is_done",
    "parse_line",
    "read_lines",
]

# The largest legitimate NDJSON line is generate's final chunk with the whole
# `context` array (~7 bytes per token, so about 1 MB at 128k tokens).
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_STREAM_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class StreamLine:
    """One NDJSON line of a streamed reply.

    ``received_ns`` is :func:`time.perf_counter_ns` when the bytes completing the
    line arrived, taken before the line was split off or parsed.
    """

    index: int
    received_ns: int
    raw: bytes
    data: dict[str, Any]


def is_done(data: Mapping[str, Any]) -> bool:
    """The object that ends generate and chat streams: ``done: true``."""
    return data.get("done") is True


class LineFramer:
    """Cuts a byte stream into NDJSON lines, holding at most one unfinished line."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines = 0  # complete, non-blank lines so far
        self._bytes = 0
        self._buffer = b""

    def feed(self, chunk: bytes, received_ns: int) -> Iterator[StreamLine]:
        """The lines ``chunk`` completes, each stamped with the chunk's arrival."""
        self._bytes += len(chunk)
        if self._bytes > MAX_STREAM_BYTES:
            raise StreamError(f"stream exceeds {MAX_STREAM_BYTES} bytes", path=self.path)
        # Search only the new bytes for a newline: a long line arriving in
        # many chunks must not be rescanned from its start each time.
        scan_from = len(self._buffer)
        self._buffer += chunk
        while True:
            cut = self._buffer.find(b"\n", scan_from)
            if cut < 0:
                break
            raw, self._buffer = self._buffer[:cut], self._buffer[cut + 1 :]
            scan_from = 0
            if raw.strip():
                yield self._line(raw, received_ns)
        if len(self._buffer) > MAX_LINE_BYTES:
            raise StreamError(
                f"a line exceeds {MAX_LINE_BYTES} bytes without a newline",
                path=self.path,
                line=self.lines + 1,
            )

    def finish(self, received_ns: int) -> StreamLine | None:
        """A last line the stream ended without its newline (it still counts), if any."""
        raw, self._buffer = self._buffer, b""
        return self._line(raw, received_ns) if raw.strip() else None

    def _line(self, raw: bytes, received_ns: int) -> StreamLine:
        self.lines += 1
        return StreamLine(self.lines, received_ns, raw, parse_line(raw, self.path, self.lines))


def parse_line(raw: bytes, path: str, index: int) -> dict[str, Any]:
    """One NDJSON line as the JSON object it must be; an ``error`` line raises."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        # ValueError: not JSON, not UTF-8, or an integer past Python's digit limit;
        # RecursionError: nesting deeper than the parser's stack.
        shown = raw[:80].decode("utf-8", "replace")
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise StreamError(f"not JSON ({why}): {shown!r}", path=path, line=index) from None
    if not isinstance(data, dict):
        raise StreamError(f"a {type(data).__name__}, not a JSON object", path=path, line=index)
    if "error" in data:
        shown = str(data["error"])[:200]
        raise StreamError(f"server reported an error mid-stream: {shown}", path=path, line=index)
    return data


def read_lines(
    chunks: Iterator[bytes],
    path: str,
    *,
    stall: float | None,
    finished: Callable[[dict[str, Any]], bool],
    started: float,
    total_timeout: float | None = None,
    before_read: Callable[[], None] | None = None,
) -> Iterator[StreamLine]:
    """The lines of a streamed reply body, up to and including the ``finished`` one.

    ``stall`` is the read timeout the transport applies between chunks (for
    the message only); ``total_timeout`` bounds the whole stream, counted in
    :func:`time.monotonic` seconds from ``started``. ``before_read`` runs before
    each wait for bytes (the transport shortens the read timeout to what is left
    of the deadline there).
    """
    framer = LineFramer(path)

    def over_time() -> bool:
        return total_timeout is not None and time.monotonic() - started > total_timeout

    while True:
        if before_read is not None:
            before_read()
        try:
            chunk = next(chunks)
        except StopIteration:
            break
        except httpx.ReadTimeout:
            what = "first line" if framer.lines == 0 else f"line {framer.lines + 1}"
            # The wait was cut short by the deadline (the transport caps it there).
            if total_timeout is not None and time.monotonic() - started >= total_timeout - 0.05:
                raise ServerTimeout(
                    f"{path}: stream still running after {seconds(total_timeout)} "
                    f"({framer.lines} line(s), no final object): past its deadline"
                ) from None
            raise ServerTimeout(
                f"{path}: stream stalled: no data for {seconds(stall)} while waiting for the {what}"
            ) from None
        except httpx.HTTPError as exc:
            raise StreamError(
                f"connection broke after {framer.lines} complete line(s): {reason(exc)}",
                path=path,
                line=framer.lines + 1,
            ) from None
        for line in framer.feed(chunk, time.perf_counter_ns()):
            yield line
            if finished(line.data):
                drain(chunks)
                return
        if over_time():
            raise ServerTimeout(
                f"{path}: stream still running after {seconds(total_timeout)} "
                f"({framer.lines} line(s), no final object): past its deadline"
            )
    last = framer.finish(time.perf_counter_ns())
    if last is not None:
        yield last
        if finished(last.data):
            return
    raise StreamError(
        f"stream ended after {framer.lines} line(s) without its final object (done: true)",
        path=path,
    )


# Ollama ends the body right after the final object; a server that keeps
# trickling bytes after it is not worth waiting for (the connection is closed).
DRAIN_SECONDS = 1.0


def drain(
    chunks: Iterator[bytes], limit: int = 64 * 1024, seconds: float = DRAIN_SECONDS
) -> None:
    """Read the little that follows the final object (the chunked terminator).

    A response closed with unread body bytes cannot go back to the connection
    pool, and every next request would pay for a new TCP connection inside its
    measured time. Anything past ``limit`` bytes or ``seconds``, or any error,
    just closes it (one read can still wait up to the stall timeout).
    """
    seen = 0
    deadline = time.monotonic() + seconds
    try:
        for chunk in chunks:
            seen += len(chunk)
            if seen > limit or time.monotonic() > deadline:
                return
    except httpx.HTTPError:
        return
