"""Every figure the documents print is accounted for, and stays so (issue 46).

The goal is no unaccounted figure in any document. Until the ledgers are written, each
document's count of unaccounted figures is pinned below, and the test holds it there
both ways: a figure nobody looked at (a new week, an edited write-up) fails, naming its
file and line; a count that went down (a ledger entry, a claim, an anchor) fails too, until
it is lowered here, so the pin only ever goes down. A document absent from the pin must be
at 0, so a new week cannot land with a figure nobody looked at. When every count is 0 this
dict is empty and the test says exactly: every printed figure is accounted for.

The seeds come from $CLAIMS_DOCUMENTS (skipped without it); a document whose text the
repository bundles (no seeds) is checked on every run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.text.measure import account

ROOT = Path(__file__).resolve().parents[2]
# Unaccounted figures per document, measured with the ledgers as committed: only lowered.
UNACCOUNTED: dict[str, int] = {}
SHOWN = 40  # unaccounted figures a failure lists (the rest: claims coverage --show-missing)


def test_no_document_prints_a_figure_nobody_accounted_for() -> None:
    catalog = load_catalog()
    documents = os.environ.get("CLAIMS_DOCUMENTS")
    docs = [d.id for d in catalog.documents if documents or not d.seeds]
    if not docs:
        pytest.skip("no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")
    acc = account(catalog, Path(documents) if documents else None, ROOT, docs)
    problems: list[str] = []
    for d in acc.documents:
        doc = d.document.id
        count, pinned = d.count("unaccounted"), UNACCOUNTED.get(doc, 0)
        missing = [f.at for f in d.figures if f.status == "unaccounted"]
        if count > pinned:
            listed = "\n".join(f"  {f.source}:{f.line}:{f.column}  {f.text}"
                               for f in missing[:SHOWN])
            more = f"\n  ... and {count - SHOWN} more" if count > SHOWN else ""
            problems.append(
                f"{doc}: {count} printed figures unaccounted for, {pinned} allowed: judge "
                "each with a claim, anchor it, or give it a ledger entry with its reason "
                f"(docs/accounting.md):\n{listed}{more}")
        elif count < pinned:
            problems.append(f"{doc}: {count} figures unaccounted for, fewer than the "
                            f"{pinned} pinned: lower UNACCOUNTED[{doc!r}] in {__name__} to "
                            f"{count}" + (" (remove it)" if count == 0 else ""))
    assert not problems, "\n".join(problems)
