"""Reading evidence files for ``claims compare``: one :class:`Run` per file, or why not.

Files are read through :class:`claims.evidence_fleet.FleetLoader` (as bounded
and strict as :func:`claims.evidence.load_evidence`, each distinct claim record
checked once); what the comparison needs is kept and the document dropped
(:func:`run_of`): the verdicts, the failure reasons, each claim's candidate
main figures, and the slim document the history's diff reads. What it keeps of a
claim (:class:`ClaimPart`) is made once per distinct claim record too, so the
work that grows with the files is a pass over each file's text and a few
lookups per claim. A file that cannot be read is a :class:`Skipped` with the reason.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from claims import records
from claims.evidence import MAX_EVIDENCE_BYTES, EvidenceError, read_regular
from claims.evidence_fleet import ClaimEntry, FleetLoader
from claims.report import machine
from claims.report.view import value_text
from claims.tiers import OLLAMA
from claims.verdicts import Verdict

# A folder of a lab's history can be large; more files than this is a wrong path.
MAX_FILES = 5000
_PLUS_MINUS = re.compile(r"^\s*±\s*([0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)", re.I)


def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def text_or(value: Any, default: str = "") -> str:
    return default if value is None else str(value)


def as_finite(value: Any) -> float | None:
    """A plain finite number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    x = float(value)
    return x if math.isfinite(x) else None


def as_interval(value: Any) -> tuple[float, float] | None:
    m = as_mapping(value)
    lo, hi = as_finite(m.get("lo")), as_finite(m.get("hi"))
    return (lo, hi) if lo is not None and hi is not None and lo <= hi else None


def as_number(value: Any) -> float | None:
    """One number for a measured value: a plain number, or a range's midpoint."""
    x = as_finite(value)
    if x is not None:
        return x
    iv = as_interval(value)
    return (iv[0] + iv[1]) / 2 if iv else None


def tolerance_width(m: Mapping[str, Any]) -> float | None:
    """The width of a stated figure's accepted range, in the measurement's unit."""
    iv = as_interval(m.get("expected_interval"))
    if iv is not None:
        return iv[1] - iv[0]
    found = _PLUS_MINUS.match(text_or(m.get("tolerance")))
    return 2 * float(found.group(1)) if found else None


# --- reading --------------------------------------------------------------------
@dataclass
class Skipped:
    """A file left out of the comparison, and why."""

    path: str
    reason: str


@dataclass
class Figure:
    """One run's value of a claim's main figure."""

    key: tuple[str, str]
    rank: int
    number: float | None
    display: str
    unit: str
    name: str
    holds: bool | None
    stated: float | None
    accepted: tuple[float, float] | None
    tolerance: float | None
    source: str


@dataclass
class Run:
    """What the comparison keeps of one evidence file."""

    path: str
    started: str
    started_at: datetime | None
    machine_key: tuple[str, ...]
    fields: dict[str, str]
    fingerprint: dict[str, str]
    simulated: bool
    complete: bool
    counts: dict[str, int]
    verdicts: dict[str, str]
    reasons: dict[str, str]
    figures: dict[str, list[Figure]]
    slim: records.Evidence | None  # what the history's diff reads; dropped once it is made
    column: int = 0
    machine: int = 0
    label: str = ""
    header: list[str] = field(default_factory=list)


def evidence_paths(args: Iterable[str | Path]) -> tuple[list[Path], list[Skipped]]:
    """Files named, and the ``*.json`` files under folders named (not following links)."""
    found: list[Path] = []
    skipped: list[Skipped] = []
    for arg in args:
        path = Path(arg)
        if path.is_dir() and not path.is_symlink():
            inside: list[Path] = []
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs.sort()
                inside.extend(Path(root) / f for f in sorted(files) if f.endswith(".json"))
                if len(found) + len(inside) > MAX_FILES:
                    break
            if not inside:
                skipped.append(Skipped(str(path), "a folder with no .json file in it"))
            found.extend(inside)
        else:
            found.append(path)
        if len(found) > MAX_FILES:
            raise ValueError(
                f"more than {MAX_FILES} files to compare under {path}: "
                "name the folders of the runs you mean"
            )
    return found, skipped


def _declared(path: Path) -> str:
    """The schema and suite version a refused file says it has, if it says (for the reason)."""
    try:
        if path.stat().st_size > MAX_EVIDENCE_BYTES:
            return ""
        # Only a regular file with contents (a FIFO or /proc/kmsg would block a reader).
        doc = json.loads(read_regular(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError, EvidenceError):
        return ""
    if not isinstance(doc, dict):
        return ""
    schema = doc.get("schema")
    version = as_mapping(as_mapping(doc.get("run")).get("suite")).get("version")
    parts = []
    if isinstance(schema, str) and schema != "claims-evidence/1":
        parts.append(f"written as schema {schema[:40]!r}")
    if isinstance(version, str) and parts:
        parts.append(f"by suite version {version[:40]}")
    if not parts:
        return ""
    return " (" + " ".join(parts) + "; this suite reads claims-evidence/1)"


def load_one(
    path: Path, loader: FleetLoader
) -> tuple[records.Evidence, list[ClaimEntry]] | Skipped:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return Skipped(str(path), "no such file")
    except OSError as exc:
        return Skipped(str(path), f"cannot read ({exc.strerror})")
    if not stat.S_ISREG(mode):
        # A FIFO or device would block or never end: only regular files are evidence.
        return Skipped(str(path), "not a regular file")
    try:
        return loader.load(path)
    except EvidenceError as exc:
        text = str(exc)
        prefix = f"{path}: "
        reason = text[len(prefix):] if text.startswith(prefix) else text
        return Skipped(str(path), reason + _declared(path))
    except (OSError, ValueError) as exc:
        return Skipped(str(path), f"cannot read ({type(exc).__name__}: {exc})")


def _started(run: records.Run) -> datetime | None:
    try:
        when = datetime.fromisoformat(run["started"])
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def _gpu_names(m: records.Machine) -> str:
    """The GPUs nvidia-smi listed, counted: "2 × NVIDIA H100 80GB HBM3"."""
    gpu = m.get("gpu")
    names = [machine.text(d.get("name")) for d in (gpu["devices"] if gpu else [])]
    if not names:
        return "no GPU"
    counted = {name: names.count(name) for name in names}
    return "; ".join(f"{n} × {name}" if n > 1 else name for name, n in counted.items())


def _runner(run: records.Run) -> str:
    """An Ollama runner build, where the evidence names one (a fact or the machine's record)."""
    server = run["machine"].get("ollama")
    if server and server.get("runner_build"):
        return machine.text(server.get("runner_build"))
    for key, value in run.get("facts", {}).items():
        if "runner" in key.lower() and isinstance(value, (str, int, float)):
            return machine.text(value)
    return ""


def _fields(run: records.Run, fingerprint: Mapping[str, str]) -> dict[str, str]:
    """The column label: what tells runs and machines apart, in reading order."""
    m = run["machine"]
    suite = run.get("suite")
    commit = text_or(suite["git_commit"] if suite else None)[:10]
    if commit and suite and suite["git_dirty"]:
        commit += " (dirty)"
    server = m.get("ollama")
    tier = run.get("tier_status", {}).get(OLLAMA.name)
    version = (server["version"] if server else None) or (tier.get("version") if tier else None)
    out = {
        "host": machine.text(m.get("hostname")) if m.get("hostname") else "unnamed host",
        "profile": run["profile"],
        "GPU": _gpu_names(m),
        "driver": fingerprint.get("NVIDIA driver", "—"),
        "torch": machine.text(m.get("torch")) if m.get("torch") else "not installed",
        "Ollama": machine.text(version) if version else "—",
        "runner": _runner(run),
        "suite": (
            f"{text_or(suite['version'], '?')} {commit}".strip()
            if suite
            else "not recorded (older suite)"
        ),
        "tiers": run["markexpr"] or "all tiers",
    }
    if not out["runner"]:
        del out["runner"]
    return out


# The label fields a column header shows, in order (the machine's title says host and GPU).
def _figure_candidates(claim: records.ClaimRecord) -> list[Figure]:
    """Measurements that could be a claim's main figure, each with its rank (lower first)."""
    out: list[Figure] = []
    for check in claim["checks"]:
        source = check["source"]
        for m in check["measurements"]:
            if m.get("non_finite"):
                continue
            compared = m.get("compared", True) and m.get("applicable") is not False
            number = as_number(m["measured"])
            stated_number = as_number(m.get("stated"))
            if number is not None and compared and source != "recorded":
                rank = 0
            elif number is not None and stated_number is not None and source != "recorded":
                rank = 1  # stated for another profile or model: still the claim's figure
            elif number is not None and compared:
                rank = 2  # the document's own printed figure
            elif compared:
                rank = 3
            else:
                continue
            out.append(
                Figure(
                    key=(check["nodeid"], m["name"]),
                    rank=rank,
                    number=number if rank < 3 else None,
                    display=value_text(m["measured"], m.get("measured_display"), m.get("unit")),
                    unit=text_or(m.get("unit")),
                    name=m["name"],
                    holds=m["holds"],
                    stated=stated_number,
                    accepted=as_interval(m.get("expected_interval")),
                    tolerance=tolerance_width(m),
                    source=source,
                )
            )
    return out


_KEEP_CLAIM = ("id", "document", "section", "statement", "tiers", "testable", "verdict",
               "reason")
_KEEP_CHECK = ("nodeid", "outcome", "verdict", "source")
_KEEP_MEASUREMENT = ("name", "measured", "measured_display", "unit", "holds", "compared",
                     "applicable")
_KEEP_RUN = ("started", "finished", "complete", "markexpr", "profile", "machine",
             "tier_status", "facts", "options")


def _slim_claim(claim: records.ClaimRecord) -> dict[str, object]:
    """A claim as the history's diff reads it: no attachments, charts or context values."""
    checks = []
    for check in claim["checks"]:
        slim_check: dict[str, object] = {k: v for k, v in check.items() if k in _KEEP_CHECK}
        slim_check["measurements"] = [
            {k: v for k, v in m.items() if k in _KEEP_MEASUREMENT}
            for m in check["measurements"]
            if m.get("compared", True) and m.get("applicable") is not False
        ]
        checks.append(slim_check)
    slim_claim: dict[str, object] = {k: v for k, v in claim.items() if k in _KEEP_CLAIM}
    slim_claim["checks"] = checks
    return slim_claim


@dataclass(frozen=True)
class ClaimPart:
    """What the comparison keeps of one claim record (made once per distinct record)."""

    id: str
    verdict: str
    reason: str | None
    figures: list[Figure]
    slim: dict[str, object]
    document: str
    statement: str


def claim_part(claim: records.ClaimRecord) -> ClaimPart:
    verdict = str(claim["verdict"])
    # A cell's tooltip says why a claim failed; why it was not run is in each run's
    # own report (kept out: 200 runs x 176 claims of "not selected" would be megabytes).
    reason = claim.get("reason")
    kept = (reason[:200] if reason and verdict in (Verdict.REFUTED, Verdict.ERROR,
                                                   Verdict.KNOWN_ERRATUM) else None)
    return ClaimPart(claim["id"], verdict, kept, _figure_candidates(claim), _slim_claim(claim),
                     claim["document"], claim["statement"])


def claim_parts(entries: Iterable[ClaimEntry]) -> list[ClaimPart]:
    """Each claim's part, made once per distinct claim record (kept in its entry)."""
    out = []
    for entry in entries:
        part = entry.memo.get("compare")
        if part is None:
            part = entry.memo["compare"] = claim_part(entry.claim)
        out.append(part)
    return out


def _slim(doc: records.Evidence, parts: Iterable[ClaimPart]) -> records.Evidence:
    """What :func:`claims.report.diff.diff_evidence` reads: the evidence without attachments,
    charts and the measurements that are no claim's figure (still valid evidence). Equal
    claim records give the same slim claim object, which the diff passes over at once."""
    slim = {
        "schema": doc["schema"],
        "run": {k: v for k, v in doc["run"].items() if k in _KEEP_RUN},
        "claims": [p.slim for p in parts],
        "summary": doc["summary"],
    }
    return cast(records.Evidence, slim)  # the subset of each record that diff_evidence reads


def run_of(doc: records.Evidence, path: Path, parts: list[ClaimPart]) -> Run:
    """What the comparison keeps of one run (``parts``: its claims', :func:`claim_parts`)."""
    run = doc["run"]
    fingerprint = machine.fingerprint(run)
    fields = _fields(run, fingerprint)
    verdicts: dict[str, str] = {}
    reasons: dict[str, str] = {}
    figures: dict[str, list[Figure]] = {}
    for part in parts:
        cid = part.id
        verdicts[cid] = part.verdict
        if part.reason:
            reasons[cid] = part.reason
        if part.figures:
            figures[cid] = part.figures
    counts: dict[str, int] = {}
    for v in verdicts.values():
        counts[v] = counts.get(v, 0) + 1
    return Run(
        path=str(path),
        started=run["started"],
        started_at=_started(run),
        machine_key=(fields["host"], machine.text(run["machine"]["cpu"]), fields["GPU"]),
        fields=fields,
        fingerprint=fingerprint,
        simulated=bool(run.get("simulated")),
        complete=run["complete"],
        counts=counts,
        verdicts=verdicts,
        reasons=reasons,
        figures=figures,
        slim=_slim(doc, parts),
    )

