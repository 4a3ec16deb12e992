"""The report's first screen in sentences: what was confirmed where, the audit, the documents.

"consistent" reads as a pass, but it means the claim agrees with the documents' own
figures or the bundled files, not that this machine confirmed it; these sentences say
so before any badge or count does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claims.records import Inputs
from claims.verdicts import Verdict

__all__ = ["in_words"]


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def in_words(totals: Mapping[str, int], audit: Mapping[str, Any] | None,
             inputs: Inputs | None) -> list[dict[str, str]]:
    """The first screen's answer in sentences: what holds on this machine, what agrees only
    with the documents' own figures, what does not hold, the audit, and the documents."""
    here = totals.get(Verdict.REPRODUCED, 0)
    paper = totals.get(Verdict.CONSISTENT, 0)
    refuted = totals.get(Verdict.REFUTED, 0)
    errata = totals.get(Verdict.KNOWN_ERRATUM, 0)
    lines = [
        {"id": "words-here", "text":
            f"{_plural(here, 'claim was', 'claims were')} confirmed on this machine "
            "(reproduced: measured live, on its own hardware or servers)."},
        {"id": "words-documents", "text":
            f"{_plural(paper, 'claim agrees', 'claims agree')} only with the documents' own "
            "figures or the files bundled with the suite (consistent: the figures check out, "
            "but nothing live on this machine measured them)."},
        {"id": "words-wrong", "text":
            f"{_plural(refuted, 'claim was', 'claims were')} refuted and "
            f"{_plural(errata, 'is a known erratum', 'are known errata')} (the document is "
            "wrong there, as the catalog records)."},
    ]
    if audit is None:
        text = ("Audit: none beside this evidence (run python -m claims audit to see whether "
                "each stated figure's checks would notice it changed).")
    elif audit.get("problem"):
        text = f"Audit: its result could not be read ({audit['problem']})."
    elif audit.get("stale"):
        # Never an old audit's numbers as this checkout's.
        text = (f"Audit: none matches this checkout (the one kept, of {audit['finished']}, "
                f"digest {audit['digest']}, ran on other inputs; run python -m claims audit).")
    else:
        text = (f"Audit: {audit['sentence']}"
                + (" (of some claims only)" if audit.get("partial") else "")
                + f" (audit of {audit['finished']}, checkout digest {audit['digest']}).")
    lines.append({"id": "words-audit", "text": text})
    transcription = inputs["transcription"] if inputs else None
    if transcription and transcription["ran"]:
        docs = "The source documents were given: each transcribed figure was also found where "
        docs += "its document prints it."
    else:
        docs = ("The source documents were not given, and need not be: the figures transcribed "
                "from them ship with the suite and were checked against their SHA-256 "
                "manifest. With --claims-documents DIR (the write-ups the catalog names as "
                "seeds) each one is also looked up where its document prints it.")
    lines.append({"id": "words-inputs", "text": docs})
    return lines
