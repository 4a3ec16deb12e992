"""Every program a document prints from the lab is found, transcribed and compared
(claims.text.programs), with the documents ($CLAIMS_DOCUMENTS; skipped without)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.catalog.records import Document
from claims.text.programs import lab_files, printed_files
from claims.text.sources import Source, read_sources
from claims.text.transcribed import PROGRAMS_PRINTED, recorded_path
from claims.text.transcribed import load_anchors as load_recorded_anchors

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "fixtures" / "lab"
DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")
pytestmark = pytest.mark.skipif(
    not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")


def _transcribed(doc: str) -> dict[str, str]:
    path = recorded_path(ROOT, doc)
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text("utf-8")).get(PROGRAMS_PRINTED) or {})


def _sources() -> tuple[list[Document], dict[tuple[str, str], Source]]:
    assert DOCUMENTS is not None
    catalog = load_catalog()
    docs = list(catalog.documents)
    return docs, read_sources(docs, Path(DOCUMENTS), ROOT, docs)


def test_every_printed_lab_program_is_transcribed_and_every_transcription_is_found() -> None:
    docs, sources = _sources()
    missing: list[str] = []
    unfound: list[str] = []
    for doc in docs:
        held = _transcribed(doc.id)
        runs = printed_files(doc, sources, LAB)
        for run in runs:
            if run.program and run.lab not in held:
                missing.append(f"{doc.id}: {run.source.label} lines {run.first}-{run.last} "
                               f"print {run.lab} lines {run.lab_first}-{run.lab_last}")
        found = {r.lab for r in runs if r.program}
        unfound += [f"{doc.id}: {lab}" for lab in held if lab not in found]
    assert missing == [], "printed lab programs no claim compares (transcribe them, "\
        "docs/inputs.md):\n" + "\n".join(missing)
    assert unfound == [], "transcribed as printed, yet not printed:\n" + "\n".join(unfound)


def test_each_transcription_is_the_documents_lines_as_printed() -> None:
    """The transcription is a block of the document's lines byte for byte, from where its
    first line is anchored: no printed line left out, none added, nothing retyped."""
    docs, sources = _sources()
    checked = 0
    for doc in docs:
        anchors = load_recorded_anchors(ROOT, doc.id) if _transcribed(doc.id) else {}
        for lab, rel in _transcribed(doc.id).items():
            assert lab in lab_files(doc, LAB), f"{doc.id}: {lab} is not in its lab folders"
            text = (ROOT / rel).read_text("utf-8")
            first = anchors[f"{rel}:line 1"]
            source = sources[("seed", str(first["seed"]))]
            start = int(first["line"])
            lines = text.splitlines()
            assert source.lines[start - 1 : start - 1 + len(lines)] == lines, rel
            checked += 1
    assert checked >= 1
