"""A repository listing from a record of it (the lab's results.json), and what a listing
says about code and about the bytes a shard holds beyond its tensors.

Week 3's lab (``model-inspector.py``) saved the Hub's file list at the pinned
revision, name and size in bytes; Week 3's post prints the names. Either is
enough to ask what the live listing is asked: does the repository ship code, and
how much larger are the shard files than the tensor bytes the index totals.
Sizes are bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from claims.probes.errors import InputError
from claims.probes.files.hf_repo.listing import RepoFile, RepoListing

__all__ = ["CODE_FILE", "code_files", "listing_from_record", "shard_overheads"]

# Files a loader could execute: Python sources and bytecode, native libraries.
CODE_FILE = re.compile(r"\.(py|pyc|so|dylib|dll)$")


def code_files(names: Iterable[str]) -> list[str]:
    """The names among ``names`` that are code a loader could run."""
    return [n for n in names if CODE_FILE.search(n)]


def listing_from_record(
    files: Iterable[Mapping[str, Any]], *, repo_id: str, revision: str | None,
    total: int | None = None, where: str = "record",
) -> RepoListing:
    """A :class:`RepoListing` from recorded ``{"name": ..., "size_bytes": ...}`` rows."""
    rows: list[RepoFile] = []
    for i, row in enumerate(files):
        name, size = row.get("name"), row.get("size_bytes")
        if not isinstance(name, str) or not name:
            raise InputError("a file row needs a name", path=where, field=f"files[{i}].name")
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise InputError(f"size {size!r} is not a byte count", path=where,
                             field=f"files[{i}].size_bytes")
        rows.append(RepoFile(name=name, size=size))
    return RepoListing(repo_id=repo_id, revision=revision, files=tuple(rows),
                       safetensors_total=total)


def shard_overheads(listing: RepoListing, shard_payloads: Mapping[str, int] | None = None,
                    total_payload: int | None = None) -> dict[str, int]:
    """Bytes by which shard files exceed their tensors.

    With per-shard payloads (from the shard headers) one entry per shard; with only
    the index's ``total_size`` one entry, ``"all shards"``, for the shards together.
    """
    shards = listing.shards
    if any(s.size is None for s in shards):
        raise InputError("a shard's size is unknown", field=", ".join(s.name for s in shards))
    if shard_payloads is not None:
        return {s.name: (s.size or 0) - shard_payloads[s.name]
                for s in shards if s.name in shard_payloads}
    if total_payload is None:
        raise InputError("needs the shards' payloads or the index's total_size")
    return {"all shards": sum(s.size or 0 for s in shards) - total_payload}
