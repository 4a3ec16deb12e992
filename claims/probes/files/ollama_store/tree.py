"""The manifests/ tree: which model names its files spell, and what else it holds.

Ollama keeps one manifest per name at exactly four levels below manifests/
(``<host>/<namespace>/<model>/<tag>``). Anything else found there (a file
above the tag level, a folder at it, a part that is not a valid name, a
dangling symlink) is skipped and listed with the reason, never fatal: stores
collect stray files like ``.DS_Store``. A symlink that leads outside the store
root is refused (:class:`StoreError`).
"""

from __future__ import annotations

import os
from pathlib import Path

from claims.probes.files.ollama_store.access import resolve_inside
from claims.probes.files.ollama_store.errors import StoreError
from claims.probes.files.ollama_store.names import ModelName

__all__ = ["MAX_ENTRIES", "manifest_names"]

# A real store holds one manifest per model name (tens, a few hundred); a walk that
# meets more entries than this stops there and says so, instead of listing a tree
# someone linked or copied in.
MAX_ENTRIES = 10_000


def manifest_names(root: Path, manifests_dir: Path) -> tuple[list[ModelName], list[str]]:
    """(names spelled by manifest files, sorted; skipped entries as 'path (why)')."""
    names: list[ModelName] = []
    skipped: list[str] = []
    seen = 0

    def walk(folder: Path, parts: tuple[str, ...]) -> None:
        nonlocal seen
        for entry in _entries(folder):
            seen += 1
            if seen > MAX_ENTRIES:
                if not skipped or not skipped[-1].startswith("(stopped"):
                    skipped.append(f"(stopped listing: more than {MAX_ENTRIES:,} entries "
                                   "under manifests/)")
                return
            path = Path(entry.path)
            rel = "/".join((*parts, entry.name))
            if entry.is_symlink():
                try:
                    resolve_inside(root, path, "manifest entry")
                except FileNotFoundError:
                    skipped.append(f"{rel} (dangling symlink)")
                    continue
            is_dir = entry.is_dir(follow_symlinks=True)
            if len(parts) < 3:
                if is_dir:
                    walk(path, (*parts, entry.name))
                else:
                    skipped.append(f"{rel} (file above the tag level)")
                continue
            if is_dir:  # depth is fixed, so a directory here is never a manifest
                skipped.append(f"{rel} (folder at the tag level)")
                continue
            host, namespace, model = parts
            name = ModelName.from_parts(host, namespace, model, entry.name)
            if name is None:
                skipped.append(f"{rel} (not a valid model name)")
                continue
            names.append(name)

    walk(manifests_dir, ())
    return names, skipped


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The folder's entries sorted by name, so listings are stable across file systems
    (at most MAX_ENTRIES + 1 of them read: a folder of millions is not listed whole)."""
    try:
        with os.scandir(folder) as it:
            entries = []
            for entry in it:
                entries.append(entry)
                if len(entries) > MAX_ENTRIES:
                    break
            return sorted(entries, key=lambda e: e.name)
    except OSError as exc:
        raise StoreError(f"cannot list: {exc.strerror}", path=str(folder)) from None
