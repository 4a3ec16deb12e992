"""OllamaStore: a read-only view of one models folder (manifests/ and blobs/)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from claims.probes.errors import InputError
from claims.probes.files.ollama_store.access import open_regular, resolve_inside, resolve_root
from claims.probes.files.ollama_store.digests import BLOB_NAME_RE, digest_to_blob_name
from claims.probes.files.ollama_store.errors import MissingBlobError, StoreError
from claims.probes.files.ollama_store.listing import ListEntry, human_bytes
from claims.probes.files.ollama_store.manifest import Layer, Manifest, load_manifest
from claims.probes.files.ollama_store.names import ModelName
from claims.probes.files.ollama_store.tree import manifest_names
from claims.probes.files.ollama_store.verify import (
    DEFAULT_CACHE,
    BlobCheck,
    VerificationCache,
    check_open_blob,
)

__all__ = ["OllamaStore"]


class OllamaStore:
    """Read-only view of one Ollama models folder (the one holding manifests/ and blobs/).

    Every file it opens is contained in the root (see
    :mod:`claims.probes.files.ollama_store.access`); names and digests are validated
    before a path is built from them.
    """

    def __init__(self, root: Path | str, *, cache: VerificationCache | None = None) -> None:
        self.given, self.root = resolve_root(root)
        self.cache = DEFAULT_CACHE if cache is None else cache

    def __repr__(self) -> str:
        return f"OllamaStore({str(self.root)!r})"

    @property
    def manifests_dir(self) -> Path:
        return self.root / "manifests"

    @property
    def blobs_dir(self) -> Path:
        return self.root / "blobs"

    # -- names and paths -----------------------------------------------------
    def manifest_path(self, name: str | ModelName) -> Path:
        """Where the manifest for ``name`` lives (validated; need not exist)."""
        parsed = name if isinstance(name, ModelName) else ModelName.parse(name)
        return self.manifests_dir.joinpath(*parsed.parts)

    def blob_path(self, digest: str) -> Path:
        """The path of a digest's blob under blobs/ (validated first; need not exist)."""
        return self.blobs_dir / digest_to_blob_name(digest)

    def existing_blob(self, layer: Layer) -> tuple[Path, os.stat_result]:
        """The blob's resolved path and stat; MissingBlobError / StoreError when unusable."""
        path = self.blob_path(layer.digest)
        try:
            resolved = resolve_inside(self.root, path, "blob")
        except FileNotFoundError:
            raise _missing(layer, path) from None
        st = resolved.stat()
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(f"{layer.field}: blob is not a regular file", path=str(path))
        return resolved, st

    # -- manifests -----------------------------------------------------------
    def read_manifest(self, path: Path, name: ModelName) -> Manifest:
        """Read, hash and validate one manifest file inside the store."""
        return load_manifest(self.root, path, name)

    def manifest(self, name: str | ModelName) -> Manifest:
        """The validated manifest of ``name`` ("phi4", "llama3.2:3b", "user/model:tag", ...)."""
        parsed = name if isinstance(name, ModelName) else ModelName.parse(name)
        path = self.manifest_path(parsed)
        if not os.path.lexists(path):
            # Some Ollama versions wrote lower-cased paths and names compare
            # case-insensitively; look for a unique case-insensitive match.
            for found in self._names()[0]:
                if found.key == parsed.key:
                    parsed, path = found, self.manifest_path(found)
                    break
        return self.read_manifest(path, parsed)

    def _names(self) -> tuple[list[ModelName], list[str]]:
        """Names spelled by manifests/<host>/<namespace>/<model>/<tag> files (sorted), and
        the entries skipped with the reason."""
        return manifest_names(self.root, self.manifests_dir)

    def scan(self, *, strict: bool = True) -> tuple[list[Manifest], list[str]]:
        """Every manifest in the store, parsed, plus entries skipped and why.

        ``strict`` (the default) raises on the first unreadable or malformed
        manifest; otherwise that manifest is skipped and its error listed with
        the other skipped entries, so one bad file does not hide the rest.
        """
        names, ignored = self._names()
        manifests: list[Manifest] = []
        for name in names:
            try:
                manifests.append(self.read_manifest(self.manifest_path(name), name))
            except InputError as exc:
                if strict:
                    raise
                ignored.append(f"{'/'.join(name.parts)} ({exc})")
        return manifests, ignored

    def manifests(self, *, strict: bool = True) -> list[Manifest]:
        return self.scan(strict=strict)[0]

    def names(self) -> list[str]:
        return [n.display for n in self._names()[0]]

    def list_models(self) -> list[ListEntry]:
        """What ``ollama list`` would show for this store: name, ID, size."""
        return [
            ListEntry(m.name.display, m.id, m.total_size, human_bytes(m.total_size), m.mtime_ns)
            for m in self.manifests()
        ]

    # -- blobs ---------------------------------------------------------------
    def model_blob_path(self, name: str | ModelName) -> Path:
        """The model layer's blob (the GGUF file) of ``name``, checked to exist."""
        manifest = self.manifest(name)
        path, _ = self.existing_blob(manifest.model_layer())
        return path

    def layer_media_types(self, name: str | ModelName) -> list[str]:
        return self.manifest(name).media_types

    def check_blob(self, layer: Layer, *, verify: bool = True) -> BlobCheck:
        """Size in bytes of the blob on disk and, with ``verify``, its SHA-256 (cached)."""
        path = self.blob_path(layer.digest)
        try:
            fd, st, resolved = open_regular(self.root, path, f"{layer.field} blob")
        except FileNotFoundError:
            raise _missing(layer, path) from None
        try:
            return check_open_blob(layer, path, fd, st, resolved, verify=verify, cache=self.cache)
        finally:
            os.close(fd)

    def verify_blob(self, layer: Layer) -> BlobCheck:
        """Like :meth:`check_blob` with hashing, raising :class:`BlobMismatch` on disagreement."""
        result = self.check_blob(layer, verify=True)
        result.raise_for_problem()
        return result

    def verify(self, name: str | ModelName) -> list[BlobCheck]:
        """Check every blob of one model; raises on the first mismatch."""
        return [self.verify_blob(layer) for layer in self.manifest(name).blobs]

    def shared_blobs(self, manifests: Iterable[Manifest] | None = None) -> dict[str, list[str]]:
        """Digest -> names of the manifests referencing it, for blobs used by two or more."""
        users: dict[str, list[str]] = {}
        for m in self.manifests() if manifests is None else manifests:
            for digest in dict.fromkeys(layer.digest for layer in m.blobs):
                users.setdefault(digest, []).append(m.name.display)
        return {d: names for d, names in users.items() if len(names) > 1}

    def blob_files(self) -> tuple[list[str], list[str]]:
        """(complete blob names, other entries such as '-partial' downloads) under blobs/."""
        if not self.blobs_dir.is_dir():
            return [], []
        complete: list[str] = []
        other: list[str] = []
        with os.scandir(self.blobs_dir) as it:
            for entry in it:
                (complete if BLOB_NAME_RE.fullmatch(entry.name) else other).append(entry.name)
        return sorted(complete), sorted(other)


def _missing(layer: Layer, path: Path) -> MissingBlobError:
    return MissingBlobError(f"{layer.field}: blob for {layer.digest} is missing", path=str(path))
