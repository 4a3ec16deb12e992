"""The Hub's listing of a repository at one revision, from a ``ModelInfo``: file names
and sizes in bytes, Git LFS SHA-256, safetensors parameter counts, the card's license
and base model. Pure: no network here (the calls are in :mod:`.hub`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from claims.probes.errors import InputError

SHARD_NAME = re.compile(r"^(?P<prefix>.+)-(?P<index>\d{5})-of-(?P<total>\d{5})\.safetensors$")


@dataclass(frozen=True)
class RepoFile:
    """One file of a repository at a revision (sizes in bytes)."""

    name: str
    size: int | None = None
    blob_id: str | None = None
    lfs_sha256: str | None = None
    lfs_size: int | None = None

    @property
    def in_lfs(self) -> bool:
        return self.lfs_sha256 is not None


@dataclass(frozen=True)
class RepoListing:
    """What the Hub API says about a repository at one revision."""

    repo_id: str
    revision: str | None
    files: tuple[RepoFile, ...]
    safetensors_parameters: Mapping[str, int] | None = None
    safetensors_total: int | None = None
    license: str | None = None
    license_name: str | None = None
    base_model: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    pipeline_tag: str | None = None
    library_name: str | None = None

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.files]

    def file(self, name: str) -> RepoFile:
        for f in self.files:
            if f.name == name:
                return f
        raise InputError("not in the repository listing", field=name)

    @property
    def total_bytes(self) -> int:
        """Sum of all file sizes (bytes); InputError if a size is unknown."""
        missing = [f.name for f in self.files if f.size is None]
        if missing:
            raise InputError("size unknown (request files_metadata)", field=", ".join(missing))
        return sum(f.size or 0 for f in self.files)

    @property
    def python_files(self) -> list[str]:
        return [f.name for f in self.files if f.name.endswith(".py")]

    @property
    def shards(self) -> list[RepoFile]:
        """Safetensors shard files (``<prefix>-NNNNN-of-NNNNN.safetensors``), in order."""
        found = [f for f in self.files if SHARD_NAME.match(f.name.rsplit("/", 1)[-1])]
        return sorted(found, key=lambda f: f.name)


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(str(v) for v in value)
    return (str(value),)


def listing_from_model_info(info: Any) -> RepoListing:
    """Turn a ``huggingface_hub.ModelInfo`` (or anything with its attributes) into a listing."""
    files = []
    for sibling in getattr(info, "siblings", None) or ():
        lfs = getattr(sibling, "lfs", None)
        lfs_sha = lfs_size = None
        if lfs is not None:
            # BlobLfsInfo is a dataclass and (for backward compatibility) a dict.
            lfs_sha = getattr(lfs, "sha256", None) or (
                lfs.get("sha256") if isinstance(lfs, Mapping) else None
            )
            lfs_size = _int_or_none(
                getattr(lfs, "size", None) if not isinstance(lfs, Mapping) else lfs.get("size")
            )
        files.append(
            RepoFile(
                name=str(sibling.rfilename),
                size=_int_or_none(getattr(sibling, "size", None)),
                blob_id=getattr(sibling, "blob_id", None),
                lfs_sha256=lfs_sha,
                lfs_size=lfs_size,
            )
        )
    st = getattr(info, "safetensors", None)
    params = total = None
    if st is not None:
        params = {str(k): int(v) for k, v in dict(getattr(st, "parameters", {}) or {}).items()}
        total = _int_or_none(getattr(st, "total", None))
    card = getattr(info, "card_data", None)

    def card_get(key: str) -> Any:
        if card is None:
            return None
        if hasattr(card, "get"):
            return card.get(key)
        return getattr(card, key, None)

    license_value = card_get("license")
    return RepoListing(
        repo_id=str(info.id),
        revision=getattr(info, "sha", None),
        files=tuple(files),
        safetensors_parameters=params,
        safetensors_total=total,
        license=None if license_value is None else str(license_value),
        license_name=card_get("license_name"),
        base_model=_strings(card_get("base_model")),
        tags=_strings(getattr(info, "tags", None)),
        pipeline_tag=getattr(info, "pipeline_tag", None),
        library_name=getattr(info, "library_name", None),
    )


