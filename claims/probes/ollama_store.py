"""Ollama's model store on disk: manifests, digests and blobs.

Layout (``$OLLAMA_MODELS``, by default ``~/.ollama/models``; the Linux service
keeps its store under ``/usr/share/ollama/.ollama/models``)::

    manifests/<host>/<namespace>/<model>/<tag>   one small JSON file per name:tag
    blobs/sha256-<64 hex>                        content-addressed files

A digest is ``sha256:<64 hex>``; its blob lives at ``blobs/sha256-<hex>`` (the
colon becomes a hyphen). What this probe measures:

* which manifests a store holds, each parsed and validated (schemaVersion 2,
  media type, config and layers with media type, digest and size in bytes);
* each layer's blob path, its size in bytes on disk and its SHA-256, compared
  with the manifest; verification is streamed and cached by (path, size,
  mtime), so checking an unchanged blob again costs one ``stat``;
* blobs that several manifests share (one file on disk, several names);
* the ``ollama list`` view: the ID (first 12 hex digits of the SHA-256 of the
  manifest file's bytes) and the size (bytes of config plus layers, printed
  with decimal units).

Safety: digests are validated against the sha256 pattern before any path is
built from them, model names are validated part by part (no separators, no
``..``), and every file is resolved and checked to lie inside the store root
before it is opened, so neither a manifest nor a symlink can steer a read
outside the store. Manifests are read with a size cap and blobs are streamed,
so memory stays bounded whatever the input.

Errors (see :mod:`claims.probes.errors`): :class:`StoreError`,
:class:`ManifestError` and :class:`DigestError` are :class:`InputError`\\ s that
name the file and the field; :class:`BlobMismatch` is a
:class:`VerificationError` (a blob whose size or hash disagrees).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.probes.errors import InputError, PrerequisiteMissing, VerificationError

__all__ = [
    "BlobCheck",
    "BlobMismatch",
    "DigestError",
    "Layer",
    "ListEntry",
    "Manifest",
    "ManifestError",
    "MissingBlobError",
    "ModelName",
    "OllamaStore",
    "StoreError",
    "VerificationCache",
    "blob_name_to_digest",
    "digest_to_blob_name",
    "human_bytes",
    "inspect",
    "locate_store",
    "store_candidates",
]

# Ollama itself accepts upper-case hex too (^sha256[:-][0-9a-fA-F]{64}$); the
# registry and every stored file name use lower case, and so do we when writing.
DIGEST_RE = re.compile(r"sha256:([0-9a-fA-F]{64})")
BLOB_NAME_RE = re.compile(r"sha256-([0-9a-fA-F]{64})")

MANIFEST_MEDIA_TYPE = "application/vnd.docker.distribution.manifest.v2+json"
MANIFEST_LIST_MEDIA_TYPE = "application/vnd.ollama.manifest.list.v2+json"
CONFIG_MEDIA_TYPE = "application/vnd.docker.container.image.v1+json"
MODEL_MEDIA_TYPE = "application/vnd.ollama.image.model"
LAYER_MEDIA_PREFIX = "application/vnd.ollama.image."

DEFAULT_HOST = "registry.ollama.ai"
DEFAULT_NAMESPACE = "library"
DEFAULT_TAG = "latest"

# Where Ollama keeps models when OLLAMA_MODELS is unset: the Linux install
# script runs the server as the `ollama` user whose home is /usr/share/ollama;
# a server started by hand uses the user's own home.
SERVICE_STORE = Path("/usr/share/ollama/.ollama/models")
USER_STORE_RELATIVE = Path(".ollama/models")

# Real manifests are about 1 KB; anything past this cap is not a manifest, and
# refusing it keeps memory bounded on hostile input.
MAX_MANIFEST_BYTES = 1 << 20

# Hashing uses hashlib.file_digest (stdlib since 3.11; it streams through one
# 256 KiB buffer). Measured on the 253 MB Gemma GGUF on this project's 2-core VM
# (best of 3-8 runs, OpenSSL 3.0 SHA-256): from a warm page cache it and
# hand-written loops with 64 KiB-16 MiB blocks all hash at ~1.9 GB/s
# (CPU-bound); from a cold cache (pages dropped with posix_fadvise) 64 KiB
# blocks reached 1.4 GB/s, 256 KiB-4 MiB 1.8 GB/s, 16 MiB 1.25 GB/s, and
# file_digest 1.7-1.8 GB/s, level with the best hand-written block size, so
# there is nothing to gain from our own loop. sha256sum (coreutils) managed
# ~0.45 GB/s on the same file: tests/probes/test_store_speed.py compares them.

_PART_LIMITS = {"host": 350, "namespace": 80, "model": 80, "tag": 80}
# First character alphanumeric or underscore (so "." and ".." can never be a
# part), then letters, digits, '_', '-', '.'; a namespace has no dots and only
# a host may carry ':' (a registry port). These are Ollama's own name rules.
_PART_RE = {
    "host": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]*"),
    "namespace": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*"),
    "model": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*"),
    "tag": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*"),
}


# --- errors ---------------------------------------------------------------------
class StoreError(InputError):
    """The store or a name in it is unusable: no such folder, a bad model name,
    a missing manifest or blob, a file that is not regular or lies outside the root."""


class MissingBlobError(StoreError):
    """A manifest names a blob that is not in blobs/."""


class ManifestError(InputError):
    """A manifest that is not JSON or not a valid Ollama v2 manifest (names file and field)."""


class DigestError(InputError):
    """A digest or blob name that is not sha256 with 64 hex digits."""


class BlobMismatch(VerificationError):
    """A well-formed blob whose size or SHA-256 disagrees with its manifest."""

    def __init__(self, message: str, *, path: str, field: str) -> None:
        super().__init__(f"{path}: {field}: {message}")
        self.path = path
        self.field = field
        self.problem = message


# --- digests --------------------------------------------------------------------
def digest_to_blob_name(digest: str) -> str:
    """'sha256:<hex>' -> 'sha256-<hex>' (the file name under blobs/)."""
    if not isinstance(digest, str):
        raise DigestError(f"digest must be a string, got {type(digest).__name__}", field="digest")
    m = DIGEST_RE.fullmatch(digest)
    if m is None:
        raise DigestError(f"not a sha256:<64 hex> digest: {digest[:100]!r}", field="digest")
    return f"sha256-{m.group(1).lower()}"


def blob_name_to_digest(name: str) -> str:
    """'sha256-<hex>' -> 'sha256:<hex>' (inverse of :func:`digest_to_blob_name`)."""
    if not isinstance(name, str):
        raise DigestError(f"blob name must be a string, got {type(name).__name__}", field="blob")
    m = BLOB_NAME_RE.fullmatch(name)
    if m is None:
        raise DigestError(f"not a sha256-<64 hex> blob name: {name[:100]!r}", field="blob")
    return f"sha256:{m.group(1).lower()}"


def human_bytes(n: int) -> str:
    """A byte count the way ``ollama list`` prints it (decimal units: 1 GB = 10^9 B).

    Values of ten or more are truncated to an integer ("71 GB"), smaller ones
    with a fraction get one decimal ("9.1 GB"), whole ones none ("2 GB").
    """
    if n < 1000:
        return f"{n} B"
    unit, scale = next(
        (u, s) for u, s in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)) if n >= s
    )
    value = n / scale
    if value >= 10 or value == int(value):
        return f"{int(value)} {unit}"
    return f"{value:.1f} {unit}"


# --- names ----------------------------------------------------------------------
@dataclass(frozen=True)
class ModelName:
    """A model reference ``[host/][namespace/]model[:tag]`` with Ollama's defaults filled in."""

    host: str
    namespace: str
    model: str
    tag: str

    @classmethod
    def parse(cls, text: str) -> ModelName:
        """Parse and validate a name; :class:`StoreError` (field "name") when it is not one.

        "phi4" -> registry.ollama.ai/library/phi4:latest; "user/model:tag" keeps
        the default host; "localhost:5000/ns/m:t" has a host with a port.
        """
        if not isinstance(text, str):
            raise StoreError(f"model name must be a string, got {type(text).__name__}",
                             field="name")
        shown = repr(text[:120])
        s = text
        for scheme in ("https://", "http://"):
            if s.startswith(scheme):
                s = s[len(scheme):]
                break
        tag = DEFAULT_TAG
        # A tag follows the last ':' only when no '/' comes after it; otherwise
        # the ':' belongs to a registry port in the host part.
        colon, slash = s.rfind(":"), s.rfind("/")
        if colon > slash:
            s, tag = s[:colon], s[colon + 1:]
        parts = s.split("/")
        if len(parts) > 3:
            raise StoreError(f"{shown} has more than host/namespace/model parts", field="name")
        host, namespace = DEFAULT_HOST, DEFAULT_NAMESPACE
        if len(parts) == 3:
            host, namespace, model = parts
        elif len(parts) == 2:
            namespace, model = parts
        else:
            (model,) = parts
        name = cls(host=host, namespace=namespace, model=model, tag=tag)
        for kind in ("host", "namespace", "model", "tag"):
            value = getattr(name, kind)
            problem = _part_problem(kind, value)
            if problem:
                raise StoreError(f"{shown}: {kind} {value[:90]!r} {problem}", field="name")
        return name

    @classmethod
    def from_parts(cls, host: str, namespace: str, model: str, tag: str) -> ModelName | None:
        """The name a manifest path spells, or None when a part is not a valid name part."""
        name = cls(host=host, namespace=namespace, model=model, tag=tag)
        if any(_part_problem(k, getattr(name, k)) for k in ("host", "namespace", "model", "tag")):
            return None
        return name

    @property
    def parts(self) -> tuple[str, str, str, str]:
        return (self.host, self.namespace, self.model, self.tag)

    @property
    def full(self) -> str:
        return f"{self.host}/{self.namespace}/{self.model}:{self.tag}"

    @property
    def display(self) -> str:
        """As ``ollama list`` shows it: default host and namespace dropped, tag kept."""
        if self.host.lower() == DEFAULT_HOST:
            if self.namespace.lower() == DEFAULT_NAMESPACE:
                return f"{self.model}:{self.tag}"
            return f"{self.namespace}/{self.model}:{self.tag}"
        return self.full

    def __str__(self) -> str:
        return self.display


def _part_problem(kind: str, value: str) -> str | None:
    if not value:
        return "is empty"
    if len(value) > _PART_LIMITS[kind]:
        return f"is longer than {_PART_LIMITS[kind]} characters"
    if ".." in value:
        return "contains '..'"
    if not _PART_RE[kind].fullmatch(value):
        allowed = "letters, digits, '_', '-'" + ("" if kind == "namespace" else ", '.'")
        allowed += ", ':'" if kind == "host" else ""
        return f"may contain only {allowed} and must start with a letter, digit or '_'"
    return None


# --- manifests ------------------------------------------------------------------
@dataclass(frozen=True)
class Layer:
    """One entry of a manifest (the config or a layer): what it is, which blob, how big."""

    media_type: str
    digest: str
    size: int
    field: str  # where it sits in the manifest: "config" or "layers[2]"
    source: str | None = None  # the optional "from" key

    @property
    def blob_name(self) -> str:
        return digest_to_blob_name(self.digest)

    @property
    def kind(self) -> str:
        """'model', 'template', 'license', 'params', ... or 'config'."""
        if self.field == "config":
            return "config"
        mt = self.media_type
        return mt[len(LAYER_MEDIA_PREFIX):] if mt.startswith(LAYER_MEDIA_PREFIX) else mt

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mediaType": self.media_type, "digest": self.digest, "size": self.size,
        }
        if self.source is not None:
            out["from"] = self.source
        return out


@dataclass(frozen=True)
class Manifest:
    """A parsed, validated manifest and the facts of the file it came from."""

    name: ModelName
    path: Path
    digest: str  # hex SHA-256 of the manifest file's bytes
    file_size: int
    mtime_ns: int
    schema_version: int
    media_type: str
    config: Layer
    layers: tuple[Layer, ...]

    @property
    def id(self) -> str:
        """The ID ``ollama list`` prints: the first 12 hex digits of :attr:`digest`."""
        return self.digest[:12]

    @property
    def blobs(self) -> tuple[Layer, ...]:
        """The config followed by the layers (every blob the manifest references)."""
        return (self.config, *self.layers)

    @property
    def total_size(self) -> int:
        """Bytes of config plus layers: the SIZE ``ollama list`` shows."""
        return sum(layer.size for layer in self.blobs)

    @property
    def media_types(self) -> list[str]:
        return [layer.media_type for layer in self.layers]

    def model_layer(self) -> Layer:
        for layer in self.layers:
            if layer.media_type == MODEL_MEDIA_TYPE:
                return layer
        raise ManifestError(f"no layer has mediaType {MODEL_MEDIA_TYPE}", path=str(self.path),
                            field="layers")


def parse_manifest(data: bytes, path: str) -> dict[str, Any]:
    """Decode and validate manifest bytes; returns the JSON object.

    Checks: a JSON object (no duplicate keys), schemaVersion 2, the v2 manifest
    mediaType, a config and a non-empty list of layers, each with a string
    mediaType, a sha256 digest and a non-negative integer size.
    """
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise ManifestError(f"key {key!r} appears twice", path=path, field=key)
            out[key] = value
        return out

    try:
        doc = json.loads(data, object_pairs_hook=no_duplicates)
    except ManifestError:
        raise
    except json.JSONDecodeError as exc:
        raise ManifestError(f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                            path=path, offset=exc.pos) from None
    except UnicodeDecodeError as exc:
        raise ManifestError(f"not UTF-8 text: {exc.reason}", path=path, offset=exc.start) from None
    except RecursionError:
        raise ManifestError("JSON nested too deeply", path=path) from None
    except ValueError as exc:  # e.g. an integer literal past Python's digit limit
        raise ManifestError(f"not usable JSON: {exc}", path=path) from None
    if not isinstance(doc, dict):
        raise ManifestError(f"top level is a JSON {_json_type(doc)}, not an object", path=path)
    version = doc.get("schemaVersion")
    if "schemaVersion" not in doc:
        raise ManifestError("missing", path=path, field="schemaVersion")
    if type(version) is not int or version != 2:
        raise ManifestError(f"is {version!r}; only schema version 2 is supported", path=path,
                            field="schemaVersion")
    media_type = doc.get("mediaType")
    if media_type == MANIFEST_LIST_MEDIA_TYPE:
        raise ManifestError("is a manifest list; this probe reads single v2 manifests only",
                            path=path, field="mediaType")
    if media_type != MANIFEST_MEDIA_TYPE:
        raise ManifestError(f"is {_short(media_type)}, expected {MANIFEST_MEDIA_TYPE}", path=path,
                            field="mediaType")
    if "config" not in doc:
        raise ManifestError("missing", path=path, field="config")
    _validate_entry(doc["config"], path, "config")
    if "layers" not in doc:
        raise ManifestError("missing", path=path, field="layers")
    layers = doc["layers"]
    if not isinstance(layers, list):
        raise ManifestError(f"is a JSON {_json_type(layers)}, expected an array", path=path,
                            field="layers")
    if not layers:
        raise ManifestError("is empty: a model has at least one layer", path=path, field="layers")
    for i, entry in enumerate(layers):
        _validate_entry(entry, path, f"layers[{i}]")
    return doc


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _validate_entry(entry: Any, path: str, where: str) -> None:
    if not isinstance(entry, dict):
        raise ManifestError(f"is a JSON {_json_type(entry)}, expected an object", path=path,
                            field=where)
    for key in ("mediaType", "digest", "size"):
        if key not in entry:
            raise ManifestError("missing", path=path, field=f"{where}.{key}")
    if not isinstance(entry["mediaType"], str) or not entry["mediaType"]:
        raise ManifestError(f"is {_short(entry['mediaType'])}, expected a non-empty string",
                            path=path, field=f"{where}.mediaType")
    digest = entry["digest"]
    if not isinstance(digest, str) or DIGEST_RE.fullmatch(digest) is None:
        raise DigestError(f"{_short(digest)} is not sha256:<64 hex>", path=path,
                          field=f"{where}.digest")
    size = entry["size"]
    if type(size) is not int or not 0 <= size < 1 << 63:
        raise ManifestError(f"is {_short(size)}, expected a byte count (integer >= 0)", path=path,
                            field=f"{where}.size")
    source = entry.get("from")
    if source is not None and not isinstance(source, str):
        raise ManifestError(f"is {_short(source)}, expected a string", path=path,
                            field=f"{where}.from")


def _layer(entry: Mapping[str, Any], where: str) -> Layer:
    return Layer(
        media_type=entry["mediaType"],
        # Lower-case on the way in so one blob is one key however it was spelled.
        digest="sha256:" + entry["digest"][len("sha256:"):].lower(),
        size=entry["size"],
        field=where,
        source=entry.get("from"),
    )


# --- verification ---------------------------------------------------------------
CacheKey = tuple[str, int, int, int, int]


class VerificationCache:
    """SHA-256 results keyed by (path, device, inode, size, mtime_ns).

    A blob whose key is unchanged since it was hashed is not hashed again: the
    check costs one ``stat``. Changing the file's bytes changes its mtime (and
    size or inode when replaced), so a stale entry is never used for new
    content unless someone rewrites a blob and forges its mtime back.
    """

    def __init__(self) -> None:
        self._entries: dict[CacheKey, str] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: CacheKey) -> str | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                self.misses += 1
            else:
                self.hits += 1
            return found

    def put(self, key: CacheKey, sha256_hex: str) -> None:
        with self._lock:
            self._entries[key] = sha256_hex

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)


# One cache per process: every OllamaStore in a pytest session shares it.
DEFAULT_CACHE = VerificationCache()


def sha256_fd(fd: int) -> str:
    """Hex SHA-256 of everything readable from an open file descriptor (left open).

    Streamed by :func:`hashlib.file_digest`: memory stays at one buffer whatever
    the file size.
    """
    with os.fdopen(fd, "rb", buffering=0, closefd=False) as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


@dataclass(frozen=True)
class BlobCheck:
    """What was found on disk for one manifest entry."""

    layer: Layer
    path: Path
    actual_size: int
    sha256: str | None  # None when hashing was not asked for
    cached: bool = False
    seconds: float = 0.0

    @property
    def size_ok(self) -> bool:
        return self.actual_size == self.layer.size

    @property
    def sha256_ok(self) -> bool | None:
        if self.sha256 is None:
            return None
        return "sha256:" + self.sha256 == self.layer.digest

    @property
    def ok(self) -> bool:
        return self.size_ok and self.sha256_ok is not False

    def problem(self) -> str | None:
        if not self.size_ok:
            return (f"{self.path}: {self.layer.field}.size: manifest says "
                    f"{self.layer.size:,} bytes, the blob has {self.actual_size:,}")
        if self.sha256_ok is False:
            return (f"{self.path}: {self.layer.field}.digest: SHA-256 of the blob is "
                    f"sha256:{self.sha256}, manifest says {self.layer.digest}")
        return None

    def raise_for_problem(self) -> None:
        if not self.size_ok:
            raise BlobMismatch(f"manifest says {self.layer.size:,} bytes, the blob has "
                               f"{self.actual_size:,}", path=str(self.path),
                               field=f"{self.layer.field}.size")
        if self.sha256_ok is False:
            raise BlobMismatch(
                f"SHA-256 is sha256:{self.sha256}, manifest says {self.layer.digest}",
                path=str(self.path), field=f"{self.layer.field}.digest",
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.layer.field,
            "mediaType": self.layer.media_type,
            "digest": self.layer.digest,
            "size": self.layer.size,
            "blob": str(self.path),
            "blob_size": self.actual_size,
            "size_ok": self.size_ok,
            "sha256": None if self.sha256 is None else "sha256:" + self.sha256,
            "sha256_ok": self.sha256_ok,
            "cached": self.cached,
        }


# --- the store ------------------------------------------------------------------
@dataclass(frozen=True)
class ListEntry:
    """One row of ``ollama list`` as the store on disk implies it."""

    name: str
    id: str
    size: int
    size_display: str
    modified_ns: int


class OllamaStore:
    """Read-only view of one Ollama models folder (the one holding manifests/ and blobs/)."""

    def __init__(self, root: Path | str, *, cache: VerificationCache | None = None) -> None:
        given = Path(root).expanduser()
        try:
            resolved = given.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StoreError(f"cannot open the store: {why}", path=str(given)) from None
        if not resolved.is_dir():
            raise StoreError("is not a folder", path=str(given))
        if not (resolved / "manifests").is_dir():
            raise StoreError("not an Ollama store: it has no manifests/ folder", path=str(given))
        if not (resolved / "manifests").resolve().is_relative_to(resolved):
            raise StoreError("manifests/ leads outside the store", path=str(given / "manifests"))
        self.root = resolved
        self.given = given
        self.cache = DEFAULT_CACHE if cache is None else cache

    def __repr__(self) -> str:
        return f"OllamaStore({str(self.root)!r})"

    @property
    def manifests_dir(self) -> Path:
        return self.root / "manifests"

    @property
    def blobs_dir(self) -> Path:
        return self.root / "blobs"

    # -- containment ---------------------------------------------------------
    def _inside(self, path: Path, what: str) -> Path:
        """``path`` resolved; StoreError when it (or a symlink on the way) leaves the root."""
        try:
            resolved = path.resolve(strict=True)
        except FileNotFoundError:
            raise
        except (OSError, RuntimeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StoreError(f"cannot resolve {what}: {why}", path=str(path)) from None
        if not resolved.is_relative_to(self.root):
            raise StoreError(f"{what} leads outside the store (to {resolved})", path=str(path))
        return resolved

    def _open_regular(self, path: Path, what: str) -> tuple[int, os.stat_result, Path]:
        """Open a file inside the store for reading: (fd, fstat, resolved path).

        The path is resolved and contained first, opened without following a
        final symlink (so it cannot be swapped for one in between), and must be
        a regular file: a FIFO or device would block or never end.
        """
        resolved = self._inside(path, what)
        try:
            fd = os.open(resolved, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise StoreError(f"cannot open {what}: {exc.strerror}", path=str(path)) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise StoreError(f"{what} is not a regular file", path=str(path))
        except BaseException:
            os.close(fd)
            raise
        return fd, st, resolved

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
            resolved = self._inside(path, "blob")
        except FileNotFoundError:
            raise MissingBlobError(f"{layer.field}: blob for {layer.digest} is missing",
                                   path=str(path)) from None
        st = resolved.stat()
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(f"{layer.field}: blob is not a regular file", path=str(path))
        return resolved, st

    # -- manifests -----------------------------------------------------------
    def read_manifest(self, path: Path, name: ModelName) -> Manifest:
        """Read, hash and validate one manifest file inside the store."""
        try:
            fd, st, _ = self._open_regular(path, "manifest")
        except FileNotFoundError:
            raise StoreError(f"no manifest for {name.display}", path=str(path)) from None
        try:
            if st.st_size > MAX_MANIFEST_BYTES:
                raise ManifestError(f"is {st.st_size:,} bytes, more than the "
                                    f"{MAX_MANIFEST_BYTES:,}-byte limit for a manifest",
                                    path=str(path))
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(MAX_MANIFEST_BYTES + 1)
        finally:
            os.close(fd)
        if len(data) > MAX_MANIFEST_BYTES:  # grew while we read it
            raise ManifestError(f"is more than {MAX_MANIFEST_BYTES:,} bytes", path=str(path))
        doc = parse_manifest(data, str(path))
        return Manifest(
            name=name,
            path=path,
            digest=hashlib.sha256(data).hexdigest(),
            file_size=len(data),
            mtime_ns=st.st_mtime_ns,
            schema_version=doc["schemaVersion"],
            media_type=doc["mediaType"],
            config=_layer(doc["config"], "config"),
            layers=tuple(_layer(entry, f"layers[{i}]") for i, entry in enumerate(doc["layers"])),
        )

    def manifest(self, name: str | ModelName) -> Manifest:
        """The validated manifest of ``name`` ("phi4", "llama3.2:3b", "user/model:tag", ...)."""
        parsed = name if isinstance(name, ModelName) else ModelName.parse(name)
        path = self.manifest_path(parsed)
        if not os.path.lexists(path):
            # Some Ollama versions wrote lower-cased paths and names compare
            # case-insensitively; look for a unique case-insensitive match.
            for found in self._scan_names():
                if tuple(p.lower() for p in found.parts) == tuple(p.lower() for p in parsed.parts):
                    parsed, path = found, self.manifest_path(found)
                    break
        return self.read_manifest(path, parsed)

    def _scan_names(self, ignored: list[str] | None = None) -> list[ModelName]:
        """Names spelled by manifests/<host>/<namespace>/<model>/<tag> files (sorted)."""
        names: list[ModelName] = []

        def entries(folder: Path) -> Iterable[os.DirEntry[str]]:
            try:
                with os.scandir(folder) as it:
                    return sorted(it, key=lambda e: e.name)
            except OSError as exc:
                raise StoreError(f"cannot list: {exc.strerror}", path=str(folder)) from None

        def walk(folder: Path, parts: tuple[str, ...]) -> None:
            for entry in entries(folder):
                path = Path(entry.path)
                rel = "/".join((*parts, entry.name))
                is_link = entry.is_symlink()
                if is_link:
                    try:
                        self._inside(path, "manifest entry")
                    except FileNotFoundError:
                        if ignored is not None:
                            ignored.append(f"{rel} (dangling symlink)")
                        continue
                is_dir = entry.is_dir(follow_symlinks=True)
                if len(parts) < 3:
                    if is_dir:
                        walk(path, (*parts, entry.name))
                    elif ignored is not None:
                        ignored.append(f"{rel} (file above the tag level)")
                    continue
                if is_dir:  # depth is fixed, so a directory here is never a manifest
                    if ignored is not None:
                        ignored.append(f"{rel} (folder at the tag level)")
                    continue
                host, namespace, model = parts
                name = ModelName.from_parts(host, namespace, model, entry.name)
                if name is None:
                    if ignored is not None:
                        ignored.append(f"{rel} (not a valid model name)")
                    continue
                names.append(name)

        walk(self.manifests_dir, ())
        return names

    def scan(self, *, strict: bool = True) -> tuple[list[Manifest], list[str]]:
        """Every manifest in the store, parsed, plus entries skipped and why.

        ``strict`` (the default) raises on the first unreadable or malformed
        manifest; otherwise that manifest is skipped and its error listed with
        the other skipped entries, so one bad file does not hide the rest.
        """
        ignored: list[str] = []
        manifests: list[Manifest] = []
        for name in self._scan_names(ignored):
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
        return [n.display for n in self._scan_names()]

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
            fd, st, resolved = self._open_regular(path, f"{layer.field} blob")
        except FileNotFoundError:
            raise MissingBlobError(f"{layer.field}: blob for {layer.digest} is missing",
                                   path=str(path)) from None
        try:
            if not verify:
                return BlobCheck(layer, path, st.st_size, None)
            key: CacheKey = (str(resolved), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            known = self.cache.get(key)
            if known is not None:
                return BlobCheck(layer, path, st.st_size, known, cached=True)
            start = time.perf_counter()
            hexdigest = sha256_fd(fd)
            elapsed = time.perf_counter() - start
        finally:
            os.close(fd)
        self.cache.put(key, hexdigest)
        return BlobCheck(layer, path, st.st_size, hexdigest, seconds=elapsed)

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


# --- discovery ------------------------------------------------------------------
def store_candidates(
    option: str | None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    service_store: Path = SERVICE_STORE,
) -> list[tuple[str, Path]]:
    """The places a store is looked for, in order, each with where it came from.

    An explicit ``--models-dir`` wins, then ``$OLLAMA_MODELS``; when either is
    given it is the only candidate, as it is for Ollama itself. Otherwise the
    Linux service store, then the user's ``~/.ollama/models``.
    """
    environ = os.environ if env is None else env
    if option:
        return [("--models-dir", Path(option).expanduser())]
    if environ.get("OLLAMA_MODELS"):
        return [("$OLLAMA_MODELS", Path(environ["OLLAMA_MODELS"]).expanduser())]
    user_home = Path(home) if home is not None else Path(environ.get("HOME") or Path.home())
    return [("Linux service store", service_store), ("user store", user_home / USER_STORE_RELATIVE)]


def locate_store(
    option: str | None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    service_store: Path = SERVICE_STORE,
) -> Path:
    """The first candidate folder that exists; PrerequisiteMissing listing the places looked."""
    candidates = store_candidates(option, env=env, home=home, service_store=service_store)
    for _, path in candidates:
        if path.is_dir():
            return path
    looked = "; ".join(f"{label} {path}" for label, path in candidates)
    raise PrerequisiteMissing(f"no Ollama model store found (looked in: {looked})")


# --- the CLI's view ---------------------------------------------------------------
def _manifest_json(store: OllamaStore, m: Manifest, checks: list[BlobCheck]) -> dict[str, Any]:
    return {
        "name": m.name.display,
        "full_name": m.name.full,
        "manifest": str(m.path.relative_to(store.manifests_dir)),
        "id": m.id,
        "manifest_sha256": m.digest,
        "manifest_bytes": m.file_size,
        "size": m.total_size,
        "size_display": human_bytes(m.total_size),
        "schemaVersion": m.schema_version,
        "mediaType": m.media_type,
        "blobs": [c.to_json() for c in checks],
    }


def inspect(root: Path | str, model: str | None = None, verify: bool = False) -> dict[str, Any]:
    """Summary of a store for ``python -m claims inspect store``.

    Malformed input raises :class:`InputError` (the CLI exits 2). Sizes are
    always compared (a ``stat``); with ``verify`` every blob is also hashed.
    Disagreements are listed under ``problems`` (the CLI exits 1).
    """
    store = OllamaStore(root)
    start = time.perf_counter()
    ignored: list[str] = []
    if model is not None:
        manifests = [store.manifest(model)]
    else:
        manifests, ignored = store.scan()
    problems: list[str] = []
    hashed_bytes = 0
    rows = []
    for m in manifests:
        checks = [store.check_blob(layer, verify=verify) for layer in m.blobs]
        for c in checks:
            problem = c.problem()
            if problem:
                problems.append(problem)
            if verify and not c.cached:
                hashed_bytes += c.actual_size
        rows.append(_manifest_json(store, m, checks))
    summary: dict[str, Any] = {
        "root": str(store.root),
        "manifest_count": len(manifests),
        "manifests": rows,
    }
    if model is None:
        complete, other = store.blob_files()
        referenced = {layer.blob_name for m in manifests for layer in m.blobs}
        summary["blobs"] = {
            "files": len(complete),
            "unreferenced": [n for n in complete if n not in referenced],
            "other_entries": other,
        }
        summary["shared"] = [
            {"digest": digest, "manifests": names}
            for digest, names in sorted(store.shared_blobs(manifests).items())
        ]
        summary["ignored"] = ignored
    summary["verified"] = verify
    summary["hashed_bytes"] = hashed_bytes
    summary["seconds"] = round(time.perf_counter() - start, 4)
    summary["problems"] = problems
    return summary
