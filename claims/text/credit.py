"""Which printed figures an anchor credits to its claim: those whose values the claim states.

An anchor's text (claims/catalog/<DOC>.anchors.toml) is one contiguous piece of the
document. A claim judges the figures it states, not every figure its anchor's text
happens to run over: a range printed from one table row to another runs over the other
cells of the rows between, a list of ids over the words around them, "INT8 8 1" over the
type's name and its bits when the claim states the bytes. So the accounting credits an
anchor's claim only with the printed figures (claims.text.printed) inside its span
that are a value the claim's figure states:

* a number: a figure whose leading number is that value ("56.0" in "56.0 GB", "70" in
  "70B", "22.5" in "22.5x"; 56.0 and 56 are one value), or a number another figure of the
  same claim states (a worked sum "5 + 1 = 6" prints the claim's terms beside its total);
* a range: a figure that is either end, or a number the claim states (as for a number);
* a list: a figure overlapping one of the listed values as printed;
* a text: a figure overlapping the stated text where the anchor prints it;
* any kind: a figure its name holds, printed there ("849" of the token id whose text the
  claim states, "12.x" of "architecture of 12.x"), and the one figure an anchor points
  inside (a figure is not split);
* a bool, or a figure read from words (the anchor's ``reads``): every figure of the
  words, since the claim judges what those words say and the anchor pins them.

The other figures of the span are the span's, not the claim's: something else accounts
for them (another anchor, a transcribed value a test reads, a ledger entry) or they are
unaccounted. :func:`overreach` names the figures an anchor could leave out (any figure it
does not credit, but, for a list or a range whose values are printed apart, those
between two credited ones, which one contiguous text cannot skip).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

from claims.catalog.records import StatedFigure
from claims.text.anchors import FigureAnchor
from claims.text.printed import figures_in_line
from claims.text.sources import Source, TextFigure
from claims.text.transcribed import squash

__all__ = ["credited", "overreach"]

_LEADING = re.compile(r"^[-+]?\d[\d,]*(?:\.\d+)?")


def _value(text: str) -> Decimal | None:
    """The number a printed figure starts with (None: it starts with no digit)."""
    m = _LEADING.match(text.lstrip("."))
    if m is None:
        return None
    try:
        return Decimal(m.group().replace(",", ""))
    except InvalidOperation:
        return None


def _literal(text: str | None) -> Decimal | None:
    return None if text is None else _value(text.strip())


def _inside(source: Source, lo: int, hi: int, form: str) -> list[tuple[int, int]]:
    """Where ``form`` is printed within offsets lo..hi of the source's collapsed text."""
    out: list[tuple[int, int]] = []
    if not form:
        return out
    at = source.seed.text.find(form, lo, hi)
    while at != -1:
        out.append((at, at + len(form)))
        at = source.seed.text.find(form, at + 1, hi)
    return out


def _places(fig: StatedFigure, source: Source, span: tuple[int, int]) -> list[tuple[int, int]]:
    """Where the values a list or text figure states are printed inside ``span``."""
    if fig.kind == "list":
        forms = {squash(v) for v in fig.values}
    else:
        assert fig.text is not None
        forms = {squash(fig.text), squash(json.dumps(fig.text, ensure_ascii=False)[1:-1])}
    return sorted(p for form in forms for p in _inside(source, *span, form))


def _numbers(figures: Iterable[StatedFigure]) -> set[Decimal]:
    """The numbers a claim's figures state: each number, each range's ends, each listed
    number."""
    out: set[Decimal] = set()
    for fig in figures:
        for text in (fig.text if fig.kind == "number" else None, fig.low, fig.high,
                     *fig.values):
            value = _literal(text)
            if value is not None:
                out.add(value)
    return out


def credited(fig: StatedFigure, anchor: FigureAnchor, source: Source,
             span: tuple[int, int], claim: Iterable[StatedFigure] = ()) -> list[TextFigure]:
    """The printed figures inside ``span`` (where ``anchor`` is found in ``source``) that
    the claim states (see the module docstring), in printed order: ``fig`` is the anchored
    figure, ``claim`` all the claim's stated figures (a worked sum prints its terms)."""
    figures = source.overlapping(*span)
    if fig.kind == "bool" or anchor.reads is not None:
        return figures
    if len(figures) == 1 and figures[0].start <= span[0] and span[1] <= figures[0].end:
        return figures  # the anchor points inside one figure, which cannot be split
    named = {t.text for t in figures_in_line(fig.name)}
    wanted = _numbers([fig, *claim])
    if fig.kind in ("number", "range"):
        return [f for f in figures if _value(f.text) in wanted or f.text in named]
    places = _places(fig, source, span)
    return [f for f in figures
            if any(lo < f.end and f.start < hi for lo, hi in places) or f.text in named]


def overreach(fig: StatedFigure, anchor: FigureAnchor, source: Source,
              span: tuple[int, int], claim: Iterable[StatedFigure] = ()) -> list[TextFigure]:
    """The figures the anchor's text runs over that its claim does not judge and that a
    narrower text would leave out: every uncredited figure, except, for a list or a range
    (values printed apart), those between where its first and last value are printed."""
    mine = credited(fig, anchor, source, span, claim)
    others = [f for f in source.overlapping(*span) if f not in mine]
    if fig.kind == "range" and mine:
        lo, hi = mine[0].start, mine[-1].end
    elif fig.kind == "list" and (places := _places(fig, source, span)):
        lo, hi = places[0][0], max(end for _, end in places)
    else:
        return others
    return [f for f in others if f.start < lo or f.end > hi]
