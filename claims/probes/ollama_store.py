"""Ollama's model store on disk: manifests, digests and blobs.

A digest is ``sha256:<64 lowercase hex>``; its blob lives at
``blobs/sha256-<hex>`` (the colon becomes a hyphen). Digests are validated
against that pattern before any path is built from them, so a manifest cannot
steer a read outside the store.
"""

from __future__ import annotations

import re

from claims.probes.errors import InputError

__all__ = ["DigestError", "blob_name_to_digest", "digest_to_blob_name"]

# Ollama itself accepts upper-case hex too (^sha256[:-][0-9a-fA-F]{64}$); the
# registry and every stored file name use lower case, and so do we when writing.
DIGEST_RE = re.compile(r"sha256:([0-9a-fA-F]{64})")
BLOB_NAME_RE = re.compile(r"sha256-([0-9a-fA-F]{64})")


class DigestError(InputError):
    """A digest or blob name that is not sha256 with 64 hex digits."""


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
