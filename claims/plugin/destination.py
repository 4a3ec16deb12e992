"""Where a run's evidence and report go when no path is given: a certification's are kept.

``reports/evidence.json`` and ``report.html`` are what a certification left (``-m
offline``, ``-m "gpu or offline"``: a selection of claim tests by tier, or a
``--claims-require-live`` run). Another run (the whole suite, a file, the quick loop
``-m "not slow"``) writes there too while the folder holds no certification's; when it
does, that run writes to ``reports/last-run/`` instead and says so, so a certification's
report is replaced only by another certification.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from claims.tiers import TIERS

__all__ = ["Destination", "choose_destination", "is_certification"]

# A marker expression pytest accepts, reduced to what decides a certification: names,
# `and`, `or`, `not` and parentheses. Anything else (marker arguments) is not one.
_TOKENS = re.compile(r"\s*(\(|\)|[A-Za-z_][\w-]*)")
# Bytes of an existing evidence file read to learn whose it is (its "run" record comes first).
_PEEK_BYTES = 64 << 20


def _selects_only_marked(markexpr: str) -> bool:
    """Whether ``-m markexpr`` names a tier and leaves out a test with no marker at all.

    The expression is evaluated with every marker name false, as for an unmarked test
    (pytest's grammar: ``or`` over ``and`` over ``not``, parentheses).
    """
    tokens: list[str] = []
    pos, text = 0, markexpr.strip()
    while pos < len(text):
        found = _TOKENS.match(text, pos)
        if found is None:
            return False  # marker arguments or other syntax: not read as a certification
        tokens.append(found.group(1))
        pos = found.end()
    if not tokens:
        return False

    def either() -> bool:
        value = both()
        while tokens and tokens[0] == "or":
            tokens.pop(0)
            value = both() or value
        return value

    def both() -> bool:
        value = negated()
        while tokens and tokens[0] == "and":
            tokens.pop(0)
            value = negated() and value
        return value

    def negated() -> bool:
        if not tokens:
            raise ValueError("the expression ends early")
        token = tokens.pop(0)
        if token == "not":
            return not negated()
        if token == "(":
            value = either()
            if not tokens or tokens.pop(0) != ")":
                raise ValueError("an unclosed parenthesis")
            return value
        if token in (")", "and", "or"):
            raise ValueError(f"{token!r} out of place")
        return False  # a marker name: an unmarked test does not have it

    names = {t for t in tokens if t not in ("(", ")", "and", "or", "not")}
    try:
        selected = either()
    except ValueError:
        return False
    # `-m slow` also leaves unmarked tests out, but selects no tier.
    return not tokens and not selected and bool(names & set(TIERS.names()))


def is_certification(markexpr: str, require_live: bool) -> bool:
    """A certifying run: claim tests selected by tier (``-m offline``), or certification mode."""
    return require_live or _selects_only_marked(markexpr)


def _certification_in(evidence: Path) -> str | None:
    """The certification that wrote ``evidence`` ("-m offline, started ..."), or None."""
    try:
        if not evidence.is_file() or evidence.stat().st_size > _PEEK_BYTES:
            return None
        run = json.loads(evidence.read_text("utf-8")).get("run", {})
        markexpr = str(run.get("markexpr") or "")
        live = bool((run.get("options") or {}).get("require_live"))
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    if not is_certification(markexpr, live):
        return None
    what = f"-m {markexpr!r}" if markexpr else "--claims-require-live"
    return f"{what}, started {str(run.get('started') or 'at an unknown time')[:40]}"


@dataclass(frozen=True)
class Destination:
    evidence: Path
    report: Path
    note: str | None  # why they are not the default ones, for the terminal summary


def choose_destination(root: Path, markexpr: str, require_live: bool) -> Destination:
    """The default evidence and report paths of a run under ``root``."""
    reports = root / "reports"
    default = Destination(reports / "evidence.json", reports / "report.html", None)
    if is_certification(markexpr, require_live):
        return default
    kept = _certification_in(default.evidence)
    if kept is None:
        return default
    aside = reports / "last-run"
    return Destination(
        aside / "evidence.json",
        aside / "report.html",
        f"{default.evidence} holds a certification's evidence ({kept}), which only another "
        f"certification replaces: this run's evidence is in {aside}/",
    )
