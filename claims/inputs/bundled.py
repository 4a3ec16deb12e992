"""The bundled third-party fixtures, checked byte for byte on every run.

``fixtures/lab/`` is the author's lab repository (github:dramasamy/from-api-to-gpu),
copied byte for byte at one commit, its provenance in ``fixtures/lab/upstream.json``
(upstream path, git blob id and the commit that last changed each file);
``fixtures/hub/`` is the Week 3 snapshot of Qwen2.5-3B-Instruct. Which documents
rely on a file is the catalog's to say: each ``[document]`` table lists the files
and folders it relies on under ``lab`` and ``hub``, and a file none lists (the
copy's own README and manifests) is relied on by every document that relies on
its folder. Claims read
figures from both, and some files no post quotes still decide a claim, so
every file under either folder is listed with its SHA-256 in
``fixtures/BUNDLED.sha256`` (``sha256sum`` format). Every run that activates
the plugin compares the folders with it, and each lab file with the git blob id
``upstream.json`` records: a changed, added or missing byte fails the claim
tests of the documents that rely on the file, naming it.
``scripts/bundle-fixtures.py`` is the one command that rewrites the manifest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claims.catalog.loader import Catalog, covers, load_catalog
from claims.catalog.records import Document

__all__ = [
    "BUNDLED",
    "BUNDLED_DIRS",
    "REGENERATE",
    "bundled_files",
    "git_blob_id",
    "listing_documents",
    "relying_documents",
    "verify_bundled",
    "write_bundled",
]

BUNDLED = Path("fixtures") / "BUNDLED.sha256"
REGENERATE = ".venv/bin/python scripts/bundle-fixtures.py"
# Each bundled folder and the [document] field listing what a document relies on in it.
BUNDLED_DIRS: dict[str, Callable[[Document], tuple[str, ...]]] = {
    "fixtures/lab": lambda doc: doc.lab,
    "fixtures/hub": lambda doc: doc.hub,
}
UPSTREAM = "fixtures/lab/upstream.json"
# Python writes bytecode beside any .py it imports or compiles (``python -m compileall .``,
# an IDE): those caches are the interpreter's, not the copy's content, and are not checked.
_CACHE_DIR = "__pycache__"


def relying_documents(catalog: Catalog, rel: str) -> tuple[str, ...]:
    """The documents relying on the bundled file ``rel`` (relative to the checkout), in
    series order: those whose ``lab``/``hub`` list holds it, else (a file no document
    lists: the copy's own README or manifest, or one nobody should have added) every
    document relying on anything in its folder."""
    folder = next((f for f in BUNDLED_DIRS if rel.startswith(f + "/")), None)
    if folder is None:  # not under a bundled folder: every document relying on one
        return tuple(d.id for d in catalog.documents
                     if any(listed(d) for listed in BUNDLED_DIRS.values()))
    listed = BUNDLED_DIRS[folder]
    return listing_documents(catalog, rel) or tuple(
        d.id for d in catalog.documents if listed(d))


def listing_documents(catalog: Catalog, rel: str) -> tuple[str, ...]:
    """The documents whose ``lab``/``hub`` list holds the bundled file ``rel`` itself."""
    folder = next((f for f in BUNDLED_DIRS if rel.startswith(f + "/")), None)
    if folder is None:
        return ()
    inside = rel.removeprefix(folder + "/")
    return tuple(d.id for d in catalog.documents
                 if any(covers(p, inside) for p in BUNDLED_DIRS[folder](d)))


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def git_blob_id(data: bytes) -> str:
    """Git's id of a file's bytes (SHA-1 of ``blob <size>\\0`` + bytes)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _upstream(root: Path) -> dict[str, Any]:
    path = root / UPSTREAM
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return files if isinstance(files, dict) else {}


def bundled_files(root: Path, catalog: Catalog | None = None) -> dict[str, tuple[str, ...]]:
    """Every file under the bundled folders (path relative to ``root`` -> the documents
    of ``catalog``, default the bundled one, relying on it), symlinks and all: anything
    that is there is checked."""
    catalog = catalog or load_catalog()
    found: dict[str, tuple[str, ...]] = {}
    for folder in BUNDLED_DIRS:
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                continue
            if _CACHE_DIR in path.relative_to(base).parts[:-1]:
                continue
            rel = path.relative_to(root).as_posix()
            found[rel] = relying_documents(catalog, rel)
    return found


def write_bundled(root: Path) -> Path:
    """Write the manifest of the bundled folders as they are now."""
    lines = [f"{_sha256(root / rel)}  {rel}\n" for rel in bundled_files(root)]
    path = root / BUNDLED
    path.write_text("".join(lines), "utf-8")
    return path


def _listed(path: Path) -> dict[str, str]:
    entries: dict[str, str] = {}
    for line in path.read_text("utf-8").splitlines():
        digest, sep, rel = line.partition("  ")
        if sep and len(digest) == 64:
            entries[rel.strip()] = digest
    return entries


def verify_bundled(root: Path, catalog: Catalog | None = None) -> dict[str, Any] | None:
    """Compare the bundled folders with their manifest (None: this tree has none).

    Returns ``{"manifest", "checked", "problems"}``; each problem names the file and
    one document relying on it (``doc``, from ``catalog``, default the bundled one),
    one entry per such document.
    """
    path = root / BUNDLED
    if not path.is_file():
        return None
    catalog = catalog or load_catalog()
    listed = _listed(path)
    files = bundled_files(root, catalog)
    upstream = _upstream(root)
    problems: list[dict[str, str]] = []

    def add(rel: str, docs: tuple[str, ...], text: str) -> None:
        problems.extend({"doc": d, "file": rel, "problem": text} for d in docs)

    for rel, docs in files.items():
        file = root / rel
        expected = listed.get(rel)
        if file.is_symlink() or not file.is_file():
            add(rel, docs, f"{rel} is not a plain file (bundled fixtures are copied bytes)")
            continue
        digest = _sha256(file)
        if expected is None:
            add(rel, docs, f"{rel} is not in {BUNDLED}: a bundled file must be listed; "
                f"if it belongs there, run {REGENERATE}")
        elif digest != expected:
            add(rel, docs, f"{rel} was edited (SHA-256 {digest[:12]}…, {BUNDLED} says "
                f"{expected[:12]}…); if the edit is right, run {REGENERATE}")
        entry = upstream.get(Path(rel).relative_to("fixtures/lab").as_posix()) \
            if rel.startswith("fixtures/lab/") else None
        if isinstance(entry, dict) and entry.get("git_blob") != git_blob_id(file.read_bytes()):
            add(rel, docs, f"{rel} is not the lab's file: its git blob id differs from "
                f"{entry.get('git_blob')} in {UPSTREAM}")
        elif entry is None and rel.startswith("fixtures/lab/") \
                and listing_documents(catalog, rel):
            # A lab file a document relies on is the lab's: its provenance is recorded.
            add(rel, docs, f"{rel} is a lab file {', '.join(docs)} relies on, but {UPSTREAM} "
                f"has no entry for it (upstream path, git blob id, last commit); run "
                f"{REGENERATE} --lab-repo GITDIR")
    for rel in sorted(set(listed) - set(files)):
        add(rel, relying_documents(catalog, rel), f"{rel} is missing")
    return {"manifest": str(BUNDLED), "checked": len(files), "problems": problems}
