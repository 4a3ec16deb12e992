"""What a run's results rest on besides the code: the transcribed fixtures and the documents.

:func:`check_inputs` runs once, when the plugin activates:

* the fixtures' SHA-256 manifest (:mod:`claims.audit.manifest`), whenever the
  rootdir has one: an edited transcription fails the claim tests of its
  document with a message naming the file, documents or not;
* the transcription check, only when the documents are named
  (``--claims-documents DIR`` or ``$CLAIMS_DOCUMENTS``): every transcribed value
  must be printed at its anchor. Nothing outside the checkout is looked for
  otherwise, so a folder appearing beside a clone changes no result.

The answer goes into the evidence (``run.inputs``): whether the transcription
check ran, against which files (by SHA-256), and what either check found.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claims.records import Inputs, Transcription

__all__ = ["DOCUMENTS_OPTIONAL", "check_inputs", "input_problem"]

# What the source documents add, and that a run does not need them (terminal and evidence).
DOCUMENTS_OPTIONAL = (
    "the source documents are optional: the figures transcribed from them ship with the "
    "suite and are checked against their SHA-256 manifest on every run; with "
    "--claims-documents DIR (the five write-ups) each is also found where its document "
    "prints it"
)


def check_inputs(root: Path, documents: Path | None) -> Inputs:
    from claims.audit.manifest import verify_manifest
    from claims.audit.transcribed import misplaced_values

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
    return {"manifest": verify_manifest(root) if has_fixtures else None,
            "transcription": transcription}


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
