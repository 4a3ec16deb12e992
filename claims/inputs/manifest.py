"""The SHA-256 manifest of the transcribed fixtures: an edited value fails every run.

The figures the claims read from the documents are transcribed into
``fixtures/recorded/<DOC>.json`` (and the command outputs and files those name);
each value is anchored to where its document prints it
(``fixtures/recorded/<DOC>.anchors.json``, :mod:`claims.text.transcribed`).
Checking a value against its document needs the documents, which a user's clone
does not have. The manifest (``fixtures/recorded/MANIFEST.sha256``, in
``sha256sum`` format) records the hash of every transcribed file as it was when
its values were last anchored against the documents, so an edited value is caught
on every run, documents or not. It is written only by
``scripts/anchor-transcriptions.py --claims-documents DIR``, after every value was
found at its anchor; ``cd <checkout> && sha256sum -c fixtures/recorded/MANIFEST.sha256``
checks its files by hand.

A transcribed value the catalog states too is not copied into the fixture: the
fixture names the catalog figure (:mod:`claims.text.references`). The manifest
keeps a digest of each such value as it was anchored, on a ``# figure`` line
(a comment to ``sha256sum``), so an edited catalog figure that a fixture names is
caught on every run as an edited fixture is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claims.catalog.loader import Catalog, load_catalog
from claims.text.digests import manifest_documents, sha256_file, value_digest
from claims.text.references import figure_value
from claims.text.transcribed import (
    SEED_FILES,
    figure_references,
    reference_keys,
    transcribed_documents,
)

if TYPE_CHECKING:
    from claims.records import ManifestCheck

__all__ = [
    "FIGURE_LINE",
    "MANIFEST",
    "REGENERATE",
    "anchored_figure_digests",
    "figure_digests",
    "manifest_documents",
    "sha256_file",
    "transcribed_files",
    "verify_manifest",
    "write_manifest",
]

MANIFEST = Path("fixtures") / "recorded" / "MANIFEST.sha256"
# The one command that rewrites it (after re-anchoring every value against the documents).
REGENERATE = ".venv/bin/python scripts/anchor-transcriptions.py --claims-documents DIR"
# The start of a line holding one catalog figure's digest: "# figure <sha256>  <file> <path>".
FIGURE_LINE = "# figure "


def transcribed_files(root: Path, listed: Iterable[str] = ()) -> dict[str, str]:
    """Every transcribed file under ``root`` (relative path -> the document it belongs to):
    each ``fixtures/recorded/<DOC>.json``, its anchors, and the files it names, for each
    document with such a file or (``listed``: the manifest's files) one listed."""
    files: dict[str, str] = {}
    recorded = root / "fixtures" / "recorded"
    listed = set(listed)
    named = {doc for doc in SEED_FILES if f"fixtures/recorded/{doc}.json" in listed}
    for doc in transcribed_documents(root, named):
        files[f"fixtures/recorded/{doc}.json"] = doc
        files[f"fixtures/recorded/{doc}.anchors.json"] = doc
        path = recorded / f"{doc}.json"
        if not path.is_file():
            continue
        try:
            data: Any = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            data = {}
        for key in reference_keys(data) if isinstance(data, dict) else ():
            referenced: Any = data.get(key) or {}
            for rel in referenced.values() if isinstance(referenced, dict) else ():
                files[str(rel)] = doc
    return files


def figure_digests(
    root: Path, catalog: Catalog | None = None
) -> dict[str, tuple[str, str, str]]:
    """``"<file> <path>"`` -> (the digest of the catalog figure named there, the document,
    the figure's label), for every figure reference of every transcribed fixture, resolved
    in ``catalog`` (default: the installed one)."""
    catalog = catalog or load_catalog()
    out: dict[str, tuple[str, str, str]] = {}
    for doc in transcribed_documents(root):
        for ref in figure_references(root, doc):
            where = f"fixtures/recorded/{doc}.json {ref.path}"
            out[where] = (value_digest(where, figure_value(catalog, ref)), doc, ref.label)
    return out


def write_manifest(root: Path) -> Path:
    """Write the manifest of every transcribed file and named catalog figure as it is now."""
    lines = [
        f"{sha256_file(root / rel)}  {rel}\n" for rel in sorted(transcribed_files(root))
    ]
    lines += [
        f"{FIGURE_LINE}{digest}  {where}\n"
        for where, (digest, _, _) in sorted(figure_digests(root).items())
    ]
    path = root / MANIFEST
    path.write_text("".join(lines), "utf-8")
    return path


def _read(path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The file lines and the figure lines of the manifest: place -> digest."""
    entries: dict[str, str] = {}
    figures: dict[str, str] = {}
    for line in path.read_text("utf-8").splitlines():
        into = entries
        if line.startswith(FIGURE_LINE):
            into, line = figures, line.removeprefix(FIGURE_LINE)
        digest, sep, rel = line.partition("  ")
        if sep and len(digest) == 64:
            into[rel.strip()] = digest
    return entries, figures


def anchored_figure_digests(root: Path) -> dict[str, str]:
    """The manifest's figure lines: ``"<file> <path>"`` -> the digest of the value found
    at its anchor when the manifest was written (empty without a manifest)."""
    path = root / MANIFEST
    return _read(path)[1] if path.is_file() else {}


def verify_manifest(root: Path, catalog: Catalog | None = None) -> ManifestCheck | None:
    """Compare every transcribed file, and every catalog figure a fixture names, with the
    manifest (None: this tree has no manifest).

    ``problems`` holds one entry per file or figure that differs, is missing or is not
    listed, each with the document it belongs to (``doc``) and a sentence naming it.
    """
    path = root / MANIFEST
    if not path.is_file():
        return None
    listed, listed_figures = _read(path)
    problems: list[dict[str, str]] = []
    files = transcribed_files(root, listed)
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
    try:
        figures = figure_digests(root, catalog)
    except (OSError, ValueError) as exc:  # an unreadable fixture is already a file problem
        figures = {}
        problems.append({"doc": "", "file": str(MANIFEST), "problem": str(exc)})
    for where, (digest, doc, label) in sorted(figures.items()):
        expected = listed_figures.get(where)
        if expected != digest:
            rel = where.split(" ", 1)[0]
            problems.append({"doc": doc, "file": rel, "problem": (
                f"{label}, which {where} names, "
                + ("was never anchored against the documents"
                   if expected is None else "was edited after it was anchored against "
                   "the documents")
                + f"; if the catalog is right, run {REGENERATE}")})
    return {"manifest": str(MANIFEST), "checked": len(files) + len(figures),
            "problems": problems}
