"""Stated figures, their precision, and honest comparison with measurements.

A document that writes "23.3 tokens/sec" asserts a value somewhere in
[23.25, 23.35): the precision of the printed literal is part of the claim. This
module turns printed literals into intervals, does interval arithmetic on
recorded inputs (so that recomputing "89 tokens in 3.82 s" carries the rounding
of 3.82 forward), and decides whether a measurement agrees with a statement.

Nothing here knows about pytest; the check API (:mod:`claims.check`) builds on it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claims.records import IntervalRecord

__all__ = [
    "Interval",
    "PrintedNumber",
    "UnitError",
    "agrees",
    "convert",
    "other_units",
    "parse_literal",
    "unit_spellings",
    "units_printed_as",
]

# Relative slack for float round-off at interval edges; far below any stated precision.
_EDGE = 1e-12


class UnitError(ValueError):
    """Two units cannot be compared (different dimensions or unknown)."""


@dataclass(frozen=True)
class Interval:
    """A closed real interval [lo, hi]; a point value has lo == hi."""

    lo: float
    hi: float

    def __post_init__(self) -> None:
        if math.isnan(self.lo) or math.isnan(self.hi):
            raise ValueError("interval bound is NaN")
        if self.lo > self.hi:
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")

    @classmethod
    def point(cls, x: float) -> Interval:
        return cls(float(x), float(x))

    @classmethod
    def stated(cls, text: str) -> Interval:
        """The interval a printed literal stands for: "3.82" -> [3.815, 3.825]."""
        lit = parse_literal(text)
        return lit.interval()

    @property
    def mid(self) -> float:
        return (self.lo + self.hi) / 2

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def contains(self, x: float) -> bool:
        slack = _EDGE * max(1.0, abs(x))
        return self.lo - slack <= x <= self.hi + slack

    def overlaps(self, other: Interval) -> bool:
        """Whether the two closed intervals share a point (an edge counts)."""
        slack = self._slack(other)
        return self.lo <= other.hi + slack and other.lo <= self.hi + slack

    def shares_a_stretch(self, other: Interval) -> bool:
        """Whether the two share more than an edge: a common stretch of positive length."""
        return min(self.hi, other.hi) - max(self.lo, other.lo) > self._slack(other)

    def _slack(self, other: Interval) -> float:
        return _EDGE * max(1.0, abs(self.lo), abs(self.hi), abs(other.lo), abs(other.hi))

    # Interval arithmetic (Moore): enough for the recomputations the documents invite.
    def __add__(self, other: Operand) -> Interval:
        o = _as_interval(other)
        return Interval(self.lo + o.lo, self.hi + o.hi)

    __radd__ = __add__

    def __sub__(self, other: Operand) -> Interval:
        o = _as_interval(other)
        return Interval(self.lo - o.hi, self.hi - o.lo)

    def __rsub__(self, other: Operand) -> Interval:
        return _as_interval(other) - self

    def __mul__(self, other: Operand) -> Interval:
        o = _as_interval(other)
        products = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return Interval(min(products), max(products))

    __rmul__ = __mul__

    def __truediv__(self, other: Operand) -> Interval:
        o = _as_interval(other)
        if o.lo <= 0 <= o.hi:
            raise ZeroDivisionError(f"interval division by {o} which contains 0")
        return self * Interval(1 / o.hi, 1 / o.lo)

    def __rtruediv__(self, other: Operand) -> Interval:
        return _as_interval(other) / self

    def to_json(self) -> IntervalRecord:
        return {"lo": self.lo, "hi": self.hi}

    def __str__(self) -> str:
        if self.lo == self.hi:
            return _fmt(self.lo)
        return f"[{_fmt(self.lo)}, {_fmt(self.hi)}]"


Operand = Interval | int | float


def _as_interval(x: Operand) -> Interval:
    if isinstance(x, Interval):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"not a number or interval: {x!r}")
    return Interval.point(float(x))


def _fmt(x: float) -> str:
    return f"{x:.6g}" if abs(x) < 1e6 else f"{x:,.0f}"


_NUMBER = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][+-]?\d+)?$")


@dataclass(frozen=True)
class PrintedNumber:
    """A number as printed: its value and the half-unit of its last digit.

    "6,171,877,376" is exact for integer quantities (half-unit 0.5 admits only
    the integer itself); "23.3" admits [23.25, 23.35].
    """

    text: str
    value: Decimal
    half_unit: Decimal

    def interval(self, tolerance: Decimal | None = None) -> Interval:
        tol = self.half_unit if tolerance is None else tolerance
        return Interval(float(self.value - tol), float(self.value + tol))

    @property
    def is_integer(self) -> bool:
        return self.value == self.value.to_integral_value() and self.half_unit >= Decimal("0.5")


def parse_literal(text: str) -> PrintedNumber:
    """Parse a printed number ("1,008", "23.3", "-1", "1e-06") keeping its precision.

    Raises ValueError naming the text when it is not a plain number.
    """
    cleaned = text.strip().replace("\u2212", "-")
    if not _NUMBER.match(cleaned):
        raise ValueError(f"not a printed number: {text!r}")
    try:
        value = Decimal(cleaned.replace(",", ""))
    except InvalidOperation as exc:  # pragma: no cover - the regex already screened it
        raise ValueError(f"not a printed number: {text!r}") from exc
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    half_unit = Decimal(5).scaleb(exponent - 1)
    return PrintedNumber(text=text, value=value, half_unit=half_unit)


# Units a measurement may be converted between, and the one table of them the suite has:
# the mutation audit slips each figure's unit to every other unit of its dimension from
# here (:func:`other_units`), and an anchor's printed unit is read through it
# (:func:`units_printed_as`). Factors are to the dimension's base unit.
_UNITS: dict[str, tuple[str, float]] = {
    "B": ("bytes", 1.0),
    "bytes": ("bytes", 1.0),
    "KB": ("bytes", 1e3),
    "kB": ("bytes", 1e3),
    "MB": ("bytes", 1e6),
    "GB": ("bytes", 1e9),
    "TB": ("bytes", 1e12),
    "KiB": ("bytes", 1024.0),
    "MiB": ("bytes", 1024.0**2),
    "GiB": ("bytes", 1024.0**3),
    "TiB": ("bytes", 1024.0**4),
    "ns": ("seconds", 1e-9),
    "us": ("seconds", 1e-6),
    "µs": ("seconds", 1e-6),
    "ms": ("seconds", 1e-3),
    "s": ("seconds", 1.0),
    "min": ("seconds", 60.0),
    "h": ("seconds", 3600.0),
    "FLOP": ("flop", 1.0),
    "MFLOP": ("flop", 1e6),
    "GFLOP": ("flop", 1e9),
    "TFLOP": ("flop", 1e12),
    "MFLOP/s": ("flop/s", 1e6),
    "GFLOP/s": ("flop/s", 1e9),
    "TFLOP/s": ("flop/s", 1e12),
    "PFLOP/s": ("flop/s", 1e15),
    "MB/s": ("bytes/s", 1e6),
    "GB/s": ("bytes/s", 1e9),
    "TB/s": ("bytes/s", 1e12),
    "MiB/s": ("bytes/s", 1024.0**2),
    "GiB/s": ("bytes/s", 1024.0**3),
    "tok/s": ("tokens/s", 1.0),
    "tok/min": ("tokens/s", 1 / 60),
    "tokens": ("tokens", 1.0),
    "K tokens": ("tokens", 1e3),
    "params": ("count", 1.0),
    "M params": ("count", 1e6),
    "B params": ("count", 1e9),
    "x": ("ratio", 1.0),
    "%": ("ratio", 0.01),
    "bit": ("bits", 1.0),
    "MHz": ("frequency", 1e6),
    "GHz": ("frequency", 1e9),
}

# How the documents print a unit, beside the catalog's own spelling (which always names
# itself): an anchor's ``unit`` is read through this, so "Gigabytes" pins GB and "Gi"
# (free -h) pins GiB. One printed word may name more than one unit ("B" after "14.7"
# is billions of parameters, after "18" bytes); the catalog's unit must be one of them.
_PRINTED: dict[str, tuple[str, ...]] = {
    "B": ("B", "B params"),
    "byte": ("B",),
    "bytes": ("B",),
    "Gigabytes": ("GB",),
    "Gi": ("GiB",),
    "Mi": ("MiB",),
    "seconds": ("s",),
    "second": ("s",),
    "minutes": ("min",),
    "percent": ("%",),
    "tokens/sec": ("tok/s",),
    "tokens/second": ("tok/s",),
    "tokens/s": ("tok/s",),
    "tps": ("tok/s",),
    "token": ("tokens",),
    "K": ("K tokens",),
    "K tokens": ("K tokens",),
    "billion": ("B params", "GFLOP"),
    "-billion": ("B params",),
    "billion floating-point operations": ("GFLOP",),
    "×": ("x",),
    "\\times": ("x",),
    "-bit": ("bit",),
    "-byte": ("B",),
    "-token": ("tokens",),
}


def other_units(unit: str | None) -> list[str]:
    """Every other unit of ``unit``'s dimension, one per scale (an alias of the same scale,
    "bytes" for "B", is not another unit); [] for a unit the table does not know."""
    if unit not in _UNITS:
        return []
    dim, factor = _UNITS[unit]
    out: dict[float, str] = {}
    for name, (d, f) in _UNITS.items():
        if d == dim and f != factor and f not in out:
            out[f] = name
    return list(out.values())


def unit_spellings() -> list[str]:
    """Every spelling of a unit the table knows, longest first (so "ms" is tried before
    "s" when reading a printed text)."""
    return sorted({*_UNITS, *_PRINTED}, key=lambda u: (-len(u), u))


def units_printed_as(printed: str) -> tuple[str, ...]:
    """The catalog units a document's printed unit names ("Gigabytes" -> GB)."""
    found = _PRINTED.get(printed, ())
    return (*found, printed) if printed in _UNITS and printed not in found else found


def convert(value: Operand, from_unit: str, to_unit: str) -> Interval | float:
    """Convert a number or interval between two units of the same dimension."""
    if from_unit == to_unit:
        return value if isinstance(value, Interval) else float(value)
    try:
        dim_a, fa = _UNITS[from_unit]
        dim_b, fb = _UNITS[to_unit]
    except KeyError as exc:
        raise UnitError(f"unknown unit {exc.args[0]!r}") from None
    if dim_a != dim_b:
        raise UnitError(f"cannot convert {from_unit} ({dim_a}) to {to_unit} ({dim_b})")
    if isinstance(value, Interval):
        return value * (fa / fb)
    return float(value) * fa / fb


def agrees(measured: Any, expected: Interval) -> bool:
    """True when a measured number or interval can lie inside the expected interval.

    Two intervals of positive width must share a stretch, not only an edge: a printed
    value stands for a half-open rounding interval ("32,768" is [32767.5, 32768.5)), so
    "32,769" beside it, or "9" beside the range "4–8", shares no value with it. A point
    (a number measured, or an interval of width 0) on an edge agrees.
    """
    if isinstance(measured, Interval):
        if measured.width > 0 and expected.width > 0:
            return expected.shares_a_stretch(measured)
        return expected.overlaps(measured)
    if isinstance(measured, bool) or not isinstance(measured, (int, float)):
        raise TypeError(f"cannot compare {type(measured).__name__} with a numeric interval")
    return expected.contains(float(measured))
