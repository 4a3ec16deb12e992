"""Opening files inside a store root, and nothing outside it.

Every path the probe reads is resolved first (symlinks included) and must lie
under the store root; a file is then opened without following a final
symlink, so it cannot be swapped for one between the check and the open, and
must be a regular file: a FIFO would block a reader and a device might never
end. A path that does not exist raises :class:`FileNotFoundError` for the
caller to turn into the error that names what was missing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from claims.probes.files.ollama_store.errors import StoreError

__all__ = ["failure_reason", "open_regular", "resolve_inside", "resolve_root"]


def failure_reason(exc: OSError | RuntimeError) -> str:
    """The OS's words for a failed resolve or open (a symlink loop can be a RuntimeError)."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def resolve_root(root: Path | str) -> tuple[Path, Path]:
    """(as given, resolved) for a store root: an existing folder holding manifests/.

    :class:`StoreError` when it is missing, not a folder, not a store, or when
    its manifests/ leads outside it.
    """
    given = Path(root).expanduser()
    try:
        resolved = given.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise StoreError(f"cannot open the store: {failure_reason(exc)}",
                         path=str(given)) from None
    if not resolved.is_dir():
        raise StoreError("is not a folder", path=str(given))
    if not (resolved / "manifests").is_dir():
        raise StoreError("not an Ollama store: it has no manifests/ folder", path=str(given))
    if not (resolved / "manifests").resolve().is_relative_to(resolved):
        raise StoreError("manifests/ leads outside the store", path=str(given / "manifests"))
    return given, resolved


def resolve_inside(root: Path, path: Path, what: str) -> Path:
    """``path`` resolved; StoreError when it (or a symlink on the way) leaves ``root``."""
    try:
        resolved = path.resolve(strict=True)
    except FileNotFoundError:
        raise
    except (OSError, RuntimeError) as exc:
        raise StoreError(f"cannot resolve {what}: {failure_reason(exc)}",
                         path=str(path)) from None
    if not resolved.is_relative_to(root):
        raise StoreError(f"{what} leads outside the store (to {resolved})", path=str(path))
    return resolved


def open_regular(root: Path, path: Path, what: str) -> tuple[int, os.stat_result, Path]:
    """Open a file inside ``root`` for reading: (fd, fstat, resolved path).

    The path is resolved and contained first, opened without following a
    final symlink (so it cannot be swapped for one in between), and must be
    a regular file: a FIFO or device would block or never end. The caller
    closes the descriptor.
    """
    resolved = resolve_inside(root, path, what)
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
