"""Grow a checkout's series: a copy of it where each catalog document appears N/6 times.

Usage: python scripts/grow-series.py [--root DIR] [--claims-documents DIR] DEST N

Writes into DEST (which must not exist, or be empty) what a run of the suite reads of
the checkout at ROOT (default: the one this script belongs to): ``claims/``,
``tests/``, ``fixtures/``, ``conftest.py`` and ``pyproject.toml``, the bytecode caches
left out. Each of the catalog's D documents is then copied N/D - 1 times under new ids
(``W1`` -> ``W1X2``, ``W1X3``, ...; its claims ``W1-ARCH`` -> ``W1X2-ARCH``), with
everything a copy needs to be checked as its original is:

* ``claims/catalog/<ID>.toml`` and ``<ID>.anchors.toml`` (the figures' anchors in the
  same seeds: the copy states what its original states, where its original prints it);
* ``tests/claims/<id>/``, the original's claim tests with the ids rewritten (claim
  markers, ``check`` and ``recorded`` ids, ``{"$figure": ...}`` references);
* its seeds under new names (``002_7d36a8153c2e8741.txt`` -> ``...8741.x2.txt`` for
  every second copy, :func:`seed_copy`), and with ``--claims-documents DIR`` a grown
  documents folder in ``DEST/documents`` holding the seeds and their copies;
* ``fixtures/recorded/<ID>.json`` and ``<ID>.anchors.json``, with their lines in
  ``fixtures/recorded/MANIFEST.sha256``;
* the lab folders only that document relies on (``fixtures/lab/week-01-environment``
  -> ``week-01-environment-w1x2``), since :func:`claims.testing.lab.document_of`
  requires that exactly one document relies on each lab result file; with their
  entries in ``fixtures/lab/manifest.json``, ``upstream.json`` and
  ``fixtures/BUNDLED.sha256``. Files several documents list (the lab's licence, its
  roadmap, the Hub snapshot) stay one copy that every copy relies on too.

Ids are rewritten systematically, never by a list of files: every occurrence of a
document id as a whole token (``W1`` in ``W1-ARCH`` and ``lab.results("W1")``, not in
``W1X2`` or ``W1_POST``) in the files copied for that document, the names of the
lab folders each document owns and the names of the seeds. The k-th copies form a
series of their own: a reference to another document (W5's premise on a W1 figure,
W3's transcription naming a W4 figure) points at that document's k-th copy. A digest
is carried over, never blessed: a copy's file or figure is listed with its own digest
only where its original matches the digest the checkout lists, so a checkout whose
inputs fail its manifests grows into one whose copies fail the same way. What cannot
be copied (a claim test outside its document's folder, a lab folder a document owns
that is not a top-level folder, a lab result no one folder owns) stops it with a
message.

This is the generator of the scale benchmark (``scripts/bench-series.py``,
docs/self-measurement.md): doubling the documents should at most double the time of
``pytest -m offline``, ``claims coverage`` and ``claims audit``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# What a run of the suite reads of a checkout (tests/checkout.py copies the same).
COPIED = ("claims", "tests", "fixtures", "conftest.py", "pyproject.toml")
CATALOG = Path("claims") / "catalog"
CLAIM_TESTS = Path("tests") / "claims"
RECORDED = Path("fixtures") / "recorded"
LAB = Path("fixtures") / "lab"
BUNDLED = Path("fixtures") / "BUNDLED.sha256"
MANIFEST = RECORDED / "MANIFEST.sha256"
# The programs a document prints, transcribed (claims/text/transcribed.PROGRAMS_PRINTED).
PROGRAMS = RECORDED / "programs"
# Which transcribed values the claim tests read (claims/text/reads.py).
READ = RECORDED / "READ.json"
# Where a grown checkout keeps its documents folder (the seeds and their copies).
DOCUMENTS = "documents"
FIGURE_LINE = "# figure "  # claims.inputs.manifest.FIGURE_LINE
# The claim ids a test names: @pytest.mark.claim("W1-ARCH", ...), parametrised marks too.
CLAIM_MARK = re.compile(r"""mark\.claim\(\s*["']([A-Z0-9]+(?:-[A-Z0-9_]+)+)["']""")
# An anchor's fields that locate a figure in a document's text: a copy prints its
# figures where its original does, so a rewrite that changed one of them is a bug.
ANCHOR_PLACE = ("seed", "line", "before", "text", "unit")
# A line of an anchors file (TOML ``key = ...`` or JSON ``"key": ...``) giving a place.
PLACE_LINE = re.compile(rf"""\s*"?({'|'.join(ANCHOR_PLACE)})"?\s*[=:]""")


class GrowError(RuntimeError):
    """The checkout cannot be grown as asked; the message says what and where."""


def copy_id(doc: str, k: int) -> str:
    """The id of document ``doc``'s ``k``-th copy (k >= 2; the original is the first)."""
    return f"{doc}X{k}"


def token(word: str) -> re.Pattern[str]:
    """``word`` as a whole token: not inside a longer id, name or path segment.

    ``-``, ``/``, quotes and spaces end a token (``W1`` in ``W1-ARCH``, in
    ``"W1"``); letters, digits and ``_`` do not (``W1X2``, ``W1_POST``, ``MCP``).
    """
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])")


def folder_token(name: str) -> re.Pattern[str]:
    """A lab folder's name as a path segment (``week-01-environment/results.json``),
    not a prefix of a longer name (``week-01-environment-w1x2``)."""
    return re.compile(rf"(?<![A-Za-z0-9_.-]){re.escape(name)}(?![A-Za-z0-9_.-])")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def covers(entry: str, path: str) -> bool:
    """claims.catalog.loader.covers: a lab list entry names the file or a folder above it."""
    return path == entry or path.startswith(entry.rstrip("/") + "/")


@dataclass(frozen=True)
class Source:
    """One original document and what of the checkout is its own."""

    id: str
    claims: tuple[str, ...]
    seeds: tuple[str, ...]  # its [document] seeds: files of the documents folder
    lab: tuple[str, ...]  # its [document] lab list
    own_lab: tuple[str, ...]  # the entries no other document's list overlaps
    # The files of its text (a bundled document's [document] text is its lab folder's
    # files) that another document's lab entry also covers (Week 5's roadmap page, inside
    # Week 1's roadmap folder): each copy prints its text in a copy of its own, or the
    # accounting would give the page's lines to one document of the two.
    shared_text: tuple[str, ...]
    tests: Path  # tests/claims/<id>, relative to the checkout
    recorded: bool  # has fixtures/recorded/<ID>.json


@dataclass(frozen=True)
class Copy:
    """One copy of a document: its id and how its files are rewritten from the original's."""

    source: Source
    id: str
    k: int  # the k-th copy of its document (the original is the first)
    # Every document of the series: the k-th copies form a series of their own, so a
    # copy names the k-th copy of any document its original names (W3X2's transcription
    # names a figure of W4X2, W5X2's tests a premise of W1X2), never an original.
    series: tuple[Source, ...]

    def lab_name(self, entry: str, of: Source | None = None) -> str:
        """The name of the k-th copy of the lab folder ``entry`` (of ``of``, default this
        copy's original)."""
        return f"{entry}-{copy_id((of or self.source).id, self.k).lower()}"

    def file_name(self, entry: str, of: Source | None = None) -> str:
        """The name of the k-th copy of the shared text file ``entry`` (of ``of``, default
        this copy's original): ``roadmap/week-05.md`` -> ``roadmap/week-05-w5x2.md``."""
        path = Path(entry)
        tag = copy_id((of or self.source).id, self.k).lower()
        return path.with_name(f"{path.stem}-{tag}{path.suffix}").as_posix()

    def rewrite_seeds(self, text: str) -> str:
        """The seed names of the series as the k-th copies' (:func:`seed_copy`)."""
        for seed in sorted({s for d in self.series for s in d.seeds}):
            text = folder_token(seed).sub(seed_copy(seed, self.k), text)
        return text

    def rewrite(self, text: str) -> str:
        """The original's text with the ids of the series' documents, the lab folders
        each owns and the seeds as their k-th copies'."""
        for doc in self.series:
            text = token(doc.id).sub(copy_id(doc.id, self.k), text)
            for entry in doc.own_lab:
                text = folder_token(entry).sub(self.lab_name(entry, doc), text)
            for entry in doc.shared_text:
                text = folder_token(entry).sub(self.file_name(entry, doc), text)
        return self.rewrite_seeds(text)

    def rewrite_anchors(self, text: str) -> str:
        """An anchors file rewritten line by line, except the lines giving an anchor's
        place (``text = "week-01-environment"`` is what the document prints, and stays
        what it prints) but for the seed's name; :func:`_copy_text` checks no place
        changed otherwise."""
        out = []
        for line in text.splitlines(keepends=True):
            place = PLACE_LINE.match(line)
            if place is None:
                out.append(self.rewrite(line))
            else:
                out.append(self.rewrite_seeds(line) if place.group(1) == "seed" else line)
        return "".join(out)

    def place(self, place: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """An original anchor's place as the copy's: the same but for the seed's name."""
        seeds = {s for d in self.series for s in d.seeds}
        return [(k, seed_copy(v, self.k) if k == "seed" and v in seeds else v)
                for k, v in place]


def seed_copy(seed: str, k: int) -> str:
    """The name of the ``k``-th copy of a seed: ``002_7d36a8153c2e8741.x2.txt``.

    Coverage gives each line of a seed to the document whose title is the last one
    above it, among the documents naming the seed (claims.text.sources): a copy
    with its original's title in its original's seed would take its original's lines.
    So the k-th copies of all documents share the k-th copy of each seed, in which
    their titles are unambiguous, as the originals share the seed itself."""
    stem, dot, ext = seed.rpartition(".")
    return f"{stem}.x{k}.{ext}" if dot and stem else f"{seed}.x{k}"


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise GrowError(f"{path}: not readable TOML ({exc})") from None


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise GrowError(f"{path}: not readable JSON ({exc})") from None


def sources(root: Path) -> list[Source]:
    """The checkout's documents (its catalog's ``<ID>.toml`` files), with what each owns."""
    files = sorted(p for p in (root / CATALOG).glob("*.toml")
                   if not p.name.endswith(".anchors.toml"))
    if not files:
        raise GrowError(f"{root / CATALOG}: no catalog files")
    raw: dict[str, dict[str, Any]] = {}
    for path in files:
        data = _toml(path)
        doc_id = data.get("document", {}).get("id")
        if doc_id != path.stem:
            raise GrowError(f"{path}: [document] id {doc_id!r} is not the file's name")
        raw[doc_id] = data
    found: list[Source] = []
    for doc_id, data in raw.items():
        lab = tuple(data["document"].get("lab", []))
        others = [e for other, d in raw.items() if other != doc_id
                  for e in d["document"].get("lab", [])]
        own = tuple(e for e in lab
                    if not any(covers(e, o) or covers(o, e) for o in others))
        for entry in own:
            if "/" in entry.strip("/") or not (root / LAB / entry).is_dir():
                raise GrowError(f"{doc_id}: the lab entry {entry!r} only it relies on is not "
                                f"a top-level folder of {LAB}: a copy of a week's results "
                                "must be a week folder of its own (claims.testing.lab)")
        texted = bool(data["document"].get("text"))
        shared_text = tuple(e for e in lab if texted and e not in own
                            and (root / LAB / e).is_file())
        tests = CLAIM_TESTS / doc_id.lower()
        if not (root / tests).is_dir():
            raise GrowError(f"{doc_id}: no claim tests at {tests}")
        found.append(Source(
            id=doc_id,
            claims=tuple(c["id"] for c in data.get("claim", [])),
            seeds=tuple(data["document"].get("seeds", [])),
            lab=lab, own_lab=own, shared_text=shared_text, tests=tests,
            recorded=(root / RECORDED / f"{doc_id}.json").is_file(),
        ))
    _check_claim_tests(root, found)
    _check_lab_results(root, found)
    return found


def _check_claim_tests(root: Path, docs: list[Source]) -> None:
    """Every claim marker of a document's folder names that document's claims: a copied
    folder then tests exactly its copy, and no claim has tests the copy would miss
    (a marker in another folder, or in tests/claims/ itself, is not copied)."""
    owner = {claim: doc for doc in docs for claim in doc.claims}
    for path in sorted((root / CLAIM_TESTS).rglob("*.py")):
        rel = path.relative_to(root)
        for claim in CLAIM_MARK.findall(path.read_text("utf-8")):
            doc = owner.get(claim)
            if doc is None:
                raise GrowError(f"{rel}: marks {claim}, which no catalog document holds")
            if rel.parent == CLAIM_TESTS:
                raise GrowError(f"{rel}: marks {claim} by its id outside {doc.tests}: a "
                                "copy of its document would not be tested there")
            if not rel.is_relative_to(doc.tests):
                raise GrowError(f"{rel}: marks {claim}, a claim of {doc.id}, outside "
                                f"{doc.tests}: its copies would have no such test")


def _check_lab_results(root: Path, docs: list[Source]) -> None:
    """Each lab result the manifest describes is inside a folder one document owns."""
    files = _json(root / LAB / "manifest.json").get("files", {})
    for key in files:
        owners = [d.id for d in docs if any(covers(e, key) for e in d.own_lab)]
        if len(owners) != 1:
            raise GrowError(f"{LAB}/manifest.json: {key} is not inside a lab folder exactly "
                            f"one document owns (owned by: {', '.join(owners) or 'none'}); "
                            "its copies could not each rely on their own")


def _copy_checkout(root: Path, dest: Path) -> None:
    if dest.exists() and any(dest.iterdir()):
        raise GrowError(f"{dest}: exists and is not empty")
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        src = root / name
        if src.is_dir():
            shutil.copytree(src, dest / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        elif src.is_file():
            shutil.copyfile(src, dest / name)
        else:
            raise GrowError(f"{src}: missing (a run of the suite reads it)")


def _write_new(path: Path, text: str) -> None:
    if path.exists():
        raise GrowError(f"{path}: already exists; a copy's id collides with the checkout's")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def _anchor_places(data: Any) -> list[Any]:
    """Where each anchor of an anchors file (TOML or JSON) says its figure is printed."""
    if isinstance(data, dict):
        here = [(k, data[k]) for k in ANCHOR_PLACE if k in data]
        return [here] + [p for k, v in sorted(data.items()) if k not in ANCHOR_PLACE
                         for p in _anchor_places(v)]
    if isinstance(data, list):
        return [p for v in data for p in _anchor_places(v)]
    return []


def _copy_text(src: Path, dst: Path, copy: Copy,
               parse: Callable[[Path], Any] | None = None, anchors: bool = False) -> None:
    """Write ``dst`` as ``src`` rewritten for ``copy``; checked to parse, and for an
    anchors file to keep every anchor's place (seed, line, the text before it)."""
    text = src.read_text("utf-8")
    _write_new(dst, copy.rewrite_anchors(text) if anchors else copy.rewrite(text))
    if parse is not None:
        parsed = parse(dst)
        if anchors and _anchor_places(parsed) != [copy.place(p)
                                                  for p in _anchor_places(parse(src))]:
            raise GrowError(f"{dst}: rewriting {copy.source.id} as {copy.id} changed where "
                            f"an anchor of {src.name} finds its figure in the document")


def _copy_tests(root: Path, dest: Path, copy: Copy) -> None:
    src = root / copy.source.tests
    out = dest / CLAIM_TESTS / copy.id.lower()
    for path in sorted(src.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        target = out / path.relative_to(src)
        try:
            path.read_text("utf-8")
        except UnicodeDecodeError:
            raise GrowError(f"{path}: not text; cannot rewrite its ids for {copy.id}") from None
        _copy_text(path, target, copy)
    # What the copy's tests mark must be the copy's claims (and every one of them the
    # original marks), or the rewrite missed or over-reached.
    marked = {c for p in out.rglob("*.py") for c in CLAIM_MARK.findall(p.read_text("utf-8"))}
    expected = {copy.rewrite(c) for p in src.rglob("*.py")
                for c in CLAIM_MARK.findall(p.read_text("utf-8"))}
    if marked != expected or any(not c.startswith(copy.id + "-") for c in marked):
        raise GrowError(f"{out}: its claim markers ({len(marked)}) are not the copies of "
                        f"{src}'s ({len(expected)})")


def _manifest_lines(path: Path) -> list[tuple[str, str, str]]:
    """A ``sha256sum``-format manifest as (prefix, digest, rest): prefix is ``# figure ``
    on a figure line, ``""`` on a file line; other lines are kept whole in ``rest``."""
    out: list[tuple[str, str, str]] = []
    for line in path.read_text("utf-8").splitlines():
        prefix = FIGURE_LINE if line.startswith(FIGURE_LINE) else ""
        digest, sep, rest = line.removeprefix(prefix).partition("  ")
        if sep and len(digest) == 64:
            out.append((prefix, digest, rest))
        else:
            out.append(("", "", line))
    return out


def _format(lines: Iterable[tuple[str, str, str]]) -> str:
    return "".join((f"{p}{d}  {r}" if d else r) + "\n" for p, d, r in lines)


def _carried(listed: str, original: str, copy_digest: str) -> str:
    """A copy's digest: its own where its original matches the listed one, else the
    listed one unchanged, so the copy fails its check as its original does."""
    return copy_digest if original == listed else listed


def _grow_recorded(dest: Path, copies: list[Copy]) -> None:
    """``fixtures/recorded/<ID>.json`` and its anchors for each copy, and their manifest
    lines: a file line per file, a figure line per catalog figure the fixture names.
    Needs the copies' catalog files written: the figures are resolved in ``dest``."""
    manifest = dest / MANIFEST
    lines = _manifest_lines(manifest)
    files = {r: d for p, d, r in lines if d and not p}
    figures = {r: d for p, d, r in lines if p}
    added: list[tuple[str, str, str]] = []
    places: list[tuple[str, str, str]] = []  # (original place, its listed digest, copy's)
    for copy in copies:
        if not copy.source.recorded:
            continue
        for suffix, anchors in ((".json", False), (".anchors.json", True)):
            src = dest / RECORDED / f"{copy.source.id}{suffix}"
            dst = dest / RECORDED / f"{copy.id}{suffix}"
            _copy_text(src, dst, copy, _json, anchors)
            rel, new = src.relative_to(dest).as_posix(), dst.relative_to(dest).as_posix()
            if rel not in files:
                raise GrowError(f"{MANIFEST}: does not list {rel}; anchor the checkout's "
                                "transcriptions before growing it")
            added.append(("", _carried(files[rel], sha256(src), sha256(dst)), new))
        # The programs the original prints (fixtures/recorded/programs/<ID>/): the same
        # text for the copy, under its own id, as its <ID>.json (rewritten) now names it.
        programs = dest / PROGRAMS / copy.source.id
        for src in sorted(programs.glob("*")) if programs.is_dir() else ():
            dst = dest / PROGRAMS / copy.id / src.name
            rel, new = src.relative_to(dest).as_posix(), dst.relative_to(dest).as_posix()
            if rel not in files:
                raise GrowError(f"{MANIFEST}: does not list {rel}; anchor the checkout's "
                                "transcriptions before growing it")
            _write_new(dst, src.read_text("utf-8"))
            added.append(("", _carried(files[rel], sha256(src), sha256(dst)), new))
        src_where = f"{RECORDED.as_posix()}/{copy.source.id}.json "
        for where, digest in figures.items():
            if where.startswith(src_where):
                places.append((where, digest, f"{RECORDED.as_posix()}/{copy.id}.json "
                               + where.removeprefix(src_where)))
    if places:
        # A figure line's digest is of the place and the value: the copy's place holds
        # the original's value, so it is listed with the digest the checkout's own code
        # gives it there, where the original's value still matches its line.
        now = _figure_digests(dest)
        for where, listed, new_where in places:
            if new_where not in now:
                raise GrowError(f"{new_where}: names no catalog figure in the grown "
                                f"checkout, while {where} does")
            added.append((FIGURE_LINE, _carried(listed, now.get(where, ""), now[new_where]),
                          new_where))
    manifest.write_text(_format(_sorted_manifest(lines + added)), "utf-8")
    _grow_reads(dest, copies)


def _grow_reads(dest: Path, copies: list[Copy]) -> None:
    """fixtures/recorded/READ.json: a copy's tests read what its original's read, at the
    copy's paths (its programs' transcriptions are files of its own)."""
    path = dest / READ
    if not path.is_file():
        return
    reads = _json(path)
    for copy in copies:
        if copy.source.id in reads:
            reads[copy.id] = sorted(copy.rewrite(p) for p in reads[copy.source.id])
    path.write_text(json.dumps(reads, indent=1, ensure_ascii=False) + "\n", "utf-8")


def _sorted_manifest(lines: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """File lines sorted by path, then figure lines sorted by place, as
    claims.inputs.manifest.write_manifest writes them; any other line first."""
    other = [t for t in lines if not t[1]]
    files = sorted((t for t in lines if t[1] and not t[0]), key=lambda t: t[2])
    figures = sorted((t for t in lines if t[0]), key=lambda t: t[2])
    return other + files + figures


# Run in the grown checkout, by its own interpreter and package: the digest of every
# catalog figure each transcribed fixture names, as claims.inputs.manifest computes it.
_FIGURE_DIGESTS = """
import json, sys
from pathlib import Path
import claims
from claims.catalog import load_catalog
from claims.inputs.manifest import figure_digests
root = Path.cwd().resolve()
if not Path(claims.__file__).resolve().is_relative_to(root):
    sys.exit(f"imported claims from {claims.__file__}, not from {root}")
json.dump({w: d for w, (d, _, _) in figure_digests(root, load_catalog()).items()}, sys.stdout)
"""


def _figure_digests(dest: Path) -> dict[str, str]:
    """``"<file> <path>"`` -> the digest of the figure named there, computed in ``dest``."""
    env = {k: v for k, v in os.environ.items() if k != "CLAIMS_FIXTURES"}
    proc = subprocess.run([sys.executable, "-c", _FIGURE_DIGESTS], cwd=dest,
                          capture_output=True, text=True, check=False,
                          env={**env, "PYTHONPATH": str(dest)})
    if proc.returncode != 0:
        raise GrowError(f"{dest}: the grown catalog's figures do not resolve: "
                        f"{proc.stderr.strip()[-2000:]}")
    digests: dict[str, str] = json.loads(proc.stdout)
    return digests


def _grow_lab(dest: Path, copies: list[Copy]) -> None:
    """Each copy's own lab folders, byte for byte, and their entries in the lab's
    manifest.json (field units), upstream.json (provenance) and BUNDLED.sha256."""
    lab = dest / LAB
    manifest_path, upstream_path = lab / "manifest.json", lab / "upstream.json"
    manifest, upstream = _json(manifest_path), _json(upstream_path)
    bundled = _manifest_lines(dest / BUNDLED)
    listed = {r: d for _, d, r in bundled if d}
    before = {p: sha256(p) for p in (manifest_path, upstream_path)}
    added: list[tuple[str, str, str]] = []
    for copy in copies:
        for entry in copy.source.shared_text:
            src, dst = lab / entry, lab / copy.file_name(entry)
            rel = f"{LAB.as_posix()}/{entry}"
            if rel not in listed:
                raise GrowError(f"{BUNDLED}: does not list {rel}; run "
                                "scripts/bundle-fixtures.py on the checkout first")
            shutil.copyfile(src, dst)
            added.append(("", listed[rel], f"{LAB.as_posix()}/{copy.file_name(entry)}"))
            for table in (manifest["files"], upstream["files"]):
                if entry in table:
                    table[copy.file_name(entry)] = table[entry]
        for entry in copy.source.own_lab:
            src, dst = lab / entry, lab / copy.lab_name(entry)
            if dst.exists():
                raise GrowError(f"{dst}: already exists; {copy.id}'s lab folder collides")
            shutil.copytree(src, dst, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
            for path in sorted(src.rglob("*")):
                if path.is_dir() or "__pycache__" in path.parts:
                    continue
                inside = path.relative_to(lab).as_posix()
                new_inside = copy.lab_name(entry) + inside.removeprefix(entry)
                rel = f"{LAB.as_posix()}/{inside}"
                if rel not in listed:
                    raise GrowError(f"{BUNDLED}: does not list {rel}; run "
                                    "scripts/bundle-fixtures.py on the checkout first")
                # The bytes are the original's, so is the digest they are checked with.
                added.append(("", listed[rel], f"{LAB.as_posix()}/{new_inside}"))
                for table in (manifest["files"], upstream["files"]):
                    if inside in table:
                        table[new_inside] = table[inside]
    # Written as the checkout writes them (claims.testing.lab reads manifest.json with
    # indent 2, upstream.json with 1); their own BUNDLED lines follow their new bytes
    # where the old bytes matched.
    manifest_path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", "utf-8")
    upstream_path.write_text(json.dumps(upstream, indent=1, ensure_ascii=False) + "\n", "utf-8")
    for i, (prefix, digest, rel) in enumerate(bundled):
        for path in (manifest_path, upstream_path):
            if rel == path.relative_to(dest).as_posix():
                bundled[i] = (prefix, _carried(digest, before[path], sha256(path)), rel)
    # The copies' lines after the last lab line, where bundle-fixtures.py would put them.
    at = max((i + 1 for i, (_, _, r) in enumerate(bundled) if r.startswith(f"{LAB}/")),
             default=len(bundled))
    bundled[at:at] = sorted(added, key=lambda t: t[2])
    (dest / BUNDLED).write_text(_format(bundled), "utf-8")


def _check_json_style(root: Path) -> None:
    """The lab's manifests are rewritten with json.dumps: fail unless that reproduces
    their bytes today, so a growth never changes more than the entries it adds."""
    for name, indent in (("manifest.json", 2), ("upstream.json", 1)):
        path = root / LAB / name
        text = path.read_text("utf-8")
        if json.dumps(json.loads(text), indent=indent, ensure_ascii=False) + "\n" != text:
            raise GrowError(f"{path}: not in the layout json.dumps(indent={indent}) writes; "
                            "teach scripts/grow-series.py its layout")


def grow_documents(seeds_dir: Path, out: Path, docs: list[Source], copies: list[Copy]) -> None:
    """The documents folder of the grown checkout: every seed the catalog names, and its
    copies (:func:`seed_copy`), byte for byte, for coverage and the anchors checks."""
    out.mkdir(parents=True, exist_ok=True)
    wanted = {seed: seed for d in docs for seed in d.seeds}
    wanted |= {seed_copy(seed, c.k): seed for c in copies for seed in c.source.seeds}
    for name, original in sorted(wanted.items()):
        if not (seeds_dir / original).is_file():
            raise GrowError(f"{seeds_dir / original}: no such seed in the documents folder")
        shutil.copyfile(seeds_dir / original, out / name)


def grow(root: Path, dest: Path, documents: int, seeds_dir: Path | None = None) -> list[str]:
    """Write the grown copy of ``root`` into ``dest`` with ``documents`` documents in all,
    and with ``seeds_dir`` (the documents folder) its grown documents folder into
    ``dest/documents``; returns the documents' ids (the originals and their copies)."""
    docs = sources(root)
    if documents < len(docs) or documents % len(docs):
        raise GrowError(f"{documents} documents: not a multiple of the {len(docs)} the "
                        f"catalog holds ({', '.join(d.id for d in docs)})")
    _check_json_style(root)
    existing = {d.id for d in docs}
    copies = [Copy(d, copy_id(d.id, k), k, tuple(docs)) for d in docs
              for k in range(2, documents // len(docs) + 1)]
    for copy in copies:
        if copy.id in existing or token(copy.source.id).search(copy.id[len(copy.source.id):]):
            raise GrowError(f"{copy.id}: collides with a document of the catalog")
    _copy_checkout(root, dest)
    for copy in copies:
        for suffix, anchors in ((".toml", False), (".anchors.toml", True)):
            src = dest / CATALOG / f"{copy.source.id}{suffix}"
            if src.is_file():
                _copy_text(src, dest / CATALOG / f"{copy.id}{suffix}", copy, _toml, anchors)
        _copy_tests(root, dest, copy)
    _grow_recorded(dest, copies)
    _grow_lab(dest, copies)
    if seeds_dir is not None:
        grow_documents(seeds_dir, dest / DOCUMENTS, docs, copies)
    return [d.id for d in docs] + [c.id for c in copies]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="the folder to write the grown checkout into")
    parser.add_argument("documents", type=int,
                        help="how many documents in all (a multiple of the catalog's)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout to grow (default: this script's)")
    parser.add_argument("--claims-documents", type=Path,
                        default=os.environ.get("CLAIMS_DOCUMENTS") or None,
                        help="the documents folder (seeds), grown into DEST/documents for "
                        "coverage (default: $CLAIMS_DOCUMENTS; without either, none)")
    args = parser.parse_args(argv)
    try:
        ids = grow(args.root.resolve(), args.dest.resolve(), args.documents,
                   args.claims_documents)
    except GrowError as exc:
        print(f"grow-series: {exc}", file=sys.stderr)
        return 1
    print(f"{args.dest}: {len(ids)} documents ({', '.join(ids)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
