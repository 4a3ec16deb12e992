"""Where a document prints the same text twice: proposals for the ledger's ``copy`` entries.

A post copied into a second seed (W2's three copies), or a passage a document repeats,
is accounted for where it first appears: the later block is a ``copy`` ledger entry whose
``of`` names the first block, and the ledger checks the two read the same (whitespace
collapsed). :func:`copied_blocks` finds such blocks line-aligned on both sides (one long
line may be several wrapped ones there); ``scripts/propose-copies.py`` writes them as
ledger entries to review.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from claims.text.sources import Source
from claims.text.transcribed import squash

__all__ = ["Copy", "copied_blocks"]

# A block shorter than this (collapsed) is not proposed: a heading or a lone number
# printed twice is a repeat of a figure, not a copy of text.
MIN_CHARS = 40


@dataclass(frozen=True)
class Copy:
    """Lines first..last of ``source`` read the same as lines of_first..of_last of ``of``."""

    source: Source
    first: int
    last: int
    of: Source
    of_first: int
    of_last: int


def _runs(source: Source, doc_id: str) -> Iterator[list[tuple[int, str]]]:
    """The document's non-empty lines of ``source`` (number, collapsed text), in runs of
    its own consecutive lines (another document's lines end a run)."""
    run: list[tuple[int, str]] = []
    for number, line in enumerate(source.lines, 1):
        if source.owner[number - 1] != doc_id:
            if run:
                yield run
            run = []
            continue
        text = squash(line)
        if text:
            run.append((number, text))
    if run:
        yield run


def _longest(run: list[tuple[int, str]], i: int, original: Source,
             before: int | None) -> tuple[int, int, int] | None:
    """The longest block run[i..j] printed in ``original`` from a line start to a line end
    (and, in the same source, ending before offset ``before``): (j, first, last line there)."""
    seed = original.seed
    starts = dict(zip(seed.starts, seed.numbers, strict=True))
    ends = {off + len(squash(original.lines[n - 1])): n
            for off, n in zip(seed.starts, seed.numbers, strict=True)}
    best: tuple[int, int, int] | None = None
    text = seed.text
    at = text.find(run[i][1])
    while at != -1:
        if at in starts and (before is None or at < before):
            pos, j = at, i
            while j < len(run) and text.startswith(run[j][1], pos):
                end = pos + len(run[j][1])
                if before is not None and end > before:
                    break
                if end in ends and (best is None or j > best[0]):
                    best = (j, starts[at], ends[end])
                pos, j = end + 1, j + 1
        at = text.find(run[i][1], at + 1)
    return best


def copied_blocks(sources: list[Source], doc_id: str) -> list[Copy]:
    """Blocks of the document's text that an earlier place of it already prints: for each
    source in order, its longest line-aligned blocks found in an earlier source, or earlier
    in itself. Only blocks of at least MIN_CHARS characters."""
    found: list[Copy] = []
    for k, source in enumerate(sources):
        for run in _runs(source, doc_id):
            i = 0
            while i < len(run):
                best: tuple[int, int, int, Source] | None = None
                for original in sources[: k + 1]:
                    before = None
                    if original is source:
                        before = source.seed.starts[source.seed.numbers.index(run[i][0])]
                    hit = _longest(run, i, original, before)
                    if hit is not None and (best is None or hit[0] > best[0]):
                        best = (*hit, original)
                if best is None:
                    i += 1
                    continue
                j, of_first, of_last, original = best
                if len(" ".join(t for _, t in run[i : j + 1])) >= MIN_CHARS:
                    found.append(Copy(source, run[i][0], run[j][0], original, of_first, of_last))
                i = j + 1
    return found
