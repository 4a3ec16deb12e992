"""What a run's results rest on besides the code: the transcribed fixtures and the documents.

:func:`check_inputs` runs once, when the plugin activates:

* the fixtures' SHA-256 manifest (:mod:`claims.inputs.manifest`), whenever the
  rootdir has one: an edited transcription fails the claim tests of its
  document with a message naming the file, documents or not;
* the bundled third-party fixtures (the author's lab, the Hub snapshot) against
  ``fixtures/BUNDLED.sha256`` (:mod:`claims.inputs.bundled`), on every run: their problems
  join the manifest's, so an edited lab or hub byte fails the claim tests of the
  documents relying on the file;
* the catalog's stated figures against their anchors (:mod:`claims.text.anchors`), when
  the catalog is the bundled one: a figure without an anchor, or that no longer says
  what its anchored text prints, fails its document's claim tests, naming it; with the
  documents named, every anchor is also checked where the document prints it;
* the transcription check, only when the documents are named
  (``--claims-documents DIR`` or ``$CLAIMS_DOCUMENTS``): every transcribed value
  must be printed at its anchor. Nothing outside the checkout is looked for
  otherwise, so a folder appearing beside a clone changes no result;
* with the documents named and the catalog the bundled one, every figure they print
  accounted for (:mod:`claims.text.measure`): the report notes a document that prints a
  figure the catalog does not account for, and links to the annotated pages.

The answer goes into the evidence (``run.inputs``): whether the transcription
check ran, against which files (by SHA-256), and what either check found.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from claims.inputs.bundled import verify_bundled
from claims.inputs.manifest import verify_manifest
from claims.text.anchors import AnchorError, figure_problems, misplaced_figures
from claims.text.ledger import LedgerError
from claims.text.measure import account
from claims.text.reads import ReadsError
from claims.text.sources import SourceError
from claims.text.transcribed import misplaced_values

if TYPE_CHECKING:
    from claims.catalog.loader import Catalog
    from claims.records import (
        AccountedDocument,
        AccountingRecord,
        Inputs,
        ManifestCheck,
        Transcription,
        UnaccountedFigure,
    )

__all__ = ["DOCUMENTS_OPTIONAL", "account_documents", "check_inputs", "input_problem"]

# What the source documents add, and that a run does not need them (terminal and evidence).
DOCUMENTS_OPTIONAL = (
    "the source documents are optional: the figures transcribed from them ship with the "
    "suite and are checked against their SHA-256 manifest on every run; with "
    "--claims-documents DIR (the write-ups the catalog names as seeds) each is also found "
    "where its document prints it"
)


def _joined(manifest: ManifestCheck | None, name: str, checked: int,
            problems: list[dict[str, str]]) -> ManifestCheck:
    """One more checked set of files joined to the manifest record."""
    if manifest is None:
        return {"manifest": name, "checked": checked, "problems": list(problems)}
    return {"manifest": f"{manifest['manifest']}, {name}",
            "checked": manifest["checked"] + checked,
            "problems": manifest["problems"] + problems}


def check_inputs(root: Path, documents: Path | None, catalog: Catalog | None = None) -> Inputs:
    """``catalog``: the bundled catalog, whose figures are checked against their anchors
    (None: a catalog of the user's own, which has no anchors here)."""
    root = Path(root)
    has_fixtures = (root / "fixtures" / "recorded").is_dir()
    transcription: Transcription
    if documents is None:
        transcription = {
            "ran": False,
            "reason": "no documents given (--claims-documents DIR or $CLAIMS_DOCUMENTS): "
            + DOCUMENTS_OPTIONAL,
        }
    elif not has_fixtures:
        transcription = {"ran": False, "reason": f"no transcribed fixtures under {root}"}
    elif not documents.is_dir():
        transcription = {"ran": False, "documents_dir": str(documents),
                         "reason": f"the documents folder {documents} does not exist"}
    else:
        transcription = misplaced_values(root, documents)
        if catalog is not None and transcription.get("ran"):
            checked, misplaced = misplaced_figures(catalog, documents)
            transcription["values"] = transcription.get("values", 0) + checked
            transcription["misplaced"] = transcription.get("misplaced", []) + misplaced
    manifest = verify_manifest(root) if has_fixtures else None
    bundled = verify_bundled(root)
    if bundled is not None:
        manifest = _joined(manifest, bundled["manifest"], bundled["checked"],
                           bundled["problems"])
    if catalog is not None:
        figures = sum(len(c.stated) for c in catalog)
        manifest = _joined(manifest, "claims/catalog/*.anchors.toml", figures,
                           figure_problems(catalog, root=root))
    inputs: Inputs = {"manifest": manifest, "transcription": transcription}
    if documents is not None and catalog is not None and has_fixtures:
        inputs["accounting"] = account_documents(root, documents, catalog)
    return inputs


# How many unaccounted figures of each document the evidence names (the pages show all).
UNACCOUNTED_SHOWN = 10


def account_documents(root: Path, documents: Path, catalog: Catalog) -> AccountingRecord:
    """Every figure the named documents print, accounted for (claims.text.measure): counts
    per document and the first unaccounted figures, for the report's note. A document
    that is missing or not text, or a bad ledger entry, is a reason, not a traceback."""
    try:
        acc = account(catalog, documents, root)
    except (SourceError, LedgerError, AnchorError, ReadsError) as exc:
        return {"ran": False, "reason": str(exc)}
    unaccounted: list[UnaccountedFigure] = []
    for d in acc.documents:
        missing = [f for f in d.figures if f.status == "unaccounted"][:UNACCOUNTED_SHOWN]
        unaccounted += [{"document": f.at.document, "file": f.at.source, "line": f.at.line,
                         "column": f.at.column, "text": f.at.text} for f in missing]
    return {
        "ran": True,
        "documents": [cast("AccountedDocument", d.to_json()) for d in acc.documents],
        "unaccounted": unaccounted,
        "pages": None,
    }


def input_problem(inputs: Inputs | None, claim_ids: Iterable[str]) -> str | None:
    """Why a test of these claims cannot be trusted: its document's transcription was edited
    or is not where its anchor says (None: nothing is wrong, or not a claim test)."""
    docs = {cid.split("-", 1)[0] for cid in claim_ids}
    if not docs or inputs is None:
        return None
    manifest = inputs["manifest"]
    transcription = inputs["transcription"]
    problems = manifest["problems"] if manifest is not None else []
    found = [p["problem"] for p in problems if p.get("doc") in docs]
    found += [p["problem"] for p in transcription.get("misplaced", []) if p.get("doc") in docs]
    if transcription.get("documents_dir") and not transcription.get("ran"):
        found.append(f"the documents were named but not checked: {transcription['reason']}")
    if not found:
        return None
    more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
    return "transcribed fixtures: " + "; ".join(found[:3]) + more
