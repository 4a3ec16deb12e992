"""Many evidence files at once: each distinct claim record is checked once, not once per file.

``claims compare`` reads a lab's fleet of runs, and in a fleet most claim records
are the same text from run to run (recorded checks, untestable and unselected
claims, the deterministic offline tier). :class:`FleetLoader` reads each file as
strictly as :func:`claims.evidence.load_evidence` but does the strict work on a
claim (the hooked parse that refuses duplicate keys, NaN tokens and infinite
numbers; the nesting bound; cleaning; the schema's ``ClaimRecord``; the verdict
its checks give; the attachment cut) once per distinct record text. The same
holds for the other top-level values (run, documents, summary), each held to its
property of the schema.

A value's text is recognised without parsing it again: where the file's text
at a claim's position starts with the text of a record already checked (one of
the last few seen at that position in earlier files), that is the record, since
a JSON value's extent is decided by its own characters. Only text not seen
before is parsed (the C parser finds where it ends, and the text is then looked
up whole, then checked). So the work per file is a comparison of its text with
known text and a few steps per claim; the work per distinct record is the
strict reading. (Measured on 200 files of 800 KB: finding each claim's end with
the C parser alone takes as long as parsing the files, about a second; the
comparison a few tens of milliseconds.)

Anything this path does not prove fine (a claim or key it cannot read, a schema
violation, a contradicted verdict, a shape it does not expect) sends the file to
the strict loader, which refuses it with its own message or accepts it: the two
paths agree by construction on what they refuse, and tests/test_evidence_fleet.py
checks that they agree on what they return.

The top level is walked by hand (an object of keys and values, whitespace as
JSON defines it) because the standard decoder gives no positions inside a value;
each value is read by the standard decoder itself.

A document this loader returns shares its claim records with other documents
and with the loader's cache: it is read-only.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any, cast

from claims.evidence import (
    MAX_CLAIMS,
    MAX_DEPTH,
    STRICT_JSON,
    SURROGATE,
    bound_attachments,
    clean,
    depth_exceeds,
    id_problems,
    load_evidence_text,
    read_text,
    schema,
    validator,
    verdict_problems,
)
from claims.records import ClaimRecord, Evidence
from claims.verdicts import summarize

__all__ = ["ClaimEntry", "FleetLoader"]

# JSON's whitespace: space, tab, line feed, carriage return (RFC 8259), nothing else.
_SPACE = re.compile(r"[ \t\n\r]*")
# Finds where a value's text ends (the C parser, no hooks); the strict reading follows.
_PLAIN_JSON = json.JSONDecoder()
# Distinct value texts kept, in characters: a fleet whose measured claims all differ
# would otherwise keep every run's records; past this the oldest are dropped (and
# checked again if they come back).
MAX_CACHED_CHARS = 32 * 1024 * 1024
# Records remembered per claim position (and per top-level key) as the likely text
# of the next file's value there: a fleet's runs vary a claim over a few values.
_CANDIDATES = 4
# The top-level keywords of the schema that validating each property on its own
# covers (with "required" checked here); any other keyword: the rest is validated whole.
_TOP_KEYWORDS = frozenset({"$schema", "$id", "title", "description", "type", "required",
                           "properties", "$defs"})


@dataclass
class ClaimEntry:
    """One distinct claim record, checked: the record, and what readers derived from it."""

    claim: ClaimRecord
    span: str
    # certification (run option require_live) -> whether its verdict is the one its checks give
    verdict_ok: dict[bool, bool] = field(default_factory=dict)
    # Per-claim results a reader computes once (claims compare keeps its extraction here).
    memo: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Value:
    """One distinct top-level value (run, documents, summary...), read strictly and cleaned;
    ``valid``: whether it holds to its property of the schema."""

    value: Any
    span: str
    valid: bool


class _Irregular(Exception):
    """Something this path does not prove fine: the strict loader reads the file."""


class FleetLoader:
    """Loads evidence files, checking each distinct claim record once (see the module)."""

    def __init__(self, max_cached_chars: int = MAX_CACHED_CHARS) -> None:
        self._claims_seen: OrderedDict[str, ClaimEntry] = OrderedDict()
        self._values_seen: OrderedDict[tuple[str, str], _Value] = OrderedDict()
        self._near: dict[int, list[ClaimEntry]] = {}
        self._near_values: dict[str, list[_Value]] = {}
        self._chars = 0
        self._max_chars = max_cached_chars
        # Claim records checked, records recognised, and files the strict loader read.
        self.checked = 0
        self.reused = 0
        self.strict_files = 0

    def load(self, path: Path | str) -> tuple[Evidence, list[ClaimEntry]]:
        """The evidence of ``path`` (as load_evidence returns it) and its claims' entries.

        Raises EvidenceError exactly where :func:`claims.evidence.load_evidence` does.
        """
        path = Path(path)
        text = read_text(path)
        try:
            return self._fast(text)
        except _Irregular:
            pass
        # The strict loader decides (and words the refusal); its claims are not cached.
        self.strict_files += 1
        doc = load_evidence_text(path, text)
        return doc, [ClaimEntry(c, "") for c in doc["claims"]]

    # --- the walk -----------------------------------------------------------------
    def _fast(self, text: str) -> tuple[Evidence, list[ClaimEntry]]:
        parts: dict[str, _Value | None] = {}
        entries: list[ClaimEntry] | None = None
        space = _SPACE.match
        try:
            i = space(text).end()  # type: ignore[union-attr]
            if text[i] != "{":
                raise _Irregular
            i = space(text, i + 1).end()  # type: ignore[union-attr]
            while True:
                if text[i] != '"':
                    raise _Irregular  # also the empty object: the strict path words it
                key, i = scanstring(text, i + 1, True)
                i = space(text, i).end()  # type: ignore[union-attr]
                if text[i] != ":" or key in parts:
                    raise _Irregular
                i = space(text, i + 1).end()  # type: ignore[union-attr]
                if key == "claims" and text[i] == "[":
                    entries, i = self._claims(text, i + 1)
                    parts[key] = None
                else:
                    parts[key], i = self._value(key, text, i)
                i = space(text, i).end()  # type: ignore[union-attr]
                if text[i] == ",":
                    i = space(text, i + 1).end()  # type: ignore[union-attr]
                    continue
                if text[i] != "}":
                    raise _Irregular
                break
            if space(text, i + 1).end() != len(text):  # type: ignore[union-attr]
                raise _Irregular
        except (ValueError, RecursionError, IndexError):
            # Not JSON, or JSON the strict reading refuses (its hooks raise ValueErrors).
            raise _Irregular from None
        if entries is None:
            raise _Irregular
        return self._checked(parts, entries), entries

    def _claims(self, text: str, i: int) -> tuple[list[ClaimEntry], int]:
        """The entries of the claims array whose first item starts at ``i``; the end."""
        entries: list[ClaimEntry] = []
        space = _SPACE.match
        i = space(text, i).end()  # type: ignore[union-attr]
        if text[i] == "]":
            return entries, i + 1
        while True:
            if text[i] != "{" or len(entries) >= MAX_CLAIMS:
                raise _Irregular
            entry = self._claim_at(len(entries), text, i)
            entries.append(entry)
            i = space(text, i + len(entry.span)).end()  # type: ignore[union-attr]
            if text[i] == "]":
                return entries, i + 1
            if text[i] != ",":
                raise _Irregular
            i = space(text, i + 1).end()  # type: ignore[union-attr]

    def _claim_at(self, position: int, text: str, i: int) -> ClaimEntry:
        """The checked record of the claim whose text starts at ``i``."""
        near = self._near.setdefault(position, [])
        for entry in near:
            if text.startswith(entry.span, i):
                self.reused += 1
                return entry
        _, end = _PLAIN_JSON.raw_decode(text, i)
        span = text[i:end]
        found = self._claims_seen.get(span)
        if found is not None:
            self._claims_seen.move_to_end(span)
            self.reused += 1
        else:
            found = ClaimEntry(_strict_claim(span), span)
            self.checked += 1
            self._claims_seen[span] = found
            self._grew(len(span))
        near.insert(0, found)
        del near[_CANDIDATES:]
        return found

    def _value(self, key: str, text: str, i: int) -> tuple[_Value, int]:
        """The strictly read, cleaned top-level value ``key`` whose text starts at ``i``."""
        near = self._near_values.setdefault(key, [])
        for known in near:
            if text.startswith(known.span, i):
                return known, i + len(known.span)
        value, end = STRICT_JSON.raw_decode(text, i)
        span = text[i:end]
        found = self._values_seen.get((key, span))
        if found is None:
            # A top-level value sits one level down in the document.
            if depth_exceeds(value, MAX_DEPTH - 1):
                raise _Irregular
            cleaned = clean(value, 1)
            found = _Value(cleaned, span, _property_valid(key, cleaned))
            self._values_seen[(key, span)] = found
            self._grew(len(span))
        near.insert(0, found)
        del near[_CANDIDATES:]
        return found, end

    def _grew(self, chars: int) -> None:
        """Drop the oldest texts once more than the limit's worth is kept."""
        self._chars += chars
        while self._chars > self._max_chars and (self._claims_seen or self._values_seen):
            seen: OrderedDict[Any, Any] = self._claims_seen or self._values_seen
            _, dropped = seen.popitem(last=False)
            self._chars -= len(dropped.span)
        if self._chars > self._max_chars:
            self._near.clear()
            self._near_values.clear()

    # --- the rest of the document -------------------------------------------------
    def _checked(self, parts: dict[str, _Value | None], entries: list[ClaimEntry]) -> Evidence:
        """The document, once its non-claim parts and the file-wide rules hold."""
        if any(SURROGATE.search(k) for k in parts):
            raise _Irregular  # clean() would rename the key: the strict path does that
        rest: dict[str, Any] = {k: [] if v is None else v.value for k, v in parts.items()}
        if _per_property():
            required = schema().get("required", [])
            if not all(v is None or v.valid for v in parts.values()) or not all(
                k in parts for k in required
            ):
                raise _Irregular
        elif next(iter(validator().iter_errors(rest)), None) is not None:
            raise _Irregular
        claims = [e.claim for e in entries]
        doc = cast(Evidence, {**rest, "claims": claims})
        if id_problems(doc):
            raise _Irregular
        certification = doc["run"]["options"].get("require_live") is True
        for e in entries:
            ok = e.verdict_ok.get(certification)
            if ok is None:
                lone = cast(Evidence, {"run": {"options": {"require_live": certification}},
                                       "claims": [e.claim]})
                ok = e.verdict_ok[certification] = not verdict_problems(lone)
            if not ok:
                raise _Irregular
        doc["summary"] = summarize(claims)
        return doc


@lru_cache(maxsize=1)
def _per_property() -> bool:
    """Whether the schema's top level is properties and required keys only (then each
    top-level value is validated against its property, and cached with it)."""
    top = schema()
    return set(top) <= _TOP_KEYWORDS and top.get("type") == "object"


def _property_valid(key: str, value: Any) -> bool:
    """Whether a top-level value holds to the schema's property ``key`` (any, if unnamed)."""
    if not _per_property():
        return True  # the rest is validated whole (FleetLoader._checked)
    if key not in schema()["properties"]:
        return True
    return next(iter(validator("properties", key).iter_errors(value)), None) is None


def _strict_claim(span: str) -> ClaimRecord:
    """One claim's text read as load_evidence reads the whole file, or _Irregular."""
    try:
        value = STRICT_JSON.decode(span)
    except (ValueError, RecursionError):
        raise _Irregular from None
    # A claim sits two levels down (the document, its claims array).
    if not isinstance(value, dict) or depth_exceeds(value, MAX_DEPTH - 2):
        raise _Irregular
    cleaned = clean(value, 2)
    if next(iter(validator("$defs", "ClaimRecord").iter_errors(cleaned)), None) is not None:
        raise _Irregular
    claim = cast(ClaimRecord, cleaned)
    holder = cast(Evidence, {"claims": [claim]})
    bound_attachments(holder)
    return claim
