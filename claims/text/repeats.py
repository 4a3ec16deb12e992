"""Where the series prints one fact twice, and where a ledger entry says a figure is judged.

A fact printed in two places of the series (two documents, a document and the lab's
files or roadmap) is one claim whose check reads both places (docs/accounting.md).
Two helpers keep that so:

* :func:`repeated_figures` lists the candidates for review
  (``scripts/propose-repeats.py``): distinctive printed figures (a digest, a revision,
  a version, a size or count of three digits or more, a name holding a digit) printed in
  more than one document, or in a document and a bundled lab file no document's text
  holds. A short hex digest printed where another place prints the full one (a
  seven-digit commit and its 40-digit revision) counts as the same figure.
* :func:`unread_deferrals` lists the ledger entries that send a figure to be judged
  elsewhere (a ``repeat``, or a reason saying it is "judged in", "judged where",
  "judged there", "judged at" or "judged elsewhere") without a claim that reads it
  there: the reason names no claim (a repeat of a transcribed value may: the
  transcription tests read it), names one the catalog lacks, names only claims credited
  with no figure of that value, or says "judged" of claims that are all untestable.
  ``tests/text/test_repeats.py`` holds the bundled catalog to none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from claims.text.measure import Accounting, Figure
from claims.text.printed import figures_in_line

__all__ = ["LAB", "Place", "Repeat", "distinctive", "lab_places", "places_of",
           "repeated_figures", "same_value", "unread_deferrals"]

# The document name of a place in a bundled lab file that no document's text holds.
LAB = "lab"
_HEX = re.compile(r"(?:sha256[:-])?(?P<hex>[0-9a-f]{7,64})")
_LEADING_NUMBER = re.compile(r"[+-]?[0-9][0-9,]*(?:\.[0-9]+)?")
# The words with which a reason says its figure is judged at another place.
_ELSEWHERE = re.compile(r"\bjudged (?:in|where|there|at|elsewhere)\b")
# Lab files are read as text; larger ones are data no post prints (none is, today).
MAX_LAB_BYTES = 1 << 20


@dataclass(frozen=True)
class Place:
    """One printed figure: the document (or :data:`LAB`), the source and line, the text,
    and how the accounting counts it (status and the claim or ledger kind)."""

    document: str
    source: str
    line: int
    text: str
    status: str = ""
    by: str = ""

    def describe(self) -> str:
        how = f" [{self.status}{': ' + self.by if self.by else ''}]" if self.status else ""
        return f"{self.document} {self.source}:{self.line} {self.text!r}{how}"


@dataclass(frozen=True)
class Repeat:
    """A distinctive figure (``key``, its comparable form) and every place printing it."""

    key: str
    places: tuple[Place, ...]

    @property
    def documents(self) -> list[str]:
        return sorted({p.document for p in self.places})


def _is_hex_digest(text: str) -> str | None:
    """The hex digits of a digest or revision as printed (seven or more, a letter and a
    digit among them), or None."""
    m = _HEX.fullmatch(text)
    if m is None:
        return None
    hexed = m["hex"]
    if re.search(r"[a-f]", hexed) and re.search(r"[0-9]", hexed):
        return hexed
    return None


def distinctive(text: str) -> bool:
    """Whether a printed figure is specific enough that printing it twice is likely one
    fact: a digest, a name or version holding a letter and a digit (four characters at
    least), or a number with three digits or more, or two around a decimal point. A
    bare "2" or "13" is printed for too many reasons to propose."""
    if _is_hex_digest(text):
        return True
    has_digit = any(c.isdigit() for c in text)
    if any(c.isalpha() for c in text) and has_digit:
        return len(text) >= 4
    digits = sum(c.isdigit() for c in text)
    return digits >= 3 or ("." in text and digits >= 2)


def _key(text: str) -> str:
    """The comparable form: a digest's hex digits; otherwise thousands separators and a
    trailing percent sign dropped ("6,171,877,376" and "6171877376" are one figure)."""
    hexed = _is_hex_digest(text)
    if hexed is not None:
        return hexed
    return text.replace(",", "").rstrip("%")


def same_value(a: str, b: str) -> bool:
    """Whether two printed figures state one value: the same comparable form, a short
    hex digest that begins the other, or the same leading number ("20" and "20-core",
    "4,096" and "4096-token")."""
    ka, kb = _key(a), _key(b)
    if ka == kb:
        return True
    if _is_hex_digest(a) and _is_hex_digest(b):
        return ka.startswith(kb) or kb.startswith(ka)
    na, nb = _LEADING_NUMBER.match(a), _LEADING_NUMBER.match(b)
    return (na is not None and nb is not None
            and na.group().replace(",", "") == nb.group().replace(",", ""))


def _by(f: Figure) -> str:
    if f.claims:
        return f.claims[0][0]
    if f.entry is not None:
        return f.entry.kind
    return f.recorded[0] if f.recorded else ""


def places_of(acc: Accounting) -> list[Place]:
    """Every printed figure of the accounted documents, as a :class:`Place`."""
    return [Place(f.at.document, f.at.source, f.at.line, f.at.text, f.status, _by(f))
            for f in acc.figures]


def lab_places(lab_dir: Path, skip: Iterable[str] = ()) -> list[Place]:
    """The printed figures of the bundled lab files (paths under ``lab_dir``) that no
    document's text holds (``skip``: the ``file`` sources already accounted for); files
    that are not UTF-8 text or are over :data:`MAX_LAB_BYTES` are left out."""
    skipped = set(skip)
    out: list[Place] = []
    for path in sorted(p for p in lab_dir.rglob("*") if p.is_file()):
        rel = path.relative_to(lab_dir).as_posix()
        if rel in skipped or path.stat().st_size > MAX_LAB_BYTES:
            continue
        try:
            lines = path.read_text("utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(lines, 1):
            out.extend(Place(LAB, rel, number, token.text) for token in figures_in_line(line))
    return out


def repeated_figures(places: Iterable[Place]) -> list[Repeat]:
    """The distinctive figures printed in at least two documents, or in a document and
    a lab file, with every place printing each; a short hex digest joins the group of a
    longer one it begins. Sorted by key."""
    groups: dict[str, list[Place]] = {}
    for place in places:
        if distinctive(place.text):
            groups.setdefault(_key(place.text), []).append(place)
    # A seven-digit commit joins the full revision it abbreviates (the longest key it
    # begins), so a post printing the short form and another the long one are one fact.
    hex_keys = sorted((k for k in groups if _is_hex_digest(k)), key=len, reverse=True)
    for short in sorted(hex_keys, key=len):
        longer = [k for k in hex_keys if len(k) > len(short) and k.startswith(short)]
        if longer and short in groups:
            groups[longer[0]].extend(groups.pop(short))
    out = []
    for key, group in sorted(groups.items()):
        documents = {p.document for p in group}
        if len(documents - {LAB}) >= 1 and len(documents) >= 2:
            out.append(Repeat(key, tuple(group)))
    return out


def _id_pattern(claim_ids: Iterable[str]) -> re.Pattern[str]:
    """What a claim id looks like in a reason: one of the catalog's document prefixes
    (``W4`` of ``W4-HUB-PARAMS``), a dash and upper-case words; so a misspelt id is
    found too, and a name such as SHA-256 is not taken for one."""
    prefixes = sorted({cid.split("-", 1)[0] for cid in claim_ids}, key=len, reverse=True)
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, prefixes))})-[A-Z0-9][A-Z0-9_.-]*"
                      r"[A-Z0-9]\b")


def unread_deferrals(acc: Accounting, claim_ids: Iterable[str],
                     untestable: Iterable[str] = ()) -> list[str]:
    """One line per excluded figure whose ledger entry sends it to be judged elsewhere
    without a claim that reads it there (the module docstring says when), naming the
    entry and the figure. ``claim_ids``: the catalog's claims; ``untestable``: those no
    test judges, which may stand for a repeat of what they state but never for a reason
    saying the figure is judged."""
    known = set(claim_ids)
    ids = _id_pattern(known)
    no_test = set(untestable)
    read: dict[str, list[str]] = {}  # claim id -> texts of the figures credited to it
    by_place: dict[tuple[str, int], list[Figure]] = {}
    for f in acc.figures:
        by_place.setdefault((f.at.source, f.at.line), []).append(f)
        for claim, _ in f.claims:
            read.setdefault(claim, []).append(f.at.text)
    problems: list[str] = []
    for f in acc.figures:
        entry = f.entry
        if f.status != "excluded" or entry is None:
            continue
        if entry.kind != "repeat" and not _ELSEWHERE.search(entry.reason):
            continue
        where = f"{entry.where}: {f.at.text!r} at {f.at.source} line {f.at.line}"
        named = list(dict.fromkeys(ids.findall(entry.reason)))
        if _ELSEWHERE.search(entry.reason) or "judged" in entry.reason:
            # A reason saying the figure is judged needs a claim a test judges.
            named = [n for n in named if n not in no_test] or named
            if named and all(n in no_test for n in named):
                problems.append(f"{where}: says the figure is judged, but "
                                f"{', '.join(named)} is untestable: no test reads it")
                continue
        unknown = [n for n in named if n not in known]
        if unknown:
            problems.append(f"{where}: the reason names {', '.join(unknown)}, not a claim "
                            "of the catalog")
            continue
        there: list[Figure] = []
        if entry.kind == "repeat" and entry.of is not None and entry.of.key is not None:
            there = [g for g in by_place.get((entry.of.key, entry.of.first or 0), [])
                     if g.at.text == entry.text]
        if not named:
            if there and all(g.status == "recorded" for g in there):
                continue  # a transcribed value: the transcription tests read it
            problems.append(f"{where}: says the figure is judged elsewhere but names no "
                            "claim that reads it there")
            continue
        if any(same_value(f.at.text, text) for n in named for text in read.get(n, [])):
            continue
        if any(claim in named for g in there for claim, _ in g.claims):
            continue
        problems.append(f"{where}: {', '.join(named)} judges no figure of this value, so "
                        "it does not read it")
    return problems
