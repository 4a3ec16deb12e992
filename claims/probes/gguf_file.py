"""GGUF files: header facts read without touching tensor data."""

from __future__ import annotations

from pathlib import Path

from claims.probes.errors import InputError

GGUF_MAGIC = b"GGUF"


def read_magic(path: Path | str) -> bytes:
    """The first four bytes of a file (a GGUF file starts with b'GGUF' = 47 47 55 46)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(p)) from None
    if len(head) < 4:
        raise InputError(f"file has {len(head)} bytes, fewer than the 4-byte magic", path=str(p), offset=0)
    return head
