"""Transcription mistakes, as small pure functions on a value's printed text.

The transcription audit (:mod:`claims.text.transcribed`) makes each of these
mistakes in every transcribed value and counts those the anchored check misses.
Each function takes the text and returns every variant of its kind (none when
the kind does not apply: a value without digits has no digit to drop); the
variants differ from the text. The kinds are the slips a person copying a
figure from a post makes:

* ``digit +1`` - one digit one higher (9 -> 0);
* ``letter`` - the first letter changed, for a value without digits;
* ``digit swap`` - two neighbouring digits exchanged (4.37 -> 4.73);
* ``10x`` - the first number ten times larger (the decimal point slipped);
* ``sign`` - the first number's sign flipped;
* ``unit`` - a decimal unit read as the binary one or back (GB <-> GiB);
* ``dropped digit`` / ``added digit`` - one digit left out, or one doubled.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = [
    "KINDS",
    "digit_added",
    "digit_dropped",
    "digit_plus_one",
    "digits_swapped",
    "letter_changed",
    "mistakes",
    "sign_flipped",
    "times_ten",
    "unit_swapped",
]

# A printed number: digits, with thousands commas or one decimal point.
NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# Decimal unit -> binary unit (and back): the prefix letter stays, an "i" comes or goes.
UNITS = {"kB": "KiB", "KB": "KiB", "MB": "MiB", "GB": "GiB", "TB": "TiB"}
BINARY = {v: k for k, v in UNITS.items() if k != "kB"}
UNIT = re.compile(r"(?<![A-Za-z])(kB|KB|MB|GB|TB|KiB|MiB|GiB|TiB)(?![A-Za-z])")


def _digits(text: str) -> list[int]:
    return [i for i, ch in enumerate(text) if ch.isdigit()]


def digit_plus_one(text: str) -> list[str]:
    """Each digit in turn one higher (9 -> 0)."""
    return [text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1 :] for i in _digits(text)]


def letter_changed(text: str) -> list[str]:
    """The first letter changed (a -> b, any other -> a), for a text without digits."""
    if _digits(text):
        return []
    for i, ch in enumerate(text):
        if ch.isalpha():
            return [text[:i] + ("b" if ch.lower() == "a" else "a") + text[i + 1 :]]
    return []


def digits_swapped(text: str) -> list[str]:
    """Each pair of neighbouring, different digits exchanged."""
    return [
        text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        for i in range(len(text) - 1)
        if text[i].isdigit() and text[i + 1].isdigit() and text[i] != text[i + 1]
    ]


def _first_number(text: str) -> re.Match[str] | None:
    return NUMBER.search(text)


def times_ten(text: str) -> list[str]:
    """The first number ten times larger, printed as before with one decimal fewer."""
    m = _first_number(text)
    if m is None:
        return []
    token = m.group()
    try:
        value = Decimal(token.replace(",", "")) * 10
    except InvalidOperation:  # pragma: no cover - NUMBER only matches decimals
        return []
    places = max(0, len(token.split(".", 1)[1]) - 1) if "." in token else 0
    rounded = value.quantize(Decimal(1).scaleb(-places))
    new = f"{rounded:,}" if "," in token else f"{rounded}"
    return [] if new == token else [text[: m.start()] + new + text[m.end() :]]  # 0 stays 0


def sign_flipped(text: str) -> list[str]:
    """The first number negated, or its minus sign dropped."""
    m = _first_number(text)
    if m is None:
        return []
    at = m.start()
    if at > 0 and text[at - 1] == "-":
        return [text[: at - 1] + text[at:]]
    return [text[:at] + "-" + text[at:]]


def unit_swapped(text: str) -> list[str]:
    """Each decimal byte unit read as the binary one (GB -> GiB) and each binary one as
    the decimal one (GiB -> GB)."""
    out = []
    for m in UNIT.finditer(text):
        unit = m.group()
        other = UNITS.get(unit) or BINARY[unit]
        out.append(text[: m.start()] + other + text[m.end() :])
    return out


def digit_dropped(text: str) -> list[str]:
    """Each digit in turn left out (a lone digit is left alone: that is another value)."""
    if len(_digits(text)) < 2:
        return []
    return list(dict.fromkeys(text[:i] + text[i + 1 :] for i in _digits(text)))


def digit_added(text: str) -> list[str]:
    """The last digit of each number doubled (256 -> 2566)."""
    return [text[: m.end()] + text[m.end() - 1] + text[m.end() :] for m in NUMBER.finditer(text)]


KINDS: dict[str, Callable[[str], list[str]]] = {
    "digit +1": digit_plus_one,
    "letter": letter_changed,
    "digit swap": digits_swapped,
    "10x": times_ten,
    "sign": sign_flipped,
    "unit": unit_swapped,
    "dropped digit": digit_dropped,
    "added digit": digit_added,
}


def _typed(value: Any, text: str) -> Any:
    """``text`` as a value of ``value``'s type; None when it is not one."""
    try:
        if isinstance(value, int):
            return int(text)
        if isinstance(value, float):
            return float(text)
    except ValueError:
        return None
    return text


def mistakes(value: Any) -> Iterator[tuple[str, Any]]:
    """(kind, the value with that mistake) for every mistake of every kind; each differs
    from ``value``. Numbers are changed in their printed form (``repr`` of a float)."""
    if isinstance(value, bool) or value is None:
        return
    text = repr(value) if isinstance(value, float) else str(value)
    seen: set[Any] = set()
    for kind, make in KINDS.items():
        for variant in make(text):
            changed = _typed(value, variant)
            if changed is None or changed == value or (kind, changed) in seen:
                continue
            seen.add((kind, changed))
            yield kind, changed
