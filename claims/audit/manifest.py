"""The SHA-256 manifest of the transcribed fixtures: an edited value fails every run.

The figures the claims read from the documents are transcribed into
``fixtures/recorded/<DOC>.json`` (and the command outputs and files those name);
each value is anchored to where its document prints it
(``fixtures/recorded/<DOC>.anchors.json``, :mod:`claims.audit.transcribed`).
Checking a value against its document needs the documents, which a user's clone
does not have. The manifest (``fixtures/recorded/MANIFEST.sha256``, in
``sha256sum`` format) records the hash of every transcribed file as it was when
its values were last anchored against the documents, so an edited value is caught
on every run, documents or not. It is written only by
``scripts/anchor-transcriptions.py --claims-documents DIR``, after every value was
found at its anchor; ``cd <checkout> && sha256sum -c fixtures/recorded/MANIFEST.sha256``
checks it by hand.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claims.records import ManifestCheck

__all__ = [
    "MANIFEST",
    "REGENERATE",
    "manifest_documents",
    "transcribed_files",
    "verify_manifest",
    "write_manifest",
]

MANIFEST = Path("fixtures") / "recorded" / "MANIFEST.sha256"
# The one command that rewrites it (after re-anchoring every value against the documents).
REGENERATE = ".venv/bin/python scripts/anchor-transcriptions.py --claims-documents DIR"


def sha256_file(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def transcribed_files(root: Path) -> dict[str, str]:
    """Every transcribed file under ``root`` (relative path -> the document it belongs to):
    each ``fixtures/recorded/<DOC>.json``, its anchors, and the files it names."""
    from claims.audit.transcribed import FILE_REFERENCES, SEED_FILES

    files: dict[str, str] = {}
    recorded = root / "fixtures" / "recorded"
    for doc in SEED_FILES:
        files[f"fixtures/recorded/{doc}.json"] = doc
        files[f"fixtures/recorded/{doc}.anchors.json"] = doc
        refs = FILE_REFERENCES.get(doc)
        path = recorded / f"{doc}.json"
        if refs and path.is_file():
            try:
                named = json.loads(path.read_text("utf-8")).get(refs) or {}
            except (OSError, ValueError):
                named = {}
            for rel in named.values() if isinstance(named, dict) else ():
                files[str(rel)] = doc
    return files


def write_manifest(root: Path) -> Path:
    """Write the manifest of every transcribed file as it is now."""
    lines = [
        f"{sha256_file(root / rel)}  {rel}\n" for rel in sorted(transcribed_files(root))
    ]
    path = root / MANIFEST
    path.write_text("".join(lines), "utf-8")
    return path


def _read(path: Path) -> dict[str, str]:
    entries: dict[str, str] = {}
    for line in path.read_text("utf-8").splitlines():
        digest, sep, rel = line.partition("  ")
        if sep and len(digest) == 64:
            entries[rel.strip()] = digest
    return entries


def verify_manifest(root: Path) -> ManifestCheck | None:
    """Compare every transcribed file with the manifest (None: this tree has no manifest).

    ``problems`` holds one entry per file that differs, is missing or is not listed,
    each with the document it belongs to (``doc``) and a sentence naming the file.
    """
    path = root / MANIFEST
    if not path.is_file():
        return None
    listed = _read(path)
    problems: list[dict[str, str]] = []
    files = transcribed_files(root)
    for rel, doc in sorted(files.items()):
        expected = listed.get(rel)
        file = root / rel
        if expected is None:
            problems.append({"doc": doc, "file": rel, "problem": (
                f"{rel} is not in {MANIFEST}: its values were never anchored against the "
                f"documents; run {REGENERATE}")})
        elif not file.is_file():
            problems.append({"doc": doc, "file": rel, "problem": f"{rel} is missing"})
        elif sha256_file(file) != expected:
            problems.append({"doc": doc, "file": rel, "problem": (
                f"{rel} was edited after its values were anchored against the documents "
                f"(SHA-256 {sha256_file(file)[:12]}…, {MANIFEST} says {expected[:12]}…); "
                f"if the edit is right, run {REGENERATE}")})
    return {"manifest": str(MANIFEST), "checked": len(files), "problems": problems}


def manifest_documents(documents: Path, names: list[str]) -> list[dict[str, str]]:
    """The documents used, by file name and SHA-256 (for the evidence and the report)."""
    return [
        {"file": name, "sha256": sha256_file(documents / name)}
        for name in names
        if (documents / name).is_file()
    ]
