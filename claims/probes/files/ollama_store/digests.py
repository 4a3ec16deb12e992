"""Digests and blob file names: ``sha256:<64 hex>`` <-> ``blobs/sha256-<64 hex>``.

A manifest names a blob by its digest; the file under ``blobs/`` spells the
same digest with a hyphen for the colon. Both spellings are validated against
their pattern before anything else is done with them, so no path is ever built
from a digest that could hold a separator or ``..``.
"""

from __future__ import annotations

import re

from claims.probes.files.ollama_store.errors import DigestError

__all__ = ["BLOB_NAME_RE", "DIGEST_RE", "blob_name_to_digest", "digest_to_blob_name"]

# Ollama itself accepts upper-case hex too (^sha256[:-][0-9a-fA-F]{64}$); the
# registry and every stored file name use lower case, and so do we when writing.
DIGEST_RE = re.compile(r"sha256:([0-9a-fA-F]{64})")
BLOB_NAME_RE = re.compile(r"sha256-([0-9a-fA-F]{64})")


def digest_to_blob_name(digest: str) -> str:
    """'sha256:<hex>' -> 'sha256-<hex>' (the file name under blobs/)."""
    return _respell(digest, DIGEST_RE, "sha256-", what="digest", spelling="sha256:<64 hex>",
                    field="digest")


def blob_name_to_digest(name: str) -> str:
    """'sha256-<hex>' -> 'sha256:<hex>' (inverse of :func:`digest_to_blob_name`)."""
    return _respell(name, BLOB_NAME_RE, "sha256:", what="blob name", spelling="sha256-<64 hex>",
                    field="blob")


def _respell(value: object, pattern: re.Pattern[str], prefix: str, *, what: str, spelling: str,
             field: str) -> str:
    """The hex digits of ``value`` (validated by ``pattern``), lower-cased, after ``prefix``."""
    # Callers outside the type checker (JSON, CLI arguments) can pass anything.
    if not isinstance(value, str):
        raise DigestError(f"{what} must be a string, got {type(value).__name__}", field=field)
    m = pattern.fullmatch(value)
    if m is None:
        raise DigestError(f"not a {spelling} {what}: {value[:100]!r}", field=field)
    return f"{prefix}{m.group(1).lower()}"
