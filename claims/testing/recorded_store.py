"""The model store a real Ollama 0.31.2 wrote, assembled for the offline tier.

``fixtures/ollama-0.31.2/store/`` holds the manifest and config blob that
``ollama create`` wrote, byte for byte (see its README). The model blob is the
bundled Gemma GGUF itself, so it is not copied into the repository: it is
linked (or copied) into a temporary store here, after checking that the
manifest names exactly the digest the package declares.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from claims.probes.errors import InputError
from claims.probes.files.ollama_store import OllamaStore
from claims.testing import recordings

__all__ = [
    "PROVENANCE",
    "SHARED_BLOB_PROVENANCE",
    "assemble",
    "printed_list",
    "recorded_store_dir",
    "shared_blob_store_dir",
]

LISTING = "ollama-list.txt"

PROVENANCE = (
    "a store written by a real Ollama 0.31.2 (`ollama create gemma3:270m`), manifest and "
    "config blob copied byte for byte (fixtures/ollama-0.31.2/store), model blob the "
    "bundled Gemma GGUF"
)


SHARED_BLOB_PROVENANCE = (
    "a store written by a real Ollama 0.31.2 in which three names share one weight blob "
    "(`ollama create` of gemma3:270m and gemma3-copy:270m from the same GGUF, and of "
    "gemma3-brief:270m FROM gemma3:270m), manifests and small blobs copied byte for byte "
    "(fixtures/ollama-0.31.2/store-shared-blob), model blob the bundled Gemma GGUF"
)


def shared_blob_store_dir() -> Path:
    """fixtures/ollama-0.31.2/store-shared-blob: three names, one weight blob (its README)."""
    return recordings.fixtures_dir() / "ollama-0.31.2" / "store-shared-blob"


def recorded_store_dir(version: str = "0.31.2") -> Path:
    """fixtures/ollama-<version>/store, in the folder :mod:`claims.testing.recordings` names.

    0.31.2's is the one the store claims are checked on; 0.32.15's differs in its config
    blob (fixtures/ollama-0.32.15/store/README.md).
    """
    return recordings.fixtures_dir() / f"ollama-{version}" / "store"


def _special_files(folder: str, names: list[str]) -> list[str]:
    """The entries of ``folder`` that are neither files, folders nor links (never copied)."""
    def special(name: str) -> bool:
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            return True
        return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))

    return [n for n in names if special(n)]


def _owner_writable(root: Path) -> None:
    """Let the owner write ``root`` and the folders under it (links untouched).

    copytree gives each folder its source's mode whatever its ``copy_function``
    (``shutil.copystat``), so a folder copied from a read-only checkout is read-only.
    """
    for folder, _, _ in os.walk(root):
        mode = os.lstat(folder).st_mode
        if not mode & stat.S_IWUSR:
            os.chmod(folder, stat.S_IMODE(mode) | stat.S_IWUSR)


def assemble(source: Path, dest: Path, gguf: Path, gguf_sha256: str) -> Path:
    """A complete store under ``dest``: ``source``'s manifests and blobs, plus the model
    blob ``gguf`` (whose verified sha256 is ``gguf_sha256``) under its digest's name."""
    if not (source / "manifests").is_dir():
        raise InputError(f"{source}: no manifests/ folder (not a recorded store)")
    for sub in ("manifests", "blobs"):
        # Links are copied as links, never followed: a store's link to / or /proc/kmsg
        # must not become a copy of the machine (the store probe refuses them later).
        # Contents only (copyfile), not modes: a checkout that cannot be written (a
        # read-only mount, a container's layer, chmod a-w) would otherwise give a copy
        # its owner cannot write into either, and adding the model blob below fails.
        shutil.copytree(source / sub, dest / sub, dirs_exist_ok=True, symlinks=True,
                        ignore=_special_files, copy_function=shutil.copyfile)
        _owner_writable(dest / sub)
    target = dest / "blobs" / f"sha256-{gguf_sha256}"
    manifests, _ = OllamaStore(dest).scan(strict=False)
    if not any(b.digest == f"sha256:{gguf_sha256}" for m in manifests for b in m.blobs):
        raise InputError(f"{source}: no manifest names the GGUF's digest sha256:{gguf_sha256}")
    listing = source / LISTING
    if listing.is_file():
        shutil.copyfile(listing, dest / LISTING)
    if not target.exists():
        try:
            os.link(gguf, target)  # no second 253 MB copy on the same file system
        except OSError:
            shutil.copyfile(gguf, target)
    return dest


def printed_list(store_root: Path) -> dict[str, str]:
    """NAME -> ID from what `ollama list` printed for an assembled recorded store."""
    path = store_root / LISTING
    if not path.is_file():
        return {}
    rows: dict[str, str] = {}
    for line in path.read_text("utf-8").splitlines()[1:]:
        cells = line.split()
        if len(cells) >= 2:
            rows[cells[0]] = cells[1]
    return rows
