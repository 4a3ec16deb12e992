"""Perturbations of one stated figure, for the mutation audit.

Besides its value, a figure can be slipped the other ways a transcriber slips
(:func:`slips`): its unit misread, its form or bound direction misjudged, its
scope misrecorded.

A perturbation must be one that a check reading the figure can notice: a
number moves until no measurement the baseline run recorded for it lies in
its new interval (tolerance included), so a check that compares it must flip;
a text, list or boolean changes its value. A figure the catalog lists as a
known erratum is instead *corrected* to what the baseline measured, so a
check that judges each erratum figure on its own must fail strictly.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, cast

from claims.catalog.records import FORMS_OF_KIND, FigureForm, StatedFigure
from claims.figures import Interval, agrees, other_units, parse_literal
from claims.profiles import PROFILES

__all__ = [
    "corrected",
    "every_move",
    "flipped",
    "form_slips",
    "moved",
    "near",
    "scope_slip",
    "slips",
    "unit_slips",
]

# Factors tried in turn, upwards first (a stated count or size made larger),
# then downwards: a one-sided bound ("over 4 GB") notices only one direction.
UP = (Decimal("1.5"), Decimal(3), Decimal(10), Decimal(1000))
DOWN = (Decimal("0.5"), Decimal("0.2"), Decimal("0.01"))


def _decimals(text: str) -> int:
    digits = text.strip().replace(",", "")
    if "e" in digits.lower():
        return 6
    return len(digits.split(".", 1)[1]) if "." in digits else 0


def _format_like(text: str, value: Decimal) -> str:
    """``value`` printed with ``text``'s decimals (and thousands commas, if it had them)."""
    places = _decimals(text)
    quant = Decimal(1).scaleb(-places)
    rounded = value.quantize(quant)
    if "," in text:
        return f"{rounded:,}"
    return f"{rounded}"


def _numbers(measured: Sequence[Any]) -> list[float | Interval]:
    out: list[float | Interval] = []
    for m in measured:
        if isinstance(m, bool):
            continue
        if isinstance(m, (int, float)):
            out.append(float(m))
        elif isinstance(m, dict) and isinstance(m.get("lo"), (int, float)):
            out.append(Interval(float(m["lo"]), float(m["hi"])))
    return out


def _clear(fig: StatedFigure, measured: Sequence[float | Interval]) -> bool:
    """No recorded measurement agrees with the figure any longer."""
    try:
        interval = fig.expected()
    except (TypeError, ValueError, AssertionError):
        return True
    return not any(agrees(m, interval) for m in measured)


def moved(fig: StatedFigure, measured: Sequence[Any], *, down: bool = False) -> StatedFigure:
    """The figure with its value changed so that none of ``measured`` agrees with it."""
    if fig.kind == "bool":
        return dataclasses.replace(fig, flag=not fig.flag)
    if fig.kind == "text":
        return dataclasses.replace(fig, text=f"{fig.text}~")
    if fig.kind == "list":
        first = f"{fig.values[0]}~" if fig.values else "~"
        return dataclasses.replace(fig, values=(first, *fig.values[1:]))
    numbers = _numbers(measured)
    for factor in DOWN if down else UP:
        if fig.kind == "number":
            assert fig.text is not None
            value = parse_literal(fig.text).value
            new = value * factor if value != 0 else (factor if not down else -factor)
            candidate = dataclasses.replace(fig, text=_format_like(fig.text, new))
        else:  # range
            assert fig.low is not None and fig.high is not None
            lo, hi = parse_literal(fig.low).value, parse_literal(fig.high).value
            span = max(hi - lo, abs(hi), Decimal(1))
            shift = span * (factor - 1)
            candidate = dataclasses.replace(
                fig,
                low=_format_like(fig.low, lo + shift),
                high=_format_like(fig.high, hi + shift),
            )
        if candidate != fig and _clear(candidate, numbers):
            return candidate
    return candidate


def corrected(fig: StatedFigure, measured: Sequence[Any]) -> StatedFigure | None:
    """The figure set to what was measured (a document that fixed its erratum), or None."""
    if not measured:
        return None
    value = measured[0]
    if fig.kind == "bool":
        return dataclasses.replace(fig, flag=bool(value)) if isinstance(value, bool) else None
    if fig.kind == "text":
        return dataclasses.replace(fig, text=str(value))
    if fig.kind == "list":
        if not isinstance(value, list):
            return None
        return dataclasses.replace(fig, values=tuple(str(v) for v in value))
    numbers = _numbers(measured)
    if not numbers:
        return None
    lows = [n.lo if isinstance(n, Interval) else n for n in numbers]
    highs = [n.hi if isinstance(n, Interval) else n for n in numbers]
    for extra in range(0, 7):
        if fig.kind == "number":
            assert fig.text is not None
            mid = Decimal(repr((min(lows) + max(highs)) / 2))
            text = _format_like(_pad(fig.text, extra), mid)
            candidate = dataclasses.replace(fig, text=text)
        else:
            assert fig.low is not None and fig.high is not None
            candidate = dataclasses.replace(
                fig,
                low=_format_like(_pad(fig.low, extra), Decimal(repr(min(lows)))),
                high=_format_like(_pad(fig.high, extra), Decimal(repr(max(highs)))),
            )
        try:
            interval = candidate.expected()
        except (TypeError, ValueError):
            return None
        if all(agrees(n, interval) for n in numbers):
            return candidate
    return None


def _pad(text: str, extra: int) -> str:
    """``text`` with ``extra`` more printed decimals (so a correction can be precise enough)."""
    if extra == 0:
        return text
    return (text if "." in text else text + ".") + "0" * extra


def every_move(fig: StatedFigure) -> list[StatedFigure]:
    """The figure scaled by every coarse factor, up and down (:data:`UP`, :data:`DOWN`).

    For a premise held as a bar (a ratio must reach it), only a move past what was
    measured changes a verdict; :func:`moved` stops at the first value no measurement
    agrees with, which may still lie below the measured ratio.
    """
    if fig.kind != "number" or fig.text is None:
        return []
    value = parse_literal(fig.text).value
    out: list[StatedFigure] = []
    seen = {fig.text}
    for factor in (*UP, *DOWN):
        new = _format_like(fig.text, value * factor)
        if new not in seen:
            seen.add(new)
            out.append(dataclasses.replace(fig, text=new))
    return out


def flipped(fig: StatedFigure) -> StatedFigure | None:
    """A bound with its direction turned (at most <-> at least), the transcriber's slip a
    factor cannot stand for when the measurement lies far inside the bound; else None."""
    turned = {"at-most": "at-least", "at-least": "at-most"}.get(fig.form)
    return dataclasses.replace(fig, form=turned) if turned else None  # type: ignore[arg-type]


def near(fig: StatedFigure) -> list[StatedFigure]:
    """The figure moved by 1% steps up to 20% either way, at its printed precision
    (or one more digit where the printed one cannot express the step)."""
    if fig.kind != "number" or fig.text is None:
        return []
    value = parse_literal(fig.text).value
    out: list[StatedFigure] = []
    seen = {fig.text}
    for step in range(1, 21):
        for sign in (-1, 1):
            factor = 1 + Decimal(sign * step) / 100
            for text in (fig.text, _pad(fig.text, 1)):
                new = _format_like(text, value * factor)
                if new not in seen:
                    seen.add(new)
                    out.append(dataclasses.replace(fig, text=new))
                    break
    return out


def unit_slips(fig: StatedFigure) -> list[StatedFigure]:
    """The figure with its unit misread as each other unit of its dimension, the number kept
    (GB as B, KB, MB, GiB...; ms as s, min...; TFLOP/s as GFLOP/s...; x as %): the unit
    table of :mod:`claims.figures` says which. [] when it has no unit, or one the table
    gives no other unit of (W, C)."""
    if fig.kind not in ("number", "range"):
        return []
    return [dataclasses.replace(fig, unit=other) for other in other_units(fig.unit)]


def form_slips(fig: StatedFigure) -> list[StatedFigure]:
    """The figure judged in each other form its kind allows: a bound read the other way
    ("at most" for "at least"), an exact figure read as a bound, a list as a set of
    choices. A ratio read as a plain figure loses its ``of``."""
    out = []
    for form in FORMS_OF_KIND.get(fig.kind, ()):
        if form == fig.form or form == "ratio":
            continue
        out.append(dataclasses.replace(fig, form=cast(FigureForm, form), of=None))
    return out


def scope_slip(fig: StatedFigure, run_profile: str) -> StatedFigure:
    """The figure with its scope misrecorded: a scoped one (``model``, ``profile``) written
    as general, a general one written for a machine other than this run's."""
    if fig.model is not None or fig.profile is not None:
        return dataclasses.replace(fig, model=None, profile=None)
    other = next(p for p in PROFILES if p != run_profile)
    return dataclasses.replace(fig, profile=other)


def slips(fig: StatedFigure, run_profile: str) -> list[tuple[str, StatedFigure]]:
    """Every transcriber's slip of a figure other than its value: (kind, slipped figure)."""
    out: list[tuple[str, StatedFigure]] = []
    out += [("unit", slipped) for slipped in unit_slips(fig)]
    for slipped in form_slips(fig):
        both = {fig.form, slipped.form} == {"at-most", "at-least"}
        out.append(("bound direction" if both else "form", slipped))
    out.append(("scope", scope_slip(fig, run_profile)))
    return out
