"""Per-claim verdicts from the checks a run made.

One claim can have several checks (recorded figures, a fixture, a live server).
Each check gets a verdict from its outcome and evidence source; the claim's
verdict is the most serious among them, in this order:

    refuted > error > known-erratum > reproduced > consistent > not-applicable > not-run

so a live refutation is never hidden by a passing recorded check, and a claim
is "reproduced" only when at least one check confirmed it live on this machine.

A check's verdict is decided once, where the check ends (the plugin writes it
into the record as ``verdict``); this module only ranks. In a certification run
(``--claims-require-live``) a claim with live checks gets the verdict of its live
checks alone: what the document recorded cannot stand in for a live check that
did not run or failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    """What a run says of a check or a claim; the only verdict names there are.

    A ``StrEnum``: members compare equal to, and serialise as, their names in
    evidence.json (``Verdict.REFUTED == "refuted"``).
    """

    REPRODUCED = "reproduced"
    CONSISTENT = "consistent"
    REFUTED = "refuted"
    KNOWN_ERRATUM = "known-erratum"
    NOT_APPLICABLE = "not-applicable"
    NOT_RUN = "not-run"
    ERROR = "error"
    UNTESTABLE = "untestable"


VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
# Most serious first; "untestable" is a catalog fact, never the verdict of a check.
PRIORITY: tuple[Verdict, ...] = (
    Verdict.REFUTED,
    Verdict.ERROR,
    Verdict.KNOWN_ERRATUM,
    Verdict.REPRODUCED,
    Verdict.CONSISTENT,
    Verdict.NOT_APPLICABLE,
    Verdict.NOT_RUN,
)
# The reason of a claim that no selected test checked (the report's hint keys on it).
NOT_SELECTED = "no test of this claim was selected in this run"
DESCRIPTIONS: dict[str, str] = {
    "reproduced": "confirmed live on this machine",
    "consistent": "confirmed on recorded figures or bundled artifacts only",
    "refuted": "a measurement contradicts the claim",
    "known-erratum": "refuted, as the catalog expects (documented erratum)",
    "not-applicable": "does not apply to this machine profile or model",
    "not-run": "not checked in this run (reason given)",
    "error": "nothing was decided: the probe failed, the test compared nothing, or a "
    "catalogued erratum no longer reproduces",
    "untestable": "a program cannot check it (reason given)",
}


def check_verdict(check: Mapping[str, Any]) -> str:
    """Verdict of one check record (as stored in evidence.json).

    The record carries the verdict its check decided; a record without a valid
    one (hand-edited, or from a version that did not write it) decided nothing.
    A check run through a fake (``simulated``, claims.simulation) measured the
    fake, not a machine: it is never "reproduced", and reads "not run".
    """
    verdict = check.get("verdict")
    if verdict not in PRIORITY:
        return "error"
    if verdict == "reproduced" and check.get("simulated"):
        return "not-run"
    return str(verdict)


def claim_verdict(
    testable: bool,
    untestable_reason: str | None,
    checks: Iterable[Mapping[str, Any]],
    *,
    certification: bool = False,
) -> tuple[str, str | None]:
    """The claim's verdict and a one-line reason, from all of its checks.

    ``certification``: the run demanded live checks (--claims-require-live); a claim
    that has any is judged by them alone.
    """
    if not testable:
        return "untestable", untestable_reason
    checks = list(checks)
    if not checks:
        return "not-run", NOT_SELECTED
    if certification:
        live = [c for c in checks if c.get("source") == "live"]
        checks = live or checks
    ranked = sorted(checks, key=lambda c: PRIORITY.index(check_verdict(c)))
    top = ranked[0]
    verdict = check_verdict(top)
    reason = None if verdict in ("reproduced", "consistent") else top.get("message")
    if verdict == "not-run" and len(ranked) > 1:
        # Several skipped checks: keep the distinct reasons, they tell the user what to enable.
        reasons = sorted(
            {c.get("message") or "" for c in ranked if check_verdict(c) == "not-run"} - {""}
        )
        reason = " | ".join(reasons) if reasons else reason
    return verdict, _one_line(reason)


def _one_line(text: str | None, limit: int = 400) -> str | None:
    if text is None:
        return None
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def summarize(claims: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Counts per verdict overall and per document (the evidence 'summary')."""
    by_verdict: dict[str, int] = {v: 0 for v in VERDICTS}
    by_document: dict[str, dict[str, int]] = {}
    for claim in claims:
        v = claim["verdict"]
        by_verdict[v] = by_verdict.get(v, 0) + 1
        doc = by_document.setdefault(claim["document"], {k: 0 for k in VERDICTS})
        doc[v] = doc.get(v, 0) + 1
    return {"by_verdict": by_verdict, "by_document": by_document}
