"""Transcribed fixtures that name a catalog figure instead of copying its number.

A value the documents print that the catalog also states lives once, in the
catalog. Where ``fixtures/recorded/<DOC>.json`` records that value (so that a
test can compute with it, or the transcription check can find it at its place
in the document), it holds a reference instead of a second copy::

    "cpu_ms": {"$figure": "W1-RECORDED-ARITH/CPU time"}
    "n": {"$figure": "W1-MATMUL-FLOPS/matrix size", "as": "int"}
    "low": {"$figure": "W1-SPEEDUP-RANGE/predicted speedup", "part": "low"}
    "files[2]": {"$figure": "W3-SHARDS/files", "part": 2}

``as`` gives the JSON type the reader gets ("int", "float"; "plain" for the printed
text without thousands separators, where one place prints "6034.1" and the catalog
quotes "6,034.1" from another; the printed text otherwise), ``part`` the bound of a
range or the item of a list, ``unit`` the unit the place prints the value in where
no unit is printed beside it (a manifest's ``"size": 275`` is bytes): the figure is
converted into it, so a figure whose unit slipped (275 KB for 275 B) no longer
resolves to what the document prints there.
:func:`resolve` replaces every reference with the figure's value as the given
catalog states it, so a changed figure is a changed fixture: the transcription
check (:mod:`claims.text.transcribed`) then looks for the new value where the
document prints the old one, and the manifest (:mod:`claims.inputs.manifest`)
records a digest of each resolved value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from claims.catalog.loader import Catalog, CatalogError
from claims.catalog.records import StatedFigure
from claims.figures import UnitError, convert, parse_literal

__all__ = ["REFERENCE_KEY", "Reference", "figure_value", "references", "resolve"]

REFERENCE_KEY = "$figure"
_FIELDS = {REFERENCE_KEY, "as", "part", "unit"}
_TYPES = ("int", "float", "plain")


@dataclass(frozen=True)
class Reference:
    """One reference: where it sits in the fixture and the figure it names."""

    path: str  # the JSON path, as the anchors name it ("benchmark.cpu_ms", "rows[2].size")
    claim: str
    figure: str
    part: str | int | None = None
    as_type: str | None = None
    unit: str | None = None  # the unit the place prints the value in (module docstring)

    @property
    def label(self) -> str:
        part = "" if self.part is None else f" ({self.part})"
        return f"{self.claim} '{self.figure}'{part}"


def _is_reference(value: Any) -> bool:
    return isinstance(value, dict) and REFERENCE_KEY in value


def _parse(path: str, raw: dict[str, Any]) -> Reference:
    extra = sorted(set(raw) - _FIELDS)
    if extra:
        raise CatalogError(f"{path}: unknown field(s) {', '.join(extra)} in a figure reference")
    target = raw[REFERENCE_KEY]
    if not isinstance(target, str) or "/" not in target:
        raise CatalogError(f'{path}: {REFERENCE_KEY} must read "CLAIM-ID/figure name"')
    claim, _, figure = target.partition("/")
    as_type = raw.get("as")
    if as_type is not None and as_type not in _TYPES:
        raise CatalogError(f"{path}: 'as' must be one of {', '.join(_TYPES)}, not {as_type!r}")
    part = raw.get("part")
    if part is not None and part not in ("low", "high") and not (
        isinstance(part, int) and not isinstance(part, bool) and part >= 0
    ):
        raise CatalogError(f"{path}: 'part' must be 'low', 'high' or a list index, not {part!r}")
    unit = raw.get("unit")
    if unit is not None and (not isinstance(unit, str) or not unit.strip()):
        raise CatalogError(f"{path}: 'unit' must be a unit such as \"B\", not {unit!r}")
    return Reference(path, claim, figure, part, as_type, unit)


def references(data: Any, path: str = "") -> Iterator[Reference]:
    """Every figure reference in a transcribed fixture, with its JSON path."""
    if _is_reference(data):
        yield _parse(path, data)
    elif isinstance(data, dict):
        for key, item in data.items():
            if not key.startswith("_"):
                yield from references(item, f"{path}.{key}" if path else key)
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from references(item, f"{path}[{i}]")


def _text(fig: StatedFigure, ref: Reference) -> str:
    """The printed literal the reference names."""
    if fig.kind == "range":
        if ref.part not in ("low", "high"):
            raise CatalogError(f"{ref.path}: {ref.label} is a range: name part 'low' or 'high'")
        text = fig.low if ref.part == "low" else fig.high
    elif fig.kind == "list":
        if not isinstance(ref.part, int) or ref.part >= len(fig.values):
            raise CatalogError(f"{ref.path}: {ref.label} is a list: name an index below "
                               f"{len(fig.values)} as its part")
        text = fig.values[ref.part]
    elif fig.kind in ("number", "text"):
        if ref.part is not None:
            raise CatalogError(f"{ref.path}: {ref.label} is a single {fig.kind}: no part")
        text = fig.text
    else:
        raise CatalogError(f"{ref.path}: {ref.label} is {fig.kind}; a fixture cannot name it")
    assert text is not None
    return text


def _in_place_unit(fig: StatedFigure, ref: Reference, text: str) -> str:
    """``text`` converted from the figure's unit into the unit the place prints it in
    (``unit``), printed as the catalog prints it (thousands commas kept); unchanged
    when they are the same unit or the reference names none."""
    if ref.unit is None or ref.unit == fig.unit:
        return text
    if fig.unit is None:
        raise CatalogError(f"{ref.path}: {ref.label} states no unit; the place prints it "
                           f"in {ref.unit}")
    try:
        value = convert(float(parse_literal(text).value), fig.unit, ref.unit)
    except (UnitError, ValueError) as exc:
        raise CatalogError(f"{ref.path}: {ref.label}: {exc}") from None
    number = float(value.mid if not isinstance(value, float) else value)
    shown = f"{round(number):,}" if number == round(number) else f"{number:,}"
    return shown if "," in text else shown.replace(",", "")


def figure_value(catalog: Catalog, ref: Reference) -> Any:
    """The value a reference stands for, as ``catalog`` states it now."""
    if ref.claim not in catalog:
        raise CatalogError(f"{ref.path}: no catalog claim {ref.claim!r}")
    try:
        fig = catalog.get(ref.claim).figure(ref.figure)
    except KeyError as exc:
        raise CatalogError(f"{ref.path}: {exc.args[0]}") from None
    text = _in_place_unit(fig, ref, _text(fig, ref))
    if ref.as_type is None:
        return text
    try:
        number = parse_literal(text).value
        if ref.as_type == "plain":
            return text.replace(",", "")
    except ValueError:
        raise CatalogError(f"{ref.path}: {ref.label} is {text!r}, not a number") from None
    if ref.as_type == "int":
        if number != number.to_integral_value():
            raise CatalogError(f"{ref.path}: {ref.label} is {text!r}, not an integer")
        return int(number)
    return float(number)


def resolve(data: Any, catalog: Catalog, path: str = "") -> Any:
    """``data`` with every figure reference replaced by the figure's value in ``catalog``.

    Raises :class:`CatalogError` naming the fixture path of a reference to a claim or
    figure the catalog does not have.
    """
    if _is_reference(data):
        return figure_value(catalog, _parse(path, data))
    if isinstance(data, dict):
        return {
            key: item if key.startswith("_") else resolve(
                item, catalog, f"{path}.{key}" if path else key
            )
            for key, item in data.items()
        }
    if isinstance(data, list):
        return [resolve(item, catalog, f"{path}[{i}]") for i, item in enumerate(data)]
    return data
