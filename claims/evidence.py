"""Evidence: what one run measured, per claim, as ``evidence.json``.

The file follows the contract in ``claims/schema/evidence.schema.json``, generated
from the records of :mod:`claims.records` (:mod:`claims.contract`). It lists every
catalog claim, checked or not, so coverage is visible; each claim carries its
verdict, the reason, and the checks behind it with their measurements and evidence
source. Its records are typed in :mod:`claims.records`; :func:`load_evidence`
returns an ``Evidence`` only once the file passed the schema, so what it returns is
what the types say.

Writes are atomic (temporary file in the same folder, then ``os.replace``), and
the plugin rewrites the file as tests finish, so an interrupted run still leaves
valid evidence of what finished, marked ``complete: false``.

Text enters the evidence from servers and files, so every record is cleaned as
it is added (:func:`clean`): an unpaired surrogate (a server can send
``"\\ud83d"``) becomes U+FFFD instead of crashing the write and losing the run,
nesting is cut at :data:`MAX_DEPTH`, and a non-finite measurement makes its
check an error of the probe (nothing was decided) instead of a ``NaN`` token,
which is not JSON. The file is written as strict JSON (``allow_nan=False``).
Loading bounds the file's size and nesting depth before anything walks it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, cast

from claims.catalog import Catalog, load_catalog
from claims.catalog.loader import ID_PATTERN
from claims.records import SCHEMA_ID, CheckRecord, ClaimRecord, Evidence, OllamaServer, Run, Suite
from claims.terminal import SURROGATE, encodable, safe, safe_json
from claims.verdicts import Verdict, claim_verdict, summarize

__all__ = [
    "MAX_DEPTH",
    "SCHEMA_ID",
    "SURROGATE",
    "EvidenceError",
    "EvidenceLog",
    "NonFiniteMeasurement",
    "bound_attachments",
    "clean",
    "depth_exceeds",
    "dumps",
    "load_evidence",
    "load_evidence_text",
    "now_iso",
    "provenance",
    "read_regular",
    "read_text",
    "schema",
    "validate",
    "validator",
    "write_atomic",
]


class EvidenceError(ValueError):
    """An evidence file is unreadable or does not follow the schema."""


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("claims.schema").joinpath("evidence.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@lru_cache(maxsize=16)
def validator(*where: str) -> Any:
    """The schema's validator (built once): of a whole document, or of the part of the
    schema at the path ``where`` (``"$defs", "ClaimRecord"``: one claim, as the
    document's ``claims`` items are; ``"properties", "run"``: the run record), with the
    schema's ``$defs`` beside it for the part's references."""
    import jsonschema

    whole = schema()
    if not where:
        return jsonschema.Draft202012Validator(whole)
    part: Any = whole
    for key in where:
        part = part[key]
    around = {key: whole[key] for key in ("$schema", "$id", "$defs")}
    return jsonschema.Draft202012Validator({**around, **part})


def validate(doc: Mapping[str, Any]) -> list[str]:
    """Schema violations of an evidence document, as readable lines (empty if valid)."""
    errors = []
    for err in sorted(validator().iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        errors.append(f"{where}: {err.message}")
    return errors


# A whole run's evidence is about a megabyte (attachments are capped per check at
# 8,000 characters); the cap stops a wrong path (/dev/zero, a model blob) or a
# hand-made file with a 60 MB attachment from becoming a page of hundreds of MB.
MAX_EVIDENCE_BYTES = 16 * 1024 * 1024
# Evidence nests about ten levels (run, claims, checks, measurements, a stated
# range); facts and attachments from a server can nest more. Anything deeper
# than this is cut when written and refused when loaded, before a recursive
# walk (schema validation, the report) could run out of stack.
MAX_DEPTH = 48
# An attachment longer than this when loaded was not written by the plugin
# (which caps them at 8,000 characters); it is cut, and the cut is said.
MAX_LOADED_ATTACHMENT_CHARS = 64 * 1024
# The bundled catalog has about 150 claims; a file with many more was not written by the
# suite (60,000 invented claims would otherwise each be validated and drawn).
MAX_CLAIMS = 5000

# jsonable() in claims.check writes a non-finite float as its str(): these.
_NON_FINITE_TEXT = frozenset({"nan", "inf", "-inf"})


def clean(value: Any, depth: int = 0) -> Any:
    """A JSON-ready copy of ``value``: lone surrogates replaced, floats finite, depth bounded.

    A string that a server sent with an unpaired surrogate cannot be encoded as
    UTF-8; its surrogates become U+FFFD. A non-finite float becomes its name as
    text ("nan", "inf"), which is JSON; measurements are checked for those
    separately (:meth:`EvidenceLog.add`). Containers deeper than ``MAX_DEPTH``
    become a string saying so.
    """
    if isinstance(value, str):
        return encodable(value)
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (list, tuple, dict)) and depth >= MAX_DEPTH:
        return f"(cut: nested more than {MAX_DEPTH} levels deep)"
    if isinstance(value, (list, tuple)):
        return [clean(v, depth + 1) for v in value]
    if isinstance(value, Mapping):
        return {clean(str(k)): clean(v, depth + 1) for k, v in value.items()}
    return clean(str(value))


def dumps(doc: Any) -> str:
    """Strict JSON text (no NaN or Infinity tokens) of a cleaned document."""
    # C1 controls, bidi overrides and other invisible characters from a server's text
    # are written as \\uXXXX escapes (the same data): the file is the archive others
    # read, in editors and terminals too.
    return _dumps_cleaned(clean(doc))


def _dumps_cleaned(doc: Any) -> str:
    """:func:`dumps` of a document already through :func:`clean` (the writer cleans each
    document once: cleaning it again cost a tenth of every evidence write)."""
    text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)
    return safe_json(text) + "\n"


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, str):
        return value.strip().lower() in _NON_FINITE_TEXT
    if isinstance(value, (list, tuple)):
        return any(_non_finite(v) for v in value)
    if isinstance(value, Mapping):
        return any(_non_finite(v) for v in value.values())
    return False


class NonFiniteMeasurement(Exception):
    """A probe produced NaN or an infinity: the test errs, nothing was decided."""


def non_finite_names(measurements: Iterable[Mapping[str, Any]]) -> list[str]:
    """Names of the measurements whose value (or computed range) is not finite."""
    return [
        str(m.get("name"))
        for m in measurements
        if isinstance(m, Mapping)
        and any(_non_finite(m.get(key)) for key in ("measured", "expected_interval"))
    ]


def non_finite_problem(names: Iterable[str]) -> str:
    return f"probe error: non-finite measurement of {', '.join(names)}; nothing was decided"


def _reject_non_finite(rec: CheckRecord) -> None:
    """A measurement that is NaN or infinite is a failure of the probe, not a figure.

    The check becomes an error (nothing was decided) and says which measurement;
    the value stays visible as text, never as a NaN token in the JSON.
    """
    measurements = rec["measurements"]
    bad = non_finite_names(measurements)
    if not bad:
        return
    for m in measurements:
        if m["name"] in bad:
            m["holds"] = False
            m["compared"] = False
            m["non_finite"] = True
            m["note"] = "non-finite value: the probe failed, nothing was compared"
    problem = non_finite_problem(bad)
    earlier = rec.get("message")
    rec["outcome"] = "error"
    rec["failure"] = "error"
    # The plugin already failed the test with this message (NonFiniteMeasurement).
    rec["message"] = (earlier if earlier and problem in earlier else
                      f"{problem} ({earlier})" if earlier else problem)
    if "verdict" in rec:  # a record that carries its own verdict says the same
        rec["verdict"] = Verdict.ERROR


def depth_exceeds(doc: Any, limit: int) -> bool:
    """Whether ``doc`` nests deeper than ``limit`` (iterative: no recursion on hostile input)."""
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Iterable[Any] = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((c, depth + 1) for c in children)
    return False


def bound_attachments(doc: Evidence) -> None:
    """Cut, in place, each attachment longer than MAX_LOADED_ATTACHMENT_CHARS, saying so."""
    for claim in doc["claims"]:
        for check in claim["checks"]:
            for att in check.get("attachments", []):
                content = att["content"]
                if len(content) > MAX_LOADED_ATTACHMENT_CHARS:
                    att["content"] = (
                        content[:MAX_LOADED_ATTACHMENT_CHARS]
                        + f"\n… [cut when loaded: {len(content):,} characters, more than "
                        f"the {MAX_LOADED_ATTACHMENT_CHARS:,} a report shows]"
                    )
                    att["truncated"] = True


def _reject_constant(name: str) -> Any:
    # json.loads calls this for the NaN, Infinity and -Infinity tokens, which are
    # not JSON: the suite never writes them (allow_nan=False), so a file holding
    # one anywhere was edited or made by something else, and a NaN figure would
    # otherwise read as a stale "consistent".
    raise _NonFiniteToken(name)


class _NonFiniteToken(ValueError):
    pass


class _DuplicateKey(ValueError):
    pass


class _InfiniteNumber(ValueError):
    pass


def _finite_float(text: str) -> float:
    # "1e999" is a valid JSON number that Python reads as infinity: a measured value the
    # suite could never have written (allow_nan=False), so the file was edited.
    value = float(text)
    if not math.isfinite(value):
        raise _InfiniteNumber(text[:40])
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Python keeps the last of two equal keys: a second "claims": [] would empty the
    # page while its header still counted the first list's verdicts.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def read_regular(path: Path) -> bytes:
    """At most MAX_EVIDENCE_BYTES + 1 bytes of a regular file (a FIFO or device is refused
    before a read could block: the file is opened non-blocking and checked first)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise EvidenceError(f"{path}: no such file") from None
    except OSError as exc:
        raise EvidenceError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise EvidenceError(f"{path}: not a regular file (a FIFO, device or folder)")
        if st.st_size == 0:
            # An empty file, or a kernel's pseudo-file (/proc/kmsg reads as a regular file
            # of size 0 and blocks a reader): neither is evidence, and neither is read.
            raise EvidenceError(f"{path}: empty (or a /proc or /sys pseudo-file)")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(min(st.st_size, MAX_EVIDENCE_BYTES) + 1)
    except OSError as exc:
        raise EvidenceError(f"{path}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)


def verdict_problems(doc: Evidence) -> list[str]:
    """Claims whose verdict is not the one their checks' verdicts give (claims.verdicts).

    The suite computes each claim's verdict from its checks when it writes the
    file, so a difference means the file was edited: a claim "reproduced" over
    checks that were refuted would render "The run passed".
    """
    certification = doc["run"]["options"].get("require_live") is True
    problems = []
    for claim in doc["claims"]:
        checks = claim["checks"]
        # Every claim, checked or not: "reproduced" on an untestable claim with no
        # checks is as much a lie as one over refuted checks.
        expected, _ = claim_verdict(claim["testable"], claim.get("untestable_reason"), checks,
                                    certification=certification)
        if claim["verdict"] != expected:
            given = sorted({str(c["verdict"]) for c in checks})
            basis = (f"its checks' verdicts ({', '.join(given)}) give" if checks else
                     "it has no checks and is " + ("testable" if claim["testable"] else
                                                   "untestable in the catalog") + ", which gives")
            problems.append(
                f"claim {claim['id']!r} has verdict {claim['verdict']!r}, but {basis} "
                f"'{expected}'"
            )
    return problems


def id_problems(doc: Evidence) -> list[str]:
    """Claim ids the schema's pattern lets through: its "$" matches before a final newline
    in Python's re, so a file could carry "W1-X\\n", which no catalog claim is."""

    problems = [
        f"claims[{i}].id {claim['id']!r} is not a claim id"
        for i, claim in enumerate(doc["claims"])
        if not ID_PATTERN.fullmatch(claim["id"])
    ]
    # "documents" is optional in the schema: a file without it lists no document.
    documents = {d["id"] for d in doc.get("documents", [])}
    seen: set[str] = set()
    for claim in doc["claims"]:
        cid = claim["id"]
        if cid in seen:
            problems.append(f"claim {cid!r} is listed twice")
        seen.add(cid)
        if claim["document"] not in documents:
            problems.append(f"claim {cid!r} belongs to document {claim['document']!r}, "
                            "which the file does not list")
        if len(problems) >= 10:
            break
    return problems + _catalog_problems(doc)


@lru_cache(maxsize=1)
def _bundled() -> tuple[str, dict[str, bool]]:
    """The bundled catalog's hash and its claims (id -> testable)."""
    catalog = load_catalog()
    return catalog_sha256(catalog), {c.id: c.testable for c in catalog}


def _catalog_problems(doc: Evidence) -> list[str]:
    """A file judged by the bundled catalog (its hash says so) lists exactly its claims,
    as testable as the catalog says; a file of another catalog is held to itself."""
    digest, known = _bundled()
    if doc["run"].get("suite", {}).get("catalog_sha256") != digest:
        return []
    listed = {c["id"]: c["testable"] for c in doc["claims"]}
    unknown = sorted(set(listed) - set(known))
    if unknown:
        more = f" (+{len(unknown) - 1} more)" if len(unknown) > 1 else ""
        return [f"claim {unknown[0]!r} is not in the catalog this run was judged by{more}"]
    flipped = sorted(cid for cid, testable in listed.items() if known[cid] != testable)
    if flipped:
        return [f"claim {flipped[0]!r} is {'' if listed[flipped[0]] else 'un'}testable in the "
                "file, not in the catalog this run was judged by"]
    return []


def load_evidence(path: Path | str) -> Evidence:
    """Read and validate an evidence file; EvidenceError names the file and problem.

    Only a regular file is read (a FIFO would block forever), at most
    MAX_EVIDENCE_BYTES of it; NaN and Infinity tokens anywhere, an integer past
    Python's digit limit, a shape the schema refuses and a claim verdict its
    checks contradict are each an error naming the file.
    """
    path = Path(path)
    return load_evidence_text(path, read_text(path))


def read_text(path: Path) -> str:
    """An evidence file's text: a regular file, at most MAX_EVIDENCE_BYTES, UTF-8."""
    raw = read_regular(path)
    if len(raw) > MAX_EVIDENCE_BYTES:
        raise EvidenceError(
            f"{path}: larger than {MAX_EVIDENCE_BYTES // (1024 * 1024)} MiB; a run's evidence "
            "is about 1 MiB, so this is not an evidence file the suite wrote"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EvidenceError(f"{path}: not UTF-8 text") from None


# The strict reading of JSON text: NaN and Infinity tokens, numbers too large to be
# finite and a key twice in one object each raise (see the hooks above).
STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float,
                               object_pairs_hook=_unique_keys)


def load_evidence_text(path: Path, text: str) -> Evidence:
    """:func:`load_evidence` of text already read from ``path`` (named in the errors)."""
    try:
        doc = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                         object_pairs_hook=_unique_keys)
    except _NonFiniteToken as exc:
        raise EvidenceError(
            f"{path}: not evidence ({exc} is not a JSON number; the suite never writes one)"
        ) from None
    except _InfiniteNumber as exc:
        raise EvidenceError(
            f"{path}: not evidence (the number {safe(str(exc))} is too large to be finite; "
            "the suite writes finite numbers only)"
        ) from None
    except _DuplicateKey as exc:
        raise EvidenceError(
            f"{path}: not evidence (the key {safe(str(exc))!r} appears twice in one object; "
            "the suite never writes that, and a reader would silently keep one of them)"
        ) from None
    except json.JSONDecodeError as exc:
        raise EvidenceError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise EvidenceError(
            f"{path}: not evidence (JSON nested more than {MAX_DEPTH} levels deep)"
        ) from None
    except ValueError as exc:  # an integer past Python's digit limit, among others
        raise EvidenceError(f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise EvidenceError(f"{path}: top level is not an object")
    if depth_exceeds(doc, MAX_DEPTH):
        raise EvidenceError(
            f"{path}: not evidence (JSON nested more than {MAX_DEPTH} levels deep; "
            "the suite writes about ten)"
        )
    claims = doc.get("claims")
    if isinstance(claims, list) and len(claims) > MAX_CLAIMS:
        # Before the schema walks them all: a catalog has some hundred and fifty claims.
        raise EvidenceError(
            f"{path}: not evidence ({len(claims):,} claims; a catalog has a few hundred "
            f"at most, and this loader reads no more than {MAX_CLAIMS:,})"
        )
    # JSON escapes can spell unpaired surrogates ("\ud83d"): they would fail the
    # page's UTF-8 encoding later, far from the file's name.
    cleaned: dict[str, Any] = clean(doc)
    problems = validate(cleaned)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise EvidenceError(f"{path}: not claims evidence: {problems[0]}{more}")
    # From here on the file is what the schema, and so claims.records, says it is.
    evidence = cast(Evidence, cleaned)
    problems = id_problems(evidence)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise EvidenceError(f"{path}: not claims evidence: {problems[0]}{more}")
    problems = verdict_problems(evidence)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise EvidenceError(f"{path}: inconsistent evidence: {problems[0]}{more}")
    # The summary is derived from the claims: recounted, never taken on the file's word.
    evidence["summary"] = summarize(evidence["claims"])
    bound_attachments(evidence)
    return evidence


def write_atomic(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (a string, or its pieces in order, as a large export is streamed) so
    that readers see either the old or the new file, never half. Written as given, with no
    newline translation (a CSV's own line ends stay)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    # mkstemp makes the file private (0600); a report is meant to be read, so
    # give it the permissions an ordinary write would have under this umask.
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            for part in (text,) if isinstance(text, str) else text:
                fh.write(part)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def catalog_sha256(catalog: Catalog) -> str:
    """SHA-256 of the catalog as loaded (its documents and claims as canonical JSON).

    Hashing what was loaded rather than the files covers ``--claims-catalog`` files
    too, and two runs with equal hashes judged the same claims by the same figures.
    """
    content = {
        "documents": [d.to_json() for d in catalog.documents],
        "claims": [c.to_json() for d in catalog.documents for c in d.claims],
    }
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=1)
def _git_state() -> tuple[str | None, bool | None]:
    """The suite checkout's commit and whether tracked files differ from it (None: no git)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None, None
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None, None
    return (head or None), bool(dirty)


def provenance(catalog: Catalog) -> Suite:
    """What judged this run: the suite's version, its git commit and the catalog's hash."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        suite_version: str | None = version("claims-suite")
    except PackageNotFoundError:
        suite_version = None
    commit, dirty = _git_state()
    return {
        "version": suite_version,
        "git_commit": commit,
        "git_dirty": dirty,
        "catalog_sha256": catalog_sha256(catalog),
    }


class EvidenceLog:
    """Collects check records during a run and renders the evidence document."""

    def __init__(self, catalog: Catalog, run: Run) -> None:
        self.catalog = catalog
        # The run record while the session amends it (the --ollama-serve plugin adds its
        # options, the writer pytest's outcome and any interrupt); document() sets when it
        # finished, whether it is complete, and the facts its checks recorded.
        self.run: Run = run.copy()
        self.run.setdefault("suite", provenance(catalog))
        self.checks: dict[str, list[CheckRecord]] = {c.id: [] for c in catalog}
        self.unknown: list[CheckRecord] = []
        self.facts: dict[str, Any] = {}
        # Every /api/version the ollama tier's checks recorded, in the order first seen:
        # more than one means the server changed during the run.
        self.ollama_versions: list[str] = []
        # What `claims audit` found, when an audit result lies beside the evidence.
        self.audit: dict[str, Any] | None = None

    def add(self, claim_ids: Iterable[str], record: CheckRecord) -> None:
        """Log a check record (as the plugin built it) under each of its claims."""
        # Where a server's or file's text enters the evidence: clean it once, here.
        cleaned: CheckRecord = clean(record)
        _reject_non_finite(cleaned)
        for cid in claim_ids:
            rec = cleaned.copy()
            # A check may serve several claims; keep only the measurements that belong here.
            rec["measurements"] = [
                m for m in cleaned["measurements"] if m.get("claim") in (None, cid)
            ]
            if cid in self.checks:
                self.checks[cid].append(rec)
            else:
                self.unknown.append({"claim": cid, **rec})
        facts = cleaned.get("facts") or {}
        for key in ("ollama_version_at_start", "ollama_version"):
            seen = facts.get(key)
            if isinstance(seen, str) and seen not in self.ollama_versions:
                self.ollama_versions.append(seen)
        self.facts.update(facts)

    def document(self, *, complete: bool, finished: str | None = None) -> Evidence:
        claims: list[ClaimRecord] = []
        certification = self.run["options"].get("require_live") is True
        for doc in self.catalog.documents:
            for claim in doc.claims:
                checks = self.checks[claim.id]
                verdict, reason = claim_verdict(
                    claim.testable, claim.untestable_reason, checks, certification=certification
                )
                # The catalog's record of the claim (its figures and erratum), then this run's.
                # A cast: Claim.to_json() is untyped (the catalog hash reads it too);
                # tests/test_records.py holds what it gives to the schema's claim record.
                entry = cast(ClaimRecord, {
                    **claim.to_json(),
                    "document_title": doc.title,
                    "verdict": Verdict(verdict),
                    "reason": reason,
                    "checks": checks,
                })
                if claim.erratum and verdict == Verdict.KNOWN_ERRATUM:
                    entry["reason"] = claim.erratum.explanation
                claims.append(entry)
        run = self.run.copy()
        run["finished"] = finished or now_iso()
        run["complete"] = complete
        run["facts"] = dict(self.facts)
        if "ollama_version" in self.facts or "ollama_runner_build" in self.facts:
            # The ollama tier records the server it measured (check.fact); the
            # machine fingerprint shows it beside OS, GPU and driver.
            server: OllamaServer = {
                "version": self.facts.get("ollama_version"),
                "host": self.facts.get("ollama_host"),
            }
            if self.facts.get("ollama_remote"):
                # Another machine's server: its figures are that machine's, not this one's.
                server["remote"] = True
            # The runner's llama.cpp build (a RunnerBuild record), or why it is not
            # known; absent when no check looked (plugin/serve.py).
            server["runner_build"] = self.facts.get("ollama_runner_build")
            if len(self.ollama_versions) > 1:
                # The server changed under the run: its checks measured different releases.
                server["versions"] = list(self.ollama_versions)
            run["machine"] = {**run["machine"], "ollama": server}
        out: Evidence = {
            "schema": SCHEMA_ID,
            "run": run,
            "documents": [d.to_json() for d in self.catalog.documents],
            "claims": claims,
            "summary": summarize(claims),
        }
        if self.unknown:
            out["unknown_claim_checks"] = self.unknown
        if self.audit is not None:
            out["audit"] = self.audit
        return out

    def write(self, path: Path, *, complete: bool) -> Evidence:
        doc: Evidence = clean(self.document(complete=complete))
        write_atomic(path, _dumps_cleaned(doc))
        return doc
