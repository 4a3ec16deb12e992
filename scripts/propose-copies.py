"""Propose ``copy`` ledger entries: blocks a document prints again, for review.

Usage: .venv/bin/python scripts/propose-copies.py --claims-documents DIR DOC [DOC ...]
       (or CLAIMS_DOCUMENTS=DIR ...; run from the checkout)

For each block of a document's text that an earlier place already prints
(claims.text.copies: line-aligned on both sides, whitespace collapsed) and that
holds a figure nothing accounts for yet, prints a [[ledger]] table of kind "copy" to
stdout. Review each (is the earlier place really where the text is accounted for?) and
paste the ones that hold into claims/catalog/<DOC>.anchors.toml, below the ledger header;
`python -m claims coverage` then checks each copy reads the same as what it copies.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from claims.catalog import load_catalog
from claims.plugin.options import NO_DOCUMENTS, add_documents_argument
from claims.text.anchors import CATALOG_DIR
from claims.text.copies import copied_blocks
from claims.text.measure import account


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_documents_argument(parser, "to look in")
    parser.add_argument("--catalog-dir", metavar="DIR", type=Path, default=CATALOG_DIR,
                        help="read the anchors and ledgers from this folder (default: the "
                        "bundled catalog's)")
    parser.add_argument("docs", nargs="+", help="documents to look in, by catalog id")
    args = parser.parse_args(argv)
    if args.claims_documents is None:
        print(NO_DOCUMENTS, file=sys.stderr)
        return 2
    catalog = load_catalog()
    acc = account(catalog, Path(args.claims_documents), Path.cwd(), args.docs,
                  catalog_dir=args.catalog_dir)
    open_figures = {(f.at.source, f.at.line) for f in acc.figures if f.status == "unaccounted"}
    for d in acc.documents:
        sources = [acc.sources[s] for s in d.sources]
        for c in copied_blocks(sources, d.document.id):
            if not any((c.source.key, n) in open_figures for n in range(c.first, c.last + 1)):
                continue
            where = f"{c.of.kind} {c.of.key} lines {c.of_first}-{c.of_last}"
            print(f"[[ledger]]\n{c.source.kind} = {json.dumps(c.source.key)}\n"
                  f"lines = [{c.first}, {c.last}]\nkind = \"copy\"\n"
                  f"reason = {json.dumps(f'the same text as {where}, accounted for there')}\n"
                  f"of = {{ {c.of.kind} = {json.dumps(c.of.key)}, "
                  f"lines = [{c.of_first}, {c.of_last}] }}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
