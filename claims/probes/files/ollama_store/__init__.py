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

Modules, each named for what it holds:

* :mod:`.errors` – the exceptions (``StoreError``, ``MissingBlobError``,
  ``ManifestError``, ``DigestError``: input errors that name file and field;
  ``BlobMismatch``: a blob that does not verify);
* :mod:`.names` – ``ModelName``, parsing and validating ``[host/][ns/]model[:tag]``;
* :mod:`.digests` – ``sha256:<hex>`` <-> ``sha256-<hex>``;
* :mod:`.discovery` – where a store is (``locate_store``, ``store_candidates``);
* :mod:`.manifest` – reading and validating a manifest, ``Manifest`` and ``Layer``;
* :mod:`.access` – contained, no-follow opening of files under the root;
* :mod:`.tree` – the names the manifests/ tree spells;
* :mod:`.verify` – size and SHA-256 checks of blobs and their cache;
* :mod:`.listing` – the ``ollama list`` row and its byte formatting;
* :mod:`.store` – ``OllamaStore``, the read-only view tying these together;
* :mod:`.summary` – ``inspect``, the summary ``python -m claims inspect store`` prints.

Every public name is importable from this package, as it was from the former
single module.
"""

from __future__ import annotations

from claims.probes.files.ollama_store.digests import (
    BLOB_NAME_RE,
    DIGEST_RE,
    blob_name_to_digest,
    digest_to_blob_name,
)
from claims.probes.files.ollama_store.discovery import (
    SERVICE_STORE,
    USER_STORE_RELATIVE,
    locate_store,
    store_candidates,
)
from claims.probes.files.ollama_store.errors import (
    BlobMismatch,
    DigestError,
    ManifestError,
    MissingBlobError,
    StoreError,
)
from claims.probes.files.ollama_store.listing import ListEntry, human_bytes
from claims.probes.files.ollama_store.manifest import (
    CONFIG_MEDIA_TYPE,
    LAYER_MEDIA_PREFIX,
    MANIFEST_LIST_MEDIA_TYPE,
    MANIFEST_MEDIA_TYPE,
    MAX_MANIFEST_BYTES,
    MODEL_MEDIA_TYPE,
    Layer,
    Manifest,
    parse_manifest,
)
from claims.probes.files.ollama_store.names import (
    DEFAULT_HOST,
    DEFAULT_NAMESPACE,
    DEFAULT_TAG,
    ModelName,
)
from claims.probes.files.ollama_store.store import OllamaStore
from claims.probes.files.ollama_store.summary import inspect
from claims.probes.files.ollama_store.verify import (
    DEFAULT_CACHE,
    BlobCheck,
    CacheKey,
    VerificationCache,
    sha256_fd,
)

__all__ = [
    "BLOB_NAME_RE",
    "CONFIG_MEDIA_TYPE",
    "DEFAULT_CACHE",
    "DEFAULT_HOST",
    "DEFAULT_NAMESPACE",
    "DEFAULT_TAG",
    "DIGEST_RE",
    "LAYER_MEDIA_PREFIX",
    "MANIFEST_LIST_MEDIA_TYPE",
    "MANIFEST_MEDIA_TYPE",
    "MAX_MANIFEST_BYTES",
    "MODEL_MEDIA_TYPE",
    "SERVICE_STORE",
    "USER_STORE_RELATIVE",
    "BlobCheck",
    "BlobMismatch",
    "CacheKey",
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
    "parse_manifest",
    "sha256_fd",
    "store_candidates",
]
