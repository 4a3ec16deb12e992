"""Check records and claims for the audit's unit tests (the shapes the plugin writes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claims.catalog.records import Claim, Erratum, StatedFigure


@dataclass(frozen=True)
class Item:
    """A collected test as the audit's planning sees one: its node id."""

    nodeid: str


def record(claim: str, verdict: str, **extra: Any) -> dict[str, Any]:
    return {"claims": [claim], "verdict": verdict, **extra}


def measured(name: str, value: Any, claim: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "measured": value, "compared": True, "claim": claim, **extra}


def premise(claim: str, name: str) -> dict[str, str]:
    return {"claim": claim, "name": name}


def number(name: str, text: str, **kw: Any) -> StatedFigure:
    return StatedFigure(name=name, kind="number", text=text, **kw)


def claim(
    cid: str, *figures: StatedFigure, erratum: Erratum | None = None, tiers=("offline",)
) -> Claim:
    return Claim(
        id=cid,
        document="T",
        section="s",
        statement="a claim",
        tiers=tuple(tiers),
        stated=figures,
        erratum=erratum,
    )
