"""The store probe's exceptions, all from :mod:`claims.probes.errors`.

Malformed or unusable input is an :class:`~claims.probes.errors.InputError`
(the CLI exits 2); each names the file and, where there is one, the field:

* :class:`StoreError` – the store or a name in it is unusable: no such folder,
  a bad model name, a missing manifest, a file that is not regular or that
  leads outside the store root;
* :class:`MissingBlobError` (a :class:`StoreError`) – a manifest names a blob
  that is not under ``blobs/``;
* :class:`ManifestError` – a manifest that is not JSON or not a valid v2 manifest;
* :class:`DigestError` – a digest or blob name that is not sha256 with 64 hex
  digits (refused before any path is built from it).

Well-formed input that does not verify is a
:class:`~claims.probes.errors.VerificationError` (the CLI exits 1):

* :class:`BlobMismatch` – a blob whose size or SHA-256 disagrees with its manifest.
"""

from __future__ import annotations

from claims.probes.errors import InputError, VerificationError

__all__ = ["BlobMismatch", "DigestError", "ManifestError", "MissingBlobError", "StoreError"]


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
