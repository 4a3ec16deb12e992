"""The recorded data the claim tests read, each changed in turn: does a reading claim move?

The claim tests read a document's recorded figures through
:func:`claims.inputs.transcribed.recorded_data`. For the baseline run the audit
hands them the same data in containers that note every value read, so it knows,
per test, which recorded data it read (``"W1 benchmark.cpu_ms"``). Then each value
some test read is changed as a transcriber slips (:mod:`claims.inputs.typos`: the
decimal point moved, else a digit one higher, else a letter changed) and only its
readers rerun. A value whose change moves no reader's claim is listed with why.

A value a fixture takes from the catalog (:mod:`claims.catalog.references`) is
the catalog figure itself, perturbed with the figures; it is not changed here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from claims.catalog.references import references
from claims.inputs import transcribed
from claims.inputs.typos import mistakes

__all__ = [
    "Datum",
    "Reads",
    "changed_value",
    "reading",
    "replaced",
    "taken_from_the_catalog",
    "value_at",
]

Datum = tuple[str, str]  # (document, JSON path): "W1", "benchmark.cpu_ms"
# The slips tried, in order: the first a value admits is the one made.
SLIP_ORDER = ("10x", "digit +1", "letter")


class Reads:
    """Where the values read are noted: the test now running, and what each test read."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.by_test: dict[str, set[Datum]] = {}

    def note(self, datum: Datum) -> None:
        if self.current is not None:
            self.by_test.setdefault(self.current, set()).add(datum)


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
        self._all()  # an index or a slice: noted as the whole list, which is what it reads
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


@contextlib.contextmanager
def _filtered(through: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Iterator[None]:
    transcribed.FILTERS.append(through)
    try:
        yield
    finally:
        transcribed.FILTERS.remove(through)


def reading(reads: Reads) -> contextlib.AbstractContextManager[None]:
    """Recorded data handed to the tests in containers that note what is read."""

    def through(doc: str, data: dict[str, Any]) -> dict[str, Any]:
        wrapped: dict[str, Any] = _wrap(data, doc, "", reads)
        return wrapped

    return _filtered(through)


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
