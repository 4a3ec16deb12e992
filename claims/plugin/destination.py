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
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from claims.plugin.markexpr import selects_only_marked
from claims.plugin.pytest_private import BadExpression, Unsupported

__all__ = ["BadExpression", "Destination", "choose_destination", "is_certification"]

# Bytes of an existing evidence file read to learn whose it is (its "run" record comes first).
_PEEK_BYTES = 64 << 20


def is_certification(markexpr: str, require_live: bool) -> bool:
    """A certifying run: claim tests selected by tier (``-m offline``), or certification mode.

    Raises :class:`BadExpression` where pytest would refuse ``-m markexpr``, and
    :class:`~claims.plugin.pytest_private.Unsupported` outside the pytest versions the
    expression parser is tested with.
    """
    try:
        by_tier = selects_only_marked(markexpr)  # read even in certification mode: a
    except Unsupported:  # refused expression is refused here, before the run starts
        if require_live:
            return True
        raise
    return require_live or by_tier


def _certification_in(evidence: Path) -> str | None:
    """The certification that wrote ``evidence`` ("-m offline, started ..."), or None."""
    try:
        if not evidence.is_file() or evidence.stat().st_size > _PEEK_BYTES:
            return None
        run = json.loads(evidence.read_text("utf-8")).get("run", {})
        markexpr = str(run.get("markexpr") or "")
        live = bool((run.get("options") or {}).get("require_live"))
        if not is_certification(markexpr, live):
            return None
    except (OSError, ValueError, AttributeError, RecursionError, Unsupported):
        return None  # BadExpression is a ValueError: a file pytest could not have written
    what = f"-m {markexpr!r}" if markexpr else "--claims-require-live"
    return f"{what}, started {str(run.get('started') or 'at an unknown time')[:40]}"


@dataclass(frozen=True)
class Destination:
    evidence: Path
    report: Path
    note: str | None  # why they are not the default ones, for the terminal summary


def choose_destination(root: Path, markexpr: str, require_live: bool) -> Destination:
    """The default evidence and report paths of a run under ``root``.

    Raises :class:`BadExpression` where pytest would refuse ``-m markexpr``.
    """
    reports = root / "reports"
    default = Destination(reports / "evidence.json", reports / "report.html", None)
    # Outside the tested pytest no -m is read, this run's nor the kept file's: neither
    # is a certification, and the run writes the default place.
    with suppress(Unsupported):
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
