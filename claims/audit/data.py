"""The recorded data the claim tests read, each changed in turn: does a reading claim move?

The claim tests read a document's recorded figures through
:func:`claims.text.transcribed.recorded_data`. For the baseline run the audit
hands them the same data in containers that note every value read, so it knows,
per test, which recorded data it read (``"W1 benchmark.cpu_ms"``). Then each value
some test read is changed as a transcriber slips, one slip at a time (:func:`slips_of`):
the decimal point moved (else a digit one higher, else a letter changed), its last digit
one higher (the slip no coarse move stands for), and, in a column whose key or row names
a unit (``cpu_ms``, ``"unit": "MB"``), the column recorded in each other unit of that
dimension (174.3 under ``ttft_ms`` written as 0.1743, "MB" as "GB"). Only the value's
readers rerun. A slip that moves no reader's claim is listed with why.

A value a fixture takes from the catalog (:mod:`claims.text.references`) is
the catalog figure itself, perturbed with the figures; it is not changed here.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from claims.figures import convert, other_units, unit_spellings, units_printed_as
from claims.text import transcribed
from claims.text.references import references
from claims.text.typos import digit_plus_one, mistakes

__all__ = [
    "COLUMN_UNIT",
    "LAST_DIGIT",
    "Datum",
    "Reads",
    "changed_value",
    "column_unit",
    "last_digit",
    "reading",
    "replaced",
    "slips_of",
    "taken_from_the_catalog",
    "value_at",
]

Datum = tuple[str, str]  # (document, JSON path): "W1", "benchmark.cpu_ms"
# The coarse slip tried: the first of these a value admits is the one made.
SLIP_ORDER = ("10x", "digit +1", "letter")
LAST_DIGIT = "last digit"
COLUMN_UNIT = "column unit"


class Reads:
    """Where the values read are noted: the test now running, what each test read, and
    which files each opened (a transcribed file a test reads directly, claims.text.reads)."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.by_test: dict[str, set[Datum]] = {}
        self.files_by_test: dict[str, set[str]] = {}  # absolute paths, as opened

    def note(self, datum: Datum) -> None:
        if self.current is not None:
            self.by_test.setdefault(self.current, set()).add(datum)

    def note_file(self, path: str) -> None:
        if self.current is not None:
            self.files_by_test.setdefault(self.current, set()).add(path)


# The Reads noting files while a reading() is active. An audit hook cannot be removed once
# added (sys.addaudithook), so one is added the first time and does nothing while this is
# empty.
_OPENING: list[Reads] = []
_HOOKED: list[bool] = []


def _on_event(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _OPENING or not args:
        return
    path = args[0]
    if isinstance(path, (str, bytes, os.PathLike)):
        name = os.fsdecode(path)
        for reads in _OPENING:
            reads.note_file(os.path.abspath(name))


def _child(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


class _Dict(dict[str, Any]):
    """A dict that notes each value read from it (by key, or by walking it)."""

    def __init__(self, data: dict[str, Any], doc: str, path: str, reads: Reads) -> None:
        super().__init__({k: _wrap(v, doc, _child(path, k), reads) for k, v in data.items()})
        self._where = (doc, path, reads)

    def _read(self, key: str) -> None:
        doc, path, reads = self._where
        if not isinstance(dict.get(self, key), (dict, list)):
            reads.note((doc, _child(path, key)))

    def __getitem__(self, key: str) -> Any:
        self._read(key)
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            self._read(key)
        return super().get(key, default)

    def values(self) -> Any:
        for key in self:
            self._read(key)
        return super().values()

    def items(self) -> Any:
        for key in self:
            self._read(key)
        return super().items()


class _List(list[Any]):
    """A list that notes each value read from it."""

    def __init__(self, data: list[Any], doc: str, path: str, reads: Reads) -> None:
        super().__init__(_wrap(v, doc, _child(path, i), reads) for i, v in enumerate(data))
        self._where = (doc, path, reads)

    def _all(self) -> None:
        doc, path, reads = self._where
        for i, v in enumerate(list.__iter__(self)):
            if not isinstance(v, (dict, list)):
                reads.note((doc, _child(path, i)))

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int) and -len(self) <= index < len(self):
            # One item: that item read (a test reading line 0 of a listing judges line 0).
            doc, path, reads = self._where
            if not isinstance(list.__getitem__(self, index), (dict, list)):
                reads.note((doc, _child(path, index % len(self))))
        else:
            self._all()  # a slice: noted as the whole list
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[Any]:
        self._all()
        return super().__iter__()


def _wrap(value: Any, doc: str, path: str, reads: Reads) -> Any:
    if isinstance(value, dict):
        return _Dict(value, doc, path, reads)
    if isinstance(value, list):
        return _List(value, doc, path, reads)
    return value


def _set(data: Any, path: str, value: Any, here: str = "") -> Any:
    """``data`` with the value at the JSON path (as :func:`_child` names paths) replaced;
    walked, not parsed, since a key may hold a dot ("config.json")."""
    if isinstance(data, dict):
        return {
            k: value if _child(here, k) == path else _set(v, path, value, _child(here, k))
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [
            value if _child(here, i) == path else _set(v, path, value, _child(here, i))
            for i, v in enumerate(data)
        ]
    return data


def value_at(data: Any, path: str, here: str = "") -> Any:
    """The value at a JSON path (None when there is none)."""
    items: Any = data.items() if isinstance(data, dict) else (
        enumerate(data) if isinstance(data, list) else ()
    )
    for key, item in items:
        where = _child(here, key)
        if where == path:
            return item
        if isinstance(item, (dict, list)) and path.startswith(where):
            found = value_at(item, path, where)
            if found is not None:
                return found
    return None


def changed_value(value: Any) -> tuple[str, Any] | None:
    """The slip made in a recorded value: (kind, changed value), or None (nothing to slip)."""
    made = dict(mistakes(value))
    for kind in SLIP_ORDER:
        if kind in made:
            return kind, made[kind]
    return None


def last_digit(value: Any) -> Any:
    """The value with its last digit one higher (9 -> 0), as typed as the value; None when
    it has no digit or the change would not be one of its type."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = repr(value) if isinstance(value, float) else str(value)
    variants = digit_plus_one(text)
    if not variants:
        return None
    try:
        changed: Any = type(value)(variants[-1]) if not isinstance(value, str) else variants[-1]
    except ValueError:
        return None
    return None if changed == value else changed


def column_unit(path: str) -> str | None:
    """The unit a recorded column's key names ("benchmark.cpu_ms" -> ms, "gpu_tf32_tflops"
    -> TFLOP/s, "bandwidth_gb_s" -> GB/s), through the unit table; None when it names none,
    or a spelling that stands for more than one unit."""
    key = path.rsplit(".", 1)[-1].split("[", 1)[0].lower()
    for spelling in unit_spellings():
        named = units_printed_as(spelling)
        if len(named) != 1:
            continue
        plain = spelling.lower().replace(" ", "_").replace("/", "_")
        if any(key.endswith("_" + form) for form in (plain, plain.replace("_", ""))):
            return named[0]
    return None


def _in_unit(value: Any, unit: str, other: str) -> Any:
    """A recorded number as it reads recorded in ``other`` instead of ``unit``, typed as
    it was (a string stays a string); None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        number = float(str(value).replace(",", ""))
    except ValueError:
        return None
    converted = convert(number, unit, other)
    assert isinstance(converted, float)  # a number converts to a number
    # Six significant digits, printed plainly as a transcriber writes them (174300000,
    # not 1.743e+08).
    rounded = Decimal(f"{converted:.6g}")
    text = format(rounded.normalize(), "f")
    if isinstance(value, str):
        return text
    return int(rounded) if isinstance(value, int) and rounded == rounded.to_integral() \
        else float(rounded)


def slips_of(path: str, value: Any) -> list[tuple[str, Any]]:
    """Every slip made in one recorded value, (kind, changed value), in order: the coarse
    one (:func:`changed_value`), the last digit one higher, the column's unit misread."""
    out: list[tuple[str, Any]] = []
    coarse = changed_value(value)
    if coarse is not None:
        out.append(coarse)
    last = last_digit(value)
    if last is not None and all(last != v for _, v in out):
        out.append((LAST_DIGIT, last))
    if path.rsplit(".", 1)[-1] == "unit" and isinstance(value, str):
        # A row's own unit field ("unit": "MB"): the row recorded in another unit.
        out += [(COLUMN_UNIT, other) for other in other_units(value)]
    else:
        unit = column_unit(path)
        if unit is not None:
            for other in other_units(unit):
                moved = _in_unit(value, unit, other)
                if moved is not None and moved != value:
                    out.append((COLUMN_UNIT, moved))
    return out


@contextlib.contextmanager
def _filtered(through: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Iterator[None]:
    transcribed.FILTERS.append(through)
    try:
        yield
    finally:
        transcribed.FILTERS.remove(through)


@contextlib.contextmanager
def reading(reads: Reads) -> Iterator[None]:
    """Recorded data handed to the tests in containers that note what is read, and the
    files the tests open noted too."""

    def through(doc: str, data: dict[str, Any]) -> dict[str, Any]:
        wrapped: dict[str, Any] = _wrap(data, doc, "", reads)
        return wrapped

    if not _HOOKED:
        sys.addaudithook(_on_event)
        _HOOKED.append(True)
    _OPENING.append(reads)
    try:
        with _filtered(through):
            yield
    finally:
        _OPENING.remove(reads)


def replaced(datum: Datum, value: Any) -> contextlib.AbstractContextManager[None]:
    """The recorded data with one value changed, for the duration of a rerun."""
    doc, path = datum

    def through(name: str, data: dict[str, Any]) -> dict[str, Any]:
        changed: dict[str, Any] = _set(data, path, value) if name == doc else data
        return changed

    return _filtered(through)


def taken_from_the_catalog(data: Any) -> set[str]:
    """The JSON paths of a fixture that name a catalog figure (not changed here)."""
    return {ref.path for ref in references(data)}
