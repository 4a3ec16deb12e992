"""The probes' exception hierarchy.

Every probe failure is a :class:`ProbeError`, so callers (the CLI, the pytest
plugin) can turn any of them into one clear line without a traceback:

* :class:`InputError` – the input is unreadable or malformed (a truncated GGUF,
  a manifest that is not JSON, a digest that is not ``sha256:<64 hex>``). The
  CLI exits 2. Subclasses carry where the problem is (file, offset, field).
* :class:`VerificationError` – the input is well-formed but does not verify (a
  blob whose SHA-256 or size disagrees with its manifest). The CLI exits 1.
* :class:`PrerequisiteMissing` – something the probe needs is not on this
  machine (a library, a model file, a server, a GPU); tests turn it into a skip.
* :class:`ServerError` – a live server failed, timed out or spoke nonsense.
"""

from __future__ import annotations


class ProbeError(Exception):
    """Base class: a probe could not produce its measurement."""


class InputError(ProbeError):
    """Unreadable or malformed input; the message names the file and the problem."""

    def __init__(self, message: str, *, path: str | None = None, offset: int | None = None,
                 field: str | None = None) -> None:
        self.path = path
        self.offset = offset
        self.field = field
        parts = []
        if path is not None:
            parts.append(str(path))
        if offset is not None:
            parts.append(f"offset {offset}")
        if field is not None:
            parts.append(field)
        prefix = ": ".join([", ".join(parts)]) if parts else ""
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.problem = message


class VerificationError(ProbeError):
    """Well-formed input that does not verify (digest or size mismatch)."""


class PrerequisiteMissing(ProbeError):
    """A library, file, tool, server or device the probe needs is not available."""


class ServerError(ProbeError):
    """A live server failed, timed out, or answered with something unusable."""
