"""Many evidence files at once: each distinct claim record is checked once, not once per file.

``claims compare`` reads a lab's fleet of runs, and in a fleet most claim records
are the same text from run to run (recorded checks, untestable and unselected
claims, the deterministic offline tier). :class:`FleetLoader` reads each file as
strictly as :func:`claims.evidence.load_evidence` but does the strict work on a
claim (the hooked parse that refuses duplicate keys, NaN tokens and infinite
numbers; the nesting bound; cleaning; the schema's ``ClaimRecord``; the verdict
its checks give; the attachment cut) once per distinct record text, found by a
digest of its bytes in the file. What is left per file is the C parser's pass to
find where each claim's text ends, the digest, and the strict reading of the
small rest of the document (run, documents, summary), validated as a whole.

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

import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any, cast

from claims import evidence
from claims.evidence import (
    MAX_CLAIMS,
    MAX_DEPTH,
    STRICT_JSON,
    clean,
    id_problems,
    load_evidence_text,
    read_text,
    validator,
    verdict_problems,
)
from claims.records import ClaimRecord, Evidence
from claims.verdicts import summarize

__all__ = ["ClaimEntry", "FleetLoader"]

# JSON's whitespace: space, tab, line feed, carriage return (RFC 8259), nothing else.
_SPACE = re.compile(r"[ \t\n\r]*")
# Finds where a claim's text ends (the C parser, no hooks); the strict reading follows.
_PLAIN_JSON = json.JSONDecoder()
# Distinct claim texts kept, in characters: a fleet whose measured claims all differ
# would otherwise keep every run's records; past this the oldest are dropped (and
# checked again if they come back).
MAX_CACHED_CHARS = 64 * 1024 * 1024


@dataclass
class ClaimEntry:
    """One distinct claim record, checked: the record, and what readers derived from it."""

    claim: ClaimRecord
    size: int
    # certification (run option require_live) -> whether its verdict is the one its checks give
    verdict_ok: dict[bool, bool] = field(default_factory=dict)
    # Per-claim results a reader computes once (claims compare keeps its extraction here).
    memo: dict[str, Any] = field(default_factory=dict)


class _Irregular(Exception):
    """Something this path does not prove fine: the strict loader reads the file."""


class FleetLoader:
    """Loads evidence files, checking each distinct claim record once (see the module)."""

    def __init__(self, max_cached_chars: int = MAX_CACHED_CHARS) -> None:
        self._cache: OrderedDict[bytes, ClaimEntry] = OrderedDict()
        self._chars = 0
        self._max_chars = max_cached_chars
        # How many claim records were checked, and how many were found in the cache.
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
        return doc, [ClaimEntry(c, 0) for c in doc["claims"]]

    # --- the walk -----------------------------------------------------------------
    def _fast(self, text: str) -> tuple[Evidence, list[ClaimEntry]]:
        parts: dict[str, Any] = {}
        entries: list[ClaimEntry] | None = None
        try:
            i = _SPACE.match(text).end()  # type: ignore[union-attr]
            if text[i] != "{" or text.startswith("\ufeff"):
                raise _Irregular
            i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
            while True:
                if text[i] != '"':
                    raise _Irregular  # also the empty object: the strict path words it
                key, i = scanstring(text, i + 1, True)
                i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
                if text[i] != ":" or key in parts:
                    raise _Irregular
                i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
                if key == "claims" and text[i] == "[":
                    entries, i = self._claims(text, i + 1)
                    parts[key] = None
                else:
                    parts[key], i = STRICT_JSON.raw_decode(text, i)
                i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
                if text[i] == ",":
                    i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
                    continue
                if text[i] != "}":
                    raise _Irregular
                break
            if _SPACE.match(text, i + 1).end() != len(text):  # type: ignore[union-attr]
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
        i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
        if text[i] == "]":
            return entries, i + 1
        while True:
            if text[i] != "{" or len(entries) >= MAX_CLAIMS:
                raise _Irregular
            _, end = _PLAIN_JSON.raw_decode(text, i)
            entries.append(self._entry(text[i:end]))
            i = _SPACE.match(text, end).end()  # type: ignore[union-attr]
            if text[i] == "]":
                return entries, i + 1
            if text[i] != ",":
                raise _Irregular
            i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]

    def _entry(self, span: str) -> ClaimEntry:
        """The checked record of one claim's text: from the cache, or checked now."""
        digest = hashlib.blake2b(span.encode("utf-8"), digest_size=16).digest()
        found = self._cache.get(digest)
        if found is not None:
            self._cache.move_to_end(digest)
            self.reused += 1
            return found
        entry = ClaimEntry(_strict_claim(span), len(span))
        self.checked += 1
        self._cache[digest] = entry
        self._chars += entry.size
        while self._chars > self._max_chars and len(self._cache) > 1:
            _, dropped = self._cache.popitem(last=False)
            self._chars -= dropped.size
        return entry

    # --- the rest of the document -------------------------------------------------
    def _checked(self, parts: dict[str, Any], entries: list[ClaimEntry]) -> Evidence:
        """The document, once its non-claim parts and the file-wide rules hold."""
        if any(evidence._SURROGATE.search(k) for k in parts):
            raise _Irregular  # clean() would rename the key: the strict path does that
        rest: dict[str, Any] = {}
        for key, value in parts.items():
            if key == "claims":
                rest[key] = []
                continue
            # A top-level value sits one level down in the document.
            if evidence._depth_exceeds(value, MAX_DEPTH - 1):
                raise _Irregular
            rest[key] = clean(value, 1)
        # The claims were each held to $defs/ClaimRecord; the rest is held to the schema.
        if next(iter(validator().iter_errors(rest)), None) is not None:
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


def _strict_claim(span: str) -> ClaimRecord:
    """One claim's text read as load_evidence reads the whole file, or _Irregular."""
    try:
        value = STRICT_JSON.decode(span)
    except (ValueError, RecursionError):
        raise _Irregular from None
    # A claim sits two levels down (the document, its claims array).
    if not isinstance(value, dict) or evidence._depth_exceeds(value, MAX_DEPTH - 2):
        raise _Irregular
    cleaned = clean(value, 2)
    if next(iter(validator("ClaimRecord").iter_errors(cleaned)), None) is not None:
        raise _Irregular
    claim = cast(ClaimRecord, cleaned)
    holder = cast(Evidence, {"claims": [claim]})
    evidence._bound_attachments(holder)
    return claim
