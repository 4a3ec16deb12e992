"""Which transcribed values the claim tests read: what "recorded" means in the accounting.

A transcribed value (``fixtures/recorded/<DOC>.json``, anchored where the document prints
it) counts as *recorded* in ``python -m claims coverage`` only when some claim test reads
it: a value no check reads is transcribed, not judged, and is accounted for like any other
printed figure (an anchor of a claim that judges it, or a ledger entry saying why none
can).

What the tests read is not written by hand. The offline claim tests are run with their
recorded data handed over in containers that note each value read (the audit's
:mod:`claims.audit.data`, the same run the audit's baseline makes) and with the files
they open noted too, since a test may read a transcribed file (a command's output, the
Hub's config.json) directly rather than through the recorded data. The result is kept in
``fixtures/recorded/READ.json`` (written by ``scripts/record-reads.py``; the audit's
baseline compares it with what its own run read and lists every difference, so a stale
record is a defect the audit names). One entry per document: the transcribed value paths
(as :func:`claims.text.transcribed.transcribed_values` names them) some claim test read.

The granularity is the containers': a key read is that value read; a list indexed or
walked is every item of it read; a file opened is every value transcribed from it read. A
value that names a catalog figure instead of copying it (claims.text.references) is
read when a claim test compares that figure (a measurement of that name in its check).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from claims.text.transcribed import (
    FILE_REFERENCES,
    figure_references,
    raw_data,
    transcribed_values,
)

__all__ = ["READ", "ReadsError", "load_reads", "read_values", "reads_json"]

# Where the record of what the claim tests read is kept, under the checkout.
READ = Path("fixtures") / "recorded" / "READ.json"
_NOTE = ("The transcribed values some offline claim test reads, per document "
         "(claims/text/reads.py): written by scripts/record-reads.py, checked by the audit.")


class ReadsError(ValueError):
    """The record of what the tests read is missing or malformed; the message names it."""


def _covers(read: str, path: str) -> bool:
    """Whether reading the JSON path ``read`` reads the transcribed value ``path``: the
    same path, or an item of the list ``path`` names (a list of ids is one value, printed
    comma-separated, claims.text.transcribed.leaves)."""
    return read == path or (read.startswith(path + "[") and read[len(path) + 1:-1].isdigit())


def read_values(root: Path, doc: str, datums: Iterable[str],
                opened: Iterable[str] = (),
                compared: Iterable[tuple[str, str]] = ()) -> list[str]:
    """The transcribed value paths of ``doc`` that were read: ``datums``, the JSON paths
    of its recorded data some claim test read (claims.audit.data.Reads), and ``opened``,
    the files (relative to ``root``) some claim test opened. A value of a referenced file
    (``rel:line N``, ``rel:path``) is read when its file was opened or its reference read.
    A value that names a catalog figure (claims.text.references) is that figure printed
    again: read when a claim test compared the figure (``compared``: (claim, figure name)
    of each measurement the run's checks made)."""
    read = set(datums)
    judged = set(compared)
    read |= {ref.path for ref in figure_references(root, doc)
             if (ref.claim, ref.figure) in judged}
    files = set(opened)
    raw = raw_data(root, doc)
    for refs in (key for key in FILE_REFERENCES if key in raw):
        named = raw.get(refs) or {}
        files |= {rel for key, rel in named.items() if f"{refs}.{key}" in read}
    out: list[str] = []
    for path, _ in transcribed_values(root, doc):
        if (":" in path and path.split(":", 1)[0] in files) or any(_covers(r, path) for r in read):
            out.append(path)
    return sorted(set(out))


def reads_json(reads: Mapping[str, Iterable[str]]) -> str:
    """The record's text: documents in the order given, paths sorted."""
    data: dict[str, Any] = {"_note": _NOTE}
    data.update({doc: sorted(set(paths)) for doc, paths in reads.items()})
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def load_reads(root: Path) -> dict[str, frozenset[str]]:
    """The record (``READ``) under the checkout ``root``: document -> the transcribed value
    paths some claim test reads. A missing or malformed record raises ReadsError naming the
    file and the entry: without it no transcribed value can be counted as read."""
    path = root / READ
    if not path.is_file():
        raise ReadsError(f"{READ}: not found: write it with scripts/record-reads.py (which "
                         "transcribed values the claim tests read)")
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReadsError(f"{READ}: {exc}") from None
    if not isinstance(data, dict):
        raise ReadsError(f"{READ}: must be an object: document -> the paths read")
    out: dict[str, frozenset[str]] = {}
    for doc, paths in data.items():
        if doc.startswith("_"):
            continue
        if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
            raise ReadsError(f"{READ}, {doc}: must be a list of transcribed value paths")
        out[doc] = frozenset(paths)
    return out
