"""List the facts the series prints in two places, for review (issue 52, docs/accounting.md).

Usage: .venv/bin/python scripts/propose-repeats.py --claims-documents DIR [--lab] [--open]
       (or CLAIMS_DOCUMENTS=DIR ...; run from the checkout)

Prints each distinctive figure (claims.text.repeats.repeated_figures: a digest or
revision, a version, a size or count of three digits or more, a name holding a digit)
that two documents print, with every place and how the accounting counts it. ``--lab``
adds the bundled lab files no document's text holds (fixtures/lab: results, notes,
roadmap pages); ``--open`` keeps only those with a place no claim judges. Review each:
a real repeat (the same model, machine, revision or count) becomes one claim whose test
reads both places; a coincidence (two unrelated 4096s) stays as it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from claims.catalog import load_catalog
from claims.plugin.options import NO_DOCUMENTS, add_documents_argument
from claims.text.measure import account
from claims.text.repeats import LAB, lab_places, places_of, repeated_figures
from claims.text.sources import LAB_DIR


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_documents_argument(parser, "to look in")
    parser.add_argument("--lab", action="store_true",
                        help="also the bundled lab files no document's text holds")
    parser.add_argument("--open", action="store_true",
                        help="only figures printed somewhere no claim judges")
    args = parser.parse_args(argv)
    if args.claims_documents is None:
        print(NO_DOCUMENTS, file=sys.stderr)
        return 2
    catalog = load_catalog()
    acc = account(catalog, Path(args.claims_documents), Path.cwd())
    places = places_of(acc)
    if args.lab:
        own = [key for kind, key in acc.sources if kind == "file"]
        places += lab_places(Path.cwd() / LAB_DIR, skip=own)
    for repeat in repeated_figures(places):
        if not args.lab and len(set(repeat.documents) - {LAB}) < 2:
            continue
        if args.open and all(p.status == "judged" for p in repeat.places
                             if p.document != LAB):
            continue
        print(f"{repeat.key}  ({', '.join(repeat.documents)})")
        for place in repeat.places:
            print(f"    {place.describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
