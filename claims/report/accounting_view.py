"""The report's note on the documents' figures accounted for (claims.text.measure), when the
documents were given: one sentence, the unaccounted figures the evidence names, and the
link to the annotated pages beside the report."""

from __future__ import annotations

import re
from typing import Any

from claims.records import Inputs

__all__ = ["accounting_view"]

# The only link the report takes from the evidence's accounting: a folder beside the report
# and its index (an evidence file is untrusted: no scheme, no "..", no other page).
_PAGES = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/index\.html\Z")


def accounting_view(inputs: Inputs | None) -> dict[str, Any] | None:
    """The documents' figures accounted for (claims.text.measure), when the documents were
    given: one sentence, the unaccounted figures the evidence names, and the pages' link."""
    acc = inputs.get("accounting") if inputs else None
    if not acc:
        return None
    if not acc["ran"]:
        return {"text": "The documents' figures could not be accounted for: "
                        f"{_text(acc.get('reason'))}", "state": "bad", "missing": [], "href": None}
    docs = acc.get("documents", [])
    printed = sum(d["printed"] for d in docs)
    unaccounted = sum(d["unaccounted"] for d in docs)
    if unaccounted:
        which = ", ".join(f"{_text(d['id'])} {d['unaccounted']}" for d in docs if d["unaccounted"])
        text = (f"{_plural_figures(unaccounted)} of the {printed} the documents print "
                f"{'is' if unaccounted == 1 else 'are'} not accounted for by the catalog "
                f"({which}): no claim judges them, no transcribed value records them, and "
                "no ledger entry says why none can.")
    else:
        text = (f"Every one of the {printed} figures the documents print is accounted for: "
                "judged by a claim, recorded, stated by a claim the catalog says no test "
                "can judge, or excluded by the ledger with its reason.")
    pages = acc.get("pages")
    missing = [f"{_text(f.get('document'))} {_text(f.get('file'))} line {f.get('line')}: "
               f"{_text(f.get('text'))}" for f in acc.get("unaccounted", [])]
    # A note, not a failure: the claims' verdicts do not rest on the figures no claim judges.
    return {"text": text, "state": "" if unaccounted else "good", "missing": missing,
            "href": pages if isinstance(pages, str) and _PAGES.match(pages) else None}


def _plural_figures(n: int) -> str:
    return f"{n} printed figure{'' if n == 1 else 's'}"




def _text(value: Any) -> str:
    return "" if value is None else str(value)
