"""The report's sensitivity section: what the last ``claims audit`` found (if any)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["audit_view"]


def audit_view(evidence: Mapping[str, Any]) -> dict[str, Any] | None:
    """The audit summary as the template shows it; None when the run kept none.

    Evidence is read, not trusted: every value is checked for its type here.
    """
    audit = evidence.get("audit")
    if not isinstance(audit, Mapping):
        return None
    if audit.get("problem"):
        return {"problem": str(audit["problem"])}

    def count(key: str) -> int:
        value = audit.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    rows = []
    insensitive = audit.get("insensitive")
    for f in insensitive if isinstance(insensitive, list) else []:
        if isinstance(f, Mapping):
            rows.append({k: str(f.get(k) or "") for k in ("claim", "figure", "stated", "reason")})
    tr = audit.get("transcriptions")
    tr = tr if isinstance(tr, Mapping) else {}
    transcribed = None
    if isinstance(tr.get("skipped"), str):
        transcribed = f"transcribed values not audited: {tr['skipped']}"
    elif all(isinstance(tr.get(k), int) for k in ("values", "mutations", "caught")):
        transcribed = (
            f"{tr['caught']} of {tr['mutations']} single-character changes to "
            f"{tr['values']} transcribed values are caught by the anchored transcription check"
        )
    total, sensitive = count("total"), count("sensitive")
    digest = audit.get("digest")
    slips = audit.get("slips")
    caught = [
        f"{k['caught']} of {k['cases']} {kind}"
        for kind, k in (slips.items() if isinstance(slips, Mapping) else ())
        if isinstance(k, Mapping) and all(isinstance(k.get(n), int) for n in ("caught", "cases"))
    ]
    return {
        "problem": None,
        "sentence": f"{sensitive} of {total} judged figures change their verdict when perturbed",
        "finished": str(audit.get("finished") or "unknown"),
        # The interpreter and machine it ran on (not in its digest: the sources are).
        "ran_on": str(audit.get("ran_on") or "on an interpreter and machine not recorded"),
        # The checkout the audit ran on, by its first digits (claims.inputs.audit_digest).
        "digest": digest[:12] if isinstance(digest, str) and digest else "none recorded",
        # A stale audit's numbers are another checkout's: the template shows them only as
        # the audit found, under the plain statement that none matches this checkout.
        "stale": bool(audit.get("stale")),
        "slips": ", ".join(caught) + " slips caught" if caught else None,
        "partial": bool(audit.get("partial")),
        "insensitive": rows,
        "transcribed": transcribed,
    }
