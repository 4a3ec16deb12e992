"""Re-anchor the transcribed values against the documents, then rewrite their manifest.

Usage: .venv/bin/python scripts/anchor-transcriptions.py --claims-documents DIR [DOC ...]
       (or CLAIMS_DOCUMENTS=DIR .venv/bin/python scripts/anchor-transcriptions.py)

DIR is the folder of the seed files (the source documents). Existing anchors are
kept where the value is still printed there; a new or moved value is anchored
where the seed prints it nearest after the previous value's place (the values of
one object come from one passage). Review every proposal against the post before
committing: the anchor says where the document prints the value.

When every value of every document is printed at its anchor, the SHA-256
manifest of the transcribed files (fixtures/recorded/MANIFEST.sha256, checked
on every pytest run, documents or not) is rewritten; otherwise it is left as it
was and the script exits 1. This is the only command that writes the manifest:
edit a fixture, run this, commit the fixture, its anchors and the manifest. A
fixture value that names a catalog figure (claims/text/references.py) is
anchored as the catalog states it, and the manifest keeps its digest: after
editing such a figure in the catalog, run this too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from claims.inputs.manifest import MANIFEST, write_manifest
from claims.plugin.options import DOCUMENTS_ENV, OPTION
from claims.text.transcribed import (
    SEED_FILES,
    anchored,
    anchors_path,
    misplaced_values,
    propose,
    section_start,
    seeds_of,
    transcribed_documents,
    transcribed_values,
)

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    documents_option = OPTION["--claims-documents"]  # the plugin's, declared once
    parser.add_argument(documents_option.flag, metavar=documents_option.metavar,
                        default=os.environ.get(DOCUMENTS_ENV),
                        help=f"the folder of the seed files (default: ${DOCUMENTS_ENV})")
    parser.add_argument("docs", nargs="*", help="documents to re-anchor (default: all)")
    args = parser.parse_args(argv)
    if not args.claims_documents:
        parser.error(f"name the documents: --claims-documents DIR (or {DOCUMENTS_ENV}=DIR)")
    documents = Path(args.claims_documents).expanduser()
    status = 0
    transcribed = transcribed_documents(ROOT)
    for doc in args.docs or transcribed:
        if doc not in SEED_FILES:
            parser.error(f"unknown document {doc!r} (one of {', '.join(SEED_FILES)})")
        if doc not in transcribed:
            parser.error(f"{doc} has no transcribed figures: fixtures/recorded/{doc}.json "
                         "is not there")
        seeds = seeds_of(documents, doc)
        if seeds is None:
            print(f"{doc}: seeds not found in {documents}", file=sys.stderr)
            return 2
        path = anchors_path(ROOT, doc)
        old = json.loads(path.read_text("utf-8"))["anchors"] if path.is_file() else {}
        by_name = {s.name: s for s in seeds}
        anchors: dict[str, dict[str, object]] = {}
        near: tuple[str, int] | None = None
        data = json.loads((ROOT / "fixtures" / "recorded" / f"{doc}.json").read_text("utf-8"))
        top = None
        for key, value in transcribed_values(ROOT, doc):
            head = key.split(".", 1)[0].split("[", 1)[0]
            if head != top:  # a new object: start from the passage its _seed note names
                top = head
                item = data.get(head)
                start = section_start(seeds, item.get("_seed") if isinstance(item, dict) else None)
                near = start or near
            anchor = old.get(key)
            if anchor is not None and anchored(by_name[anchor["seed"]], anchor, value):
                anchors[key] = anchor
                continue
            proposal = propose(seeds, value, near)
            if proposal is None:
                print(f"{doc} {key}: {value!r} is printed nowhere in the seed", file=sys.stderr)
                status = 1
                continue
            near = (str(proposal["seed"]), int(str(proposal.pop("_at"))))
            anchors[key] = proposal
        doc_out = {
            "_about": "Where the document prints each transcribed value of "
            f"{doc}.json: seed file, line (1-based) and the text just before the value "
            "(whitespace collapsed). Checked by tests/fixtures/test_transcription.py; "
            "proposed by scripts/anchor-transcriptions.py and reviewed by hand.",
            "anchors": anchors,
        }
        path.write_text(json.dumps(doc_out, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"{doc}: {len(anchors)} anchors -> {path.relative_to(ROOT)}")
    if status == 0:
        result = misplaced_values(ROOT, documents)
        if not result["ran"] or result["misplaced"]:
            for problem in result.get("misplaced", []):
                print(problem["problem"], file=sys.stderr)
            print(f"{MANIFEST} left as it was: {result.get('reason') or 'values misplaced'}",
                  file=sys.stderr)
            return 1
        print(f"{result['values']} values at their anchors -> {write_manifest(ROOT)}")
    else:
        print(f"{MANIFEST} left as it was: some values are printed nowhere", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
