"""Propose an anchor for every stated figure of the catalog, for review.

Usage: .venv/bin/python scripts/anchor-figures.py --claims-documents DIR [DOC ...]
       (or CLAIMS_DOCUMENTS=DIR .venv/bin/python scripts/anchor-figures.py)

An existing anchor is kept while the document still prints its text there and
the figure still says what that text says; one without a ``unit`` gets the unit the
document prints right after its text, when that names the figure's unit (one that names
another unit is listed on stderr for review). A figure without one gets a proposal
(claims.text.anchors.propose: its printed form nearest the claim's section) written
to claims/catalog/<DOC>.anchors.toml; review each against the document before
committing. Figures printed nowhere are listed on stderr and the exit status is
1: anchor them by hand (the words that state them; a figure the suite reads into
vague words with ``reads`` = its display, the catalog's ``reading`` saying why) or
correct the figure. A figure with a ``source`` is not the document's and is skipped.
A document whose text is bundled lab files (its catalog ``text`` list) needs no
--claims-documents: its anchors name those files (``file``) under fixtures/lab.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from dataclasses import replace
from pathlib import Path

from claims.catalog import load_catalog
from claims.plugin.options import add_documents_argument
from claims.text.anchors import (
    LAB_DIR,
    anchors_path,
    dump_anchors,
    load_anchors,
    pinned_unit,
    printed_after,
    printed_disagreement,
    printed_unit,
    propose,
)
from claims.text.ledger import ledger_tail
from claims.text.transcribed import Seed, anchored, seeds_of

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_documents_argument(parser, "whose figures are anchored")
    parser.add_argument("docs", nargs="*", help="documents to anchor (default: all)")
    args = parser.parse_args(argv)
    catalog = load_catalog()
    chosen = [d for d in catalog.documents if not args.docs or d.id in args.docs]
    if not args.claims_documents and any(d.seeds for d in chosen):
        parser.error("name the documents: --claims-documents DIR (or CLAIMS_DOCUMENTS=DIR)")
    documents = Path(args.claims_documents or ".").expanduser()
    status = 0
    for doc in chosen:
        # A bundled text file is read like a seed; its anchors name it by path (``file``).
        files = {Path(t).name: t for t in doc.text}
        seeds = ([Seed.read(ROOT / LAB_DIR / t) for t in doc.text] if doc.text
                 else seeds_of(documents, doc.id))
        if seeds is None:
            print(f"{doc.id}: seeds not found in {documents}", file=sys.stderr)
            return 2
        by_name = {s.name: s for s in seeds}
        old = {a.key: dataclasses.replace(a, seed=Path(a.file).name) if a.file else a
               for a in load_anchors(doc.id)}
        out, kept, proposed = [], 0, 0
        for claim in doc.claims:
            for fig in claim.stated:
                if fig.source is not None:
                    continue  # not the document's figure: nothing to anchor
                a = old.get((claim.id, fig.name))
                if (a is not None and a.seed in by_name
                        and anchored(by_name[a.seed], {"line": a.line, "before": a.before},
                                     a.text)
                        and printed_disagreement(fig, a) is None):
                    if a.unit is None and a.reads is None:
                        # The unit printed after the number, pinned like the number.
                        after = printed_after(by_name[a.seed], a)
                        a = replace(a, unit=pinned_unit(fig, a.text, after))
                        shown = printed_unit(after or "")
                        if fig.unit and a.unit is None and shown is not None:
                            print(f"{doc.id} {claim.id} {fig.name!r}: stated in {fig.unit}, "
                                  f"printed {shown!r} after {a.text!r}: review", file=sys.stderr)
                    out.append(a)
                    kept += 1
                    continue
                p = propose(doc, claim, fig, seeds)
                if p is None:
                    print(f"{doc.id} {claim.id} {fig.name!r}: {fig.display!r} is printed "
                          "nowhere in the document", file=sys.stderr)
                    status = 1
                    if a is not None:
                        out.append(a)  # keep the reviewed one; the run will name it
                    continue
                out.append(p)
                proposed += 1
        out = [dataclasses.replace(a, seed="", file=files[a.seed]) if a.seed in files else a
               for a in out]
        path = anchors_path(doc.id)
        # The file's [[ledger]] part (claims.text.ledger) is kept as written.
        ledger = ledger_tail(path.read_text("utf-8")) if path.is_file() else ""
        path.write_text(dump_anchors(doc.id, out) + ("\n" + ledger if ledger else ""),
                        "utf-8")
        print(f"{doc.id}: {kept} kept, {proposed} proposed -> {path}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
