"""The audit of the catalog's words: a slipped statement or explanation must be caught.

Besides its figures, a claim can be mistyped in the words a reader reads: a relation
word of its statement turned around ("at least" written "at most", "above" written
"below", "faster" written "slower", "twice" written "half"), or a number inside its
erratum's explanation changed (a digit of "64 / 18 = 3.56", the "3.5" of "not 3.5x").
The checks of :mod:`claims.catalog.wording` hold these words to the structure the
claim is judged by, so every such slip must make them object; no test reruns, since
nothing measured reads the words. Each slip that passes is listed with its claim.

The transcription slips of recorded values (a digit changed...) are audited by
:mod:`claims.text.transcribed`; the figures themselves by :mod:`claims.audit.run`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from typing import Any

from claims.catalog.records import Claim, Erratum
from claims.catalog.wording import (
    erratum_numbers,
    erratum_problems,
    printed_form,
    statement_problems,
)

__all__ = ["ANTONYMS", "audit_words", "explanation_slips", "statement_slips"]

# Each relation word and the word a slip turns it into (its opposite).
ANTONYMS: dict[str, str] = {
    "at least": "at most", "at most": "at least",
    "more than": "less than", "less than": "more than", "fewer than": "more than",
    "greater than": "less than",
    "above": "below", "below": "above",
    "over": "under", "under": "over",
    "up to": "at least",
    "exceeds": "stays below", "exceed": "stay below", "beyond": "short of",
    "higher": "lower", "lower": "higher",
    "larger": "smaller", "smaller": "larger", "bigger": "smaller", "greater": "smaller",
    "faster": "slower", "slower": "faster", "beating": "trailing", "beats": "trails",
    "twice": "half", "double": "half", "half": "twice",
}
_WORD = re.compile(
    r"(?<![\w-])(" + "|".join(re.escape(w) for w in sorted(ANTONYMS, key=len, reverse=True))
    + r")(?![\w-])", re.IGNORECASE)


def _is_relation(statement: str, match: re.Match[str]) -> bool:
    """Whether the word is a comparison here: "over" and "under" only where they bound a
    number ("over 4 GB", not "over SSH" nor "89 tokens over 3.82 s"); "up to" not in
    "add up to"."""
    word = match.group(1).lower()
    if word not in ("over", "under", "up to"):
        return True
    if word != "up to" and not re.match(r"\s*[$(~≈]*\d", statement[match.end():]):
        return False
    return printed_form(statement[: match.end()]) is not None


def _cased(original: str, new: str) -> str:
    return new[:1].upper() + new[1:] if original[:1].isupper() else new


def statement_slips(claim: Claim) -> Iterator[tuple[str, Claim]]:
    """The claim with one relation word of its statement turned into its opposite, for
    each such word: ("at least -> at most", the slipped claim)."""
    text = claim.statement
    for m in _WORD.finditer(text):
        if not _is_relation(text, m):
            continue
        new = _cased(m.group(1), ANTONYMS[m.group(1).lower()])
        slipped = text[: m.start()] + new + text[m.end():]
        yield (f"{m.group(1)} -> {new}", dataclasses.replace(claim, statement=slipped))


def _digit_slip(number: str) -> str:
    """The number with its last digit changed (9 becomes 8, any other digit one more)."""
    i = max(i for i, ch in enumerate(number) if ch.isdigit())
    digit = number[i]
    return number[:i] + ("8" if digit == "9" else str(int(digit) + 1)) + number[i + 1:]


def explanation_slips(claim: Claim) -> Iterator[tuple[str, Claim]]:
    """The claim with one number of its erratum's explanation slipped (its last digit),
    for each number the wording check reads (a computation's, a quoted figure)."""
    if claim.erratum is None:
        return
    text = claim.erratum.explanation
    for start, end, number in erratum_numbers(claim):
        new = _digit_slip(number)
        erratum = Erratum(text[:start] + new + text[end:], claim.erratum.refutes)
        yield f"{number} -> {new}", dataclasses.replace(claim, erratum=erratum)


def _statement_why(claim: Claim) -> str:
    """Why a turned relation word of this claim's statement passed the wording check."""
    if not claim.stated:
        return "the claim states no figure the words could be held to"
    return ("the relation is between quantities the claim states no figure of (or states "
            "without the word), so nothing structured says which way it goes")


def _explanation_why(claim: Claim) -> str:
    del claim
    return ("the changed number still agrees: its computation gives the printed result at "
            "its printed precision (an operand's last digit below the result's rounding), or "
            "it is another figure the claim states")


def _audit(claims: Iterable[Claim], slips: Any, problems: Any, why: Any) -> dict[str, Any]:
    cases = caught = untestable = 0
    survivors: list[dict[str, str]] = []
    for claim in claims:
        if problems(claim):
            continue  # already objected to: the suite's tests fail on it (not a slip)
        for what, slipped in slips(claim):
            cases += 1
            if problems(slipped):
                caught += 1
            elif not claim.testable:
                # Nothing judges an untestable claim, so a slip the wording check lets
                # through contradicts no check: counted apart from the survivors.
                untestable += 1
            else:
                survivors.append({"claim": claim.id, "slip": what, "why": why(claim)})
    # caught + survivors + untestable == cases
    return {"cases": cases, "caught": caught, "survivors": survivors, "untestable": untestable}


def audit_words(claims: Iterable[Claim]) -> dict[str, Any]:
    """Every relation word of every statement and every number the explanations'
    check reads, slipped one at a time: how many slips, how many the wording check
    caught, and the ones it did not (claim and slip)."""
    claims = list(claims)
    return {
        "statements": _audit(claims, statement_slips, statement_problems, _statement_why),
        "explanations": _audit(claims, explanation_slips, erratum_problems, _explanation_why),
    }
