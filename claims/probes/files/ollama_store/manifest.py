"""Manifests: reading one file, validating it, and the parsed form.

A manifest is a small JSON file at ``manifests/<host>/<namespace>/<model>/<tag>``
(Docker's image manifest v2, schema version 2): a ``config`` entry and a list of
``layers``, each with a media type, a sha256 digest and a size in bytes. The
file's own SHA-256 is the model's ID in ``ollama list``.

Validation is strict and names the field (``layers[0].digest``): duplicate
keys, another schema version or media type, a missing or mistyped entry, a
size that is not a non-negative integer, a digest that is not sha256 are all a
:class:`ManifestError` or :class:`DigestError`. Files are read with a size cap,
so memory stays bounded whatever the input.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.probes.files.ollama_store.access import open_regular
from claims.probes.files.ollama_store.digests import DIGEST_RE, digest_to_blob_name
from claims.probes.files.ollama_store.errors import DigestError, ManifestError, StoreError
from claims.probes.files.ollama_store.names import ModelName

__all__ = [
    "CONFIG_MEDIA_TYPE",
    "LAYER_MEDIA_PREFIX",
    "MANIFEST_LIST_MEDIA_TYPE",
    "MANIFEST_MEDIA_TYPE",
    "MAX_MANIFEST_BYTES",
    "MODEL_MEDIA_TYPE",
    "Layer",
    "Manifest",
    "load_manifest",
    "parse_manifest",
]

MANIFEST_MEDIA_TYPE = "application/vnd.docker.distribution.manifest.v2+json"
MANIFEST_LIST_MEDIA_TYPE = "application/vnd.ollama.manifest.list.v2+json"
CONFIG_MEDIA_TYPE = "application/vnd.docker.container.image.v1+json"
MODEL_MEDIA_TYPE = "application/vnd.ollama.image.model"
LAYER_MEDIA_PREFIX = "application/vnd.ollama.image."

# Real manifests are about 1 KB; anything past this cap is not a manifest, and
# refusing it keeps memory bounded on hostile input.
MAX_MANIFEST_BYTES = 1 << 20


@dataclass(frozen=True)
class Layer:
    """One entry of a manifest (the config or a layer): what it is, which blob, how big."""

    media_type: str
    digest: str
    size: int  # bytes, as the manifest states it
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
    file_size: int  # bytes
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


def load_manifest(root: Path, path: Path, name: ModelName) -> Manifest:
    """Read, hash and validate the manifest file ``path`` inside the store ``root``."""
    try:
        fd, st, _ = open_regular(root, path, "manifest")
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
    version = _require(doc, "schemaVersion", path, "schemaVersion")
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
    _validate_entry(_require(doc, "config", path, "config"), path, "config")
    layers = _require(doc, "layers", path, "layers")
    if not isinstance(layers, list):
        raise ManifestError(f"is a JSON {_json_type(layers)}, expected an array", path=path,
                            field="layers")
    if not layers:
        raise ManifestError("is empty: a model has at least one layer", path=path, field="layers")
    for i, entry in enumerate(layers):
        _validate_entry(entry, path, f"layers[{i}]")
    return doc


def _require(obj: Mapping[str, Any], key: str, path: str, field: str) -> Any:
    """``obj[key]``; ManifestError "missing" (naming ``field``) when the key is absent."""
    if key not in obj:
        raise ManifestError("missing", path=path, field=field)
    return obj[key]


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
    # All three are checked for presence before any for its type, so a layer
    # missing its size says so even when its digest is also wrong.
    media_type, digest, size = (_require(entry, key, path, f"{where}.{key}")
                                for key in ("mediaType", "digest", "size"))
    if not isinstance(media_type, str) or not media_type:
        raise ManifestError(f"is {_short(media_type)}, expected a non-empty string",
                            path=path, field=f"{where}.mediaType")
    if not isinstance(digest, str) or DIGEST_RE.fullmatch(digest) is None:
        raise DigestError(f"{_short(digest)} is not sha256:<64 hex>", path=path,
                          field=f"{where}.digest")
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
