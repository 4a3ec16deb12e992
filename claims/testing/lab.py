"""The author's raw lab results (fixtures/lab/): the figures the posts were written from.

``fixtures/lab/manifest.json`` names, per file, the upstream repository path, the
git blob id and SHA-256 it was copied with, and what each field measures (unit, per
call or per run) according to the script that wrote it. :func:`results` reads one
week's file for the claim tests; tests/fixtures/test_lab.py checks the digests.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from claims.catalog.loader import load_catalog
from claims.inputs.bundled import git_blob_id, relying_documents
from claims.probes.errors import InputError
from claims.testing import recordings

__all__ = [
    "PROVENANCE",
    "document_of",
    "file_for",
    "git_blob_id",
    "lab_dir",
    "manifest",
    "pins",
    "results",
    "week_folders",
]

PROVENANCE = (
    "the author's lab results (github:dramasamy/from-api-to-gpu, commit e834f90), "
    "copied byte for byte into fixtures/lab"
)



def lab_dir() -> Path:
    """fixtures/lab, in the folder :mod:`claims.testing.recordings` names."""
    return recordings.fixtures_dir() / "lab"


def manifest() -> dict[str, Any]:
    """fixtures/lab/manifest.json: provenance and field units of every copied file."""
    data: dict[str, Any] = json.loads((lab_dir() / "manifest.json").read_text("utf-8"))
    return data


def document_of(key: str) -> str:
    """The one document relying on the manifest's file ``key`` (a path under fixtures/lab):
    the catalog's ``[document]`` lab lists say which, not the manifest."""
    docs = relying_documents(load_catalog(), f"fixtures/lab/{key}")
    if len(docs) != 1:
        raise InputError(f"fixtures/lab/manifest.json: {key} is relied on by "
                         f"{', '.join(docs) or 'no document'}, not by one document's lab list")
    return docs[0]


def week_folders() -> dict[str, str]:
    """Document id -> the week's folder under fixtures/lab: the folder of each file the
    manifest describes, for the document whose lab list holds it (the manifest is the
    one list of the lab's results, the catalog the one list of who relies on what)."""
    labs = tuple((doc.id, doc.lab) for doc in load_catalog().documents)
    return dict(_week_folders(tuple(manifest()["files"]), labs))


# Every lab claim test asks for its week's folder, and each answer walks the whole
# manifest against the whole catalog: computed once per manifest folder and set of
# lab lists, it stops growing with the square of the series (issue 51).
@lru_cache(maxsize=8)
def _week_folders(
    files: tuple[str, ...], labs: tuple[tuple[str, tuple[str, ...]], ...]
) -> tuple[tuple[str, str], ...]:
    folders: dict[str, str] = {}
    for key in files:
        folders.setdefault(document_of(key), key.split("/", 1)[0])
    return tuple(folders.items())


def _week(doc_id: str) -> str:
    weeks = week_folders()
    if doc_id not in weeks:
        raise InputError(f"no lab results for document {doc_id!r} (have {', '.join(weeks)})")
    return weeks[doc_id]


def file_for(doc_id: str) -> str:
    """The manifest key (upstream path) of a document's results.json."""
    return f"{_week(doc_id)}/results.json"


def results(doc_id: str) -> dict[str, Any]:
    """A week's results.json, parsed. Not checked against the manifest's digests here:
    a claim test judges the figures themselves, so an edited figure changes its verdict
    (tests/fixtures/test_lab.py checks the digests)."""
    path = lab_dir() / file_for(doc_id)
    try:
        parsed = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not readable lab results ({exc})") from None
    if not isinstance(parsed, dict):
        raise InputError(f"{path}: lab results are not a JSON object")
    return parsed


def pins(doc_id: str) -> dict[str, str]:
    """A week's requirements.txt pins (``name==version`` lines) as name -> version."""
    path = lab_dir() / _week(doc_id) / "requirements.txt"
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise InputError(f"{path}: not readable ({exc})") from None
    found: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep:
            found[name.strip().lower()] = version.strip()
    return found
