"""List where each document prints a file the lab bundles, and whether it is transcribed.

Usage: .venv/bin/python scripts/find-printed-programs.py --claims-documents DIR [DOC ...]
       (or CLAIMS_DOCUMENTS=DIR ...; run from the checkout)

For each document (default: all), each run of a lab file's lines the document prints
(claims.text.programs: line-aligned, the blog's rendering undone, whitespace and
indentation aside, at least MIN_LINES lines), one line: the document, where it prints
the run, the lab file and its lines, how much of the file that is, and whether the
document's transcriptions (``programs_printed`` in fixtures/recorded/<DOC>.json) hold it
(a README's, a report's or a results file's lines are text or output, not a program).
A file printed in full or as a stated excerpt and not transcribed is a claim to add
(docs/inputs.md says how).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from claims.catalog import load_catalog
from claims.plugin.options import NO_DOCUMENTS, add_documents_argument
from claims.terminal import safe
from claims.text.programs import MIN_LINES, is_program, printed_files
from claims.text.sources import read_sources
from claims.text.transcribed import PROGRAMS_PRINTED, recorded_path


def transcribed(root: Path, doc: str) -> dict[str, str]:
    """The document's printed programs as transcribed: lab path -> transcription."""
    path = recorded_path(root, doc)
    if not path.is_file():
        return {}
    named = json.loads(path.read_text("utf-8")).get(PROGRAMS_PRINTED) or {}
    return dict(named)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_documents_argument(parser, "to look in")
    parser.add_argument("docs", nargs="*", help="documents to look in, by catalog id")
    args = parser.parse_args(argv)
    if args.claims_documents is None:
        print(NO_DOCUMENTS, file=sys.stderr)
        return 2
    root = Path.cwd()
    catalog = load_catalog()
    docs = [d for d in catalog.documents if not args.docs or d.id in args.docs]
    sources = read_sources(docs, Path(args.claims_documents), root, catalog.documents)
    print(f"# runs of at least {MIN_LINES} lines of a lab file that a document prints")
    for doc in docs:
        held = transcribed(root, doc.id)
        for run in printed_files(doc, sources, root / "fixtures" / "lab"):
            if run.lab in held:
                state = f"transcribed: {held[run.lab]}"
            else:
                state = ("program, NOT TRANSCRIBED" if run.program else
                         "a fragment of a program" if is_program(run.lab) else "text or output")
            print(safe(f"{doc.id}  {run.source.label} lines {run.first}-{run.last}  "
                       f"= {run.lab} lines {run.lab_first}-{run.lab_last}  "
                       f"({run.matched} of {run.lab_lines} lines, {run.share:.0%})  {state}"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
