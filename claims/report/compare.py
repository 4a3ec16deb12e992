"""Many runs on one page: ``python -m claims compare EVIDENCE...`` for a lab's fleet.

:func:`compare_files` reads evidence files (or folders of them), one run each,
and returns a :class:`Comparison`: the runs as columns grouped by machine in
time order, the claims as rows, and each machine's history in the words of
:mod:`claims.report.diff`. :func:`render_compare_html` lays it out as the same
self-contained, CSP-strict, escaped page as the report; :func:`write_tidy`
writes the long table (one row per run x claim x measurement) as CSV or JSON.

Definitions the page states too:

* **machine**: runs with the same host name, CPU model and GPU list are one
  machine; a driver, torch or Ollama upgrade on it is history, not another
  machine (its fingerprint fields are compared run to run);
* a machine's **word** on a claim is the verdict of its latest run that decided
  the claim (reproduced, consistent, refuted, known erratum, error), else its
  latest verdict; verdicts **disagree** when machines' words fall in different
  classes: holds (reproduced, consistent), does not hold (refuted, known
  erratum) or error. A claim checked on one machine and not run on another is
  coverage, not disagreement;
* a claim's **main figure** is its first numeric measurement compared with a
  statement, measured here (bundled files or live); else one stated for another
  profile; else the document's own printed figure (``recorded``); else the first
  compared value of any kind, shown but not plotted;
* a figure **spreads beyond its tolerance** when the machines' latest values
  lie further apart than the accepted range of the stated figure
  (``expected_interval``, or twice the ``±x`` of the tolerance text).

Files are read through :func:`claims.evidence.load_evidence` (bounded,
schema-checked), by two worker processes when there are many; what the page
needs is kept and each document dropped (200 files of a full run, 83 MiB,
peaked at 176 MiB). A file that cannot be read is named on the page with the
reason and left out. In the CSV export a text cell that a spreadsheet would
evaluate as a formula (``=``, ``+``, ``-``, ``@`` and not a number) starts with
an apostrophe.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import re
import stat
import statistics
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from markupsafe import Markup, escape

from claims import records
from claims.report import machine
from claims.report.diff import BAD, CONFIRMED, diff_evidence
from claims.report.plots import MEASURED, REFERENCE
from claims.report.view import ORDER, SOURCES, value_text
from claims.tiers import OLLAMA
from claims.verdicts import DESCRIPTIONS, VERDICTS, Verdict

__all__ = [
    "TIDY_COLUMNS",
    "Comparison",
    "compare_files",
    "evidence_paths",
    "format_compare_text",
    "render_compare_html",
    "write_tidy",
]

# A folder of a lab's history can be large; more files than this is a wrong path.
MAX_FILES = 5000
# Processes that read files at once (the benchmark machine has two cores), and the
# fewest files per process worth starting one for.
WORKERS = 2
MIN_FILES_PER_WORKER = 8
# Runs shown side by side at once; more are paged (the page's script switches pages).
PAGE_RUNS = 12

DECIDED = frozenset({Verdict.REPRODUCED, Verdict.CONSISTENT, Verdict.REFUTED,
                     Verdict.KNOWN_ERRATUM, Verdict.ERROR})
_CLASS: dict[str, str] = {
    Verdict.REPRODUCED: "holds",
    Verdict.CONSISTENT: "holds",
    Verdict.REFUTED: "does not hold",
    Verdict.KNOWN_ERRATUM: "does not hold",
    Verdict.ERROR: "error",
}
_PLUS_MINUS = re.compile(r"^\s*±\s*([0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)", re.I)

TIDY_COLUMNS: tuple[str, ...] = (
    "run",
    "file",
    "machine",
    "host",
    "profile",
    "started",
    "simulated",
    "suite_commit",
    "claim",
    "document",
    "verdict",
    "test",
    "source",
    "measurement",
    "measured",
    "measured_number",
    "measured_display",
    "unit",
    "stated",
    "stated_number",
    "accepted_lo",
    "accepted_hi",
    "tolerance",
    "compared",
    "holds",
)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _str(value: Any, default: str = "") -> str:
    return default if value is None else str(value)


def _finite(value: Any) -> float | None:
    """A plain finite number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    x = float(value)
    return x if math.isfinite(x) else None


def _interval(value: Any) -> tuple[float, float] | None:
    m = _mapping(value)
    lo, hi = _finite(m.get("lo")), _finite(m.get("hi"))
    return (lo, hi) if lo is not None and hi is not None and lo <= hi else None


def _number(value: Any) -> float | None:
    """One number for a measured value: a plain number, or a range's midpoint."""
    x = _finite(value)
    if x is not None:
        return x
    iv = _interval(value)
    return (iv[0] + iv[1]) / 2 if iv else None


def tolerance_width(m: Mapping[str, Any]) -> float | None:
    """The width of a stated figure's accepted range, in the measurement's unit."""
    iv = _interval(m.get("expected_interval"))
    if iv is not None:
        return iv[1] - iv[0]
    found = _PLUS_MINUS.match(_str(m.get("tolerance")))
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
    from claims.evidence import MAX_EVIDENCE_BYTES, EvidenceError, read_regular

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
    version = _mapping(_mapping(doc.get("run")).get("suite")).get("version")
    parts = []
    if isinstance(schema, str) and schema != "claims-evidence/1":
        parts.append(f"written as schema {schema[:40]!r}")
    if isinstance(version, str) and parts:
        parts.append(f"by suite version {version[:40]}")
    if not parts:
        return ""
    return " (" + " ".join(parts) + "; this suite reads claims-evidence/1)"


def _load(path: Path) -> records.Evidence | Skipped:
    from claims.evidence import EvidenceError, load_evidence

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
        return load_evidence(path)
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
    commit = _str(suite["git_commit"] if suite else None)[:10]
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
            f"{_str(suite['version'], '?')} {commit}".strip()
            if suite
            else "not recorded (older suite)"
        ),
        "tiers": run["markexpr"] or "all tiers",
    }
    if not out["runner"]:
        del out["runner"]
    return out


# The label fields a column header shows, in order (the machine's title says host and GPU).
_HEADER_FIELDS = ("host", "GPU", "driver", "torch", "Ollama", "runner", "profile", "suite")


def _header(run: Run, before: Run | None) -> list[str]:
    """A column's label lines: the machine in full on its first run, then what changed."""
    if before is None:
        return [
            run.fields[k] if k in ("host", "GPU") else f"{k} {run.fields[k]}"
            for k in _HEADER_FIELDS
            if run.fields.get(k) and run.fields[k] != "—"
        ]
    changed = [
        f"{k} {run.fields.get(k) or '—'}"
        for k in _HEADER_FIELDS
        if run.fields.get(k) != before.fields.get(k)
    ]
    return changed or [f"same as {before.label}"]


def _figure_candidates(claim: records.ClaimRecord) -> list[Figure]:
    """Measurements that could be a claim's main figure, each with its rank (lower first)."""
    out: list[Figure] = []
    for check in claim["checks"]:
        source = check["source"]
        for m in check["measurements"]:
            if m.get("non_finite"):
                continue
            compared = m.get("compared", True) and m.get("applicable") is not False
            number = _number(m["measured"])
            stated_number = _number(m.get("stated"))
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
                    unit=_str(m.get("unit")),
                    name=m["name"],
                    holds=m["holds"],
                    stated=stated_number,
                    accepted=_interval(m.get("expected_interval")),
                    tolerance=tolerance_width(m),
                    source=source,
                )
            )
    return out


def _slim(doc: records.Evidence) -> records.Evidence:
    """What :func:`claims.report.diff.diff_evidence` reads: the evidence without attachments,
    charts and the measurements that are no claim's figure (still valid evidence)."""
    run = doc["run"]
    keep_run = ("started", "finished", "complete", "markexpr", "profile", "machine",
                "tier_status", "facts", "options")
    keep_claim = ("id", "document", "section", "statement", "tiers", "testable", "verdict",
                  "reason")
    keep_check = ("nodeid", "outcome", "verdict", "source")
    keep_measurement = ("name", "measured", "measured_display", "unit", "holds", "compared",
                        "applicable")
    claims = []
    for claim in doc["claims"]:
        checks = []
        for check in claim["checks"]:
            slim_check: dict[str, object] = {k: v for k, v in check.items() if k in keep_check}
            slim_check["measurements"] = [
                {k: v for k, v in m.items() if k in keep_measurement}
                for m in check["measurements"]
                if m.get("compared", True) and m.get("applicable") is not False
            ]
            checks.append(slim_check)
        slim_claim: dict[str, object] = {k: v for k, v in claim.items() if k in keep_claim}
        slim_claim["checks"] = checks
        claims.append(slim_claim)
    slim = {
        "schema": doc["schema"],
        "run": {k: v for k, v in run.items() if k in keep_run},
        "claims": claims,
        "summary": doc["summary"],
    }
    return cast(records.Evidence, slim)  # the subset of each record that diff_evidence reads


class _Tidy:
    """The long table, serialised as each file is read and spooled to a temporary file.

    A run's document is dropped once read, and 200 runs make some 160,000 rows:
    they are written, without their run number (the page's column, known only
    once every file is read), to an anonymous temporary file per format, and
    :func:`write_tidy` copies them out in column order with the number in front.
    Memory stays that of one run's rows.
    """

    def __init__(self, *, want_csv: bool = False, want_json: bool = False) -> None:
        self.want_csv, self.want_json = want_csv, want_json
        self.spools: dict[str, Any] = {}
        # Per format: run index -> (offset, length) of its rows in the spool.
        self.spans: dict[str, dict[int, tuple[int, int, array[int]]]] = {"csv": {}, "json": {}}
        self.columns: dict[int, int] = {}

    def _spool(self, kind: str, index: int, rows: Sequence[str]) -> None:
        import tempfile

        spool = self.spools.get(kind)
        if spool is None:
            # Kept open until write_tidy copies it out (and closes it).
            spool = self.spools[kind] = tempfile.TemporaryFile()  # noqa: SIM115
        data = "".join(rows).encode("utf-8")
        # Each row's length in characters, so rows come back whole even when a CSV
        # cell holds a quoted newline.
        self.spans[kind][index] = (spool.tell(), len(data), array("L", map(len, rows)))
        spool.write(data)

    def add_rows(self, index: int, texts: Mapping[str, Sequence[str]]) -> None:
        """One run's rows, serialised by :func:`_tidy_text` (perhaps in another process)."""
        for kind, rows in texts.items():
            self._spool(kind, index, rows)

    def rows(self, kind: str) -> Iterable[tuple[int, str]]:
        """(column, row text) in column order, read back from the spool one run at a time."""
        spool = self.spools.get(kind)
        if spool is None:
            return
        for index in sorted(self.spans[kind], key=lambda i: self.columns.get(i, i)):
            offset, length, lengths = self.spans[kind][index]
            spool.seek(offset)
            chunk = spool.read(length).decode("utf-8")
            start = 0
            for n in lengths:
                yield self.columns.get(index, index), chunk[start:start + n]
                start += n

    def close(self) -> None:
        for spool in self.spools.values():
            spool.close()
        self.spools.clear()


_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def _tidy_text(
    records: Sequence[dict[str, Any]], *, want_csv: bool, want_json: bool
) -> dict[str, list[str]]:
    """One run's tidy rows as CSV lines and JSON records, each without the run number."""
    out: dict[str, list[str]] = {}
    if want_json:
        # Each record without its opening brace: write_tidy puts '{"run": N, ' there.
        out["json"] = [_ENCODE(r)[1:] for r in records]
    if want_csv:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        rows = []
        for r in records:
            writer.writerow(["" if r[c] is None else _csv_cell(r[c]) for c in TIDY_COLUMNS[1:]])
            rows.append(buf.getvalue())
            buf.seek(0)
            buf.truncate()
        out["csv"] = rows
    return out


def _csv_cell(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    text = str(value)
    # A cell a spreadsheet would run as a formula is quoted as text (CSV injection).
    formula = text[:1] in ("=", "+", "-", "@", "\t", "\r") and _not_a_number(text)
    return "'" + text if formula else text


def _not_a_number(text: str) -> bool:
    """Whether ``text`` is not simply a number (a negative number stays a number)."""
    try:
        float(text)
    except ValueError:
        return True
    return False


def _json_value(value: Any) -> Any:
    """A measured or stated value for the JSON export: scalars as they are, the rest as text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return value_text(value)


def _tidy_rows(doc: records.Evidence, run: Run) -> list[dict[str, Any]]:
    """The export's records of one run: one per claim x check x measurement."""
    fields = run.fields
    rows: list[dict[str, Any]] = []
    suite = doc["run"].get("suite")
    for claim in doc["claims"]:
        for check in claim["checks"]:
            for m in check["measurements"]:
                iv = _interval(m.get("expected_interval"))
                rows.append(
                    {
                        "file": run.path,
                        "machine": " · ".join((fields["host"], fields["GPU"])),
                        "host": fields["host"],
                        "profile": fields["profile"],
                        "started": run.started,
                        "simulated": run.simulated,
                        "suite_commit": suite["git_commit"] if suite else None,
                        "claim": claim["id"],
                        "document": claim["document"],
                        "verdict": str(claim["verdict"]),
                        "test": check["nodeid"],
                        "source": check["source"],
                        "measurement": m["name"],
                        "measured": _json_value(m["measured"]),
                        "measured_number": _number(m["measured"]),
                        "measured_display": value_text(
                            m["measured"], m.get("measured_display"), m.get("unit")
                        ),
                        "unit": m.get("unit"),
                        "stated": _json_value(m.get("stated")),
                        "stated_number": _number(m.get("stated")),
                        "accepted_lo": iv[0] if iv else None,
                        "accepted_hi": iv[1] if iv else None,
                        "tolerance": m.get("tolerance"),
                        "compared": m.get("compared", True) and m.get("applicable") is not False,
                        "holds": m["holds"],
                    }
                )
    return rows


def _run_of(doc: records.Evidence, path: Path) -> Run:
    run = doc["run"]
    fingerprint = machine.fingerprint(run)
    fields = _fields(run, fingerprint)
    verdicts: dict[str, str] = {}
    reasons: dict[str, str] = {}
    figures: dict[str, list[Figure]] = {}
    for claim in doc["claims"]:
        cid = claim["id"]
        verdicts[cid] = str(claim["verdict"])
        # A cell's tooltip says why a claim failed; why it was not run is in each run's
        # own report (kept out: 200 runs x 176 claims of "not selected" would be megabytes).
        reason = claim.get("reason")
        if reason and verdicts[cid] in (Verdict.REFUTED, Verdict.ERROR, Verdict.KNOWN_ERRATUM):
            reasons[cid] = reason[:200]
        candidates = _figure_candidates(claim)
        if candidates:
            figures[cid] = candidates
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
        slim=_slim(doc),
    )


# --- comparing ------------------------------------------------------------------
@dataclass
class Machine:
    number: int
    key: tuple[str, ...]
    runs: list[Run]

    @property
    def name(self) -> str:
        return f"M{self.number}"

    @property
    def title(self) -> str:
        host, _cpu, gpu = self.key
        return f"{host} · {gpu}"


@dataclass
class Comparison:
    """The fleet: machines with their runs in time order, claim rows, history, skipped files."""

    machines: list[Machine]
    runs: list[Run]
    claims: list[dict[str, Any]]
    history: list[dict[str, Any]]
    skipped: list[Skipped]

    @property
    def disagreements(self) -> list[dict[str, Any]]:
        return [c for c in self.claims if c["group"] == "disagree"]


def _word(runs: Sequence[Run], cid: str) -> tuple[str, Run] | None:
    """A machine's latest decided verdict on a claim, else its latest one, with its run.

    ``runs`` are one machine's, in time order.
    """
    latest: tuple[str, Run] | None = None
    for run in reversed(runs):
        v = run.verdicts.get(cid)
        if v is None:
            continue
        if latest is None:
            latest = (v, run)
        if v in DECIDED:
            return v, run
    return latest


def _main_key(runs: Sequence[Run], cid: str) -> tuple[str, str] | None:
    """The measurement that is the claim's main figure in every run (best rank, most runs)."""
    seen: dict[tuple[str, str], list[int]] = {}
    order: list[tuple[str, str]] = []
    for run in runs:
        for f in run.figures.get(cid, ()):
            if f.key not in seen:
                seen[f.key] = [f.rank, 0]
                order.append(f.key)
            seen[f.key][0] = min(seen[f.key][0], f.rank)
            seen[f.key][1] += 1
    if not order:
        return None
    first = {k: i for i, k in enumerate(order)}
    return min(order, key=lambda k: (seen[k][0], -seen[k][1], first[k]))


def _figure(run: Run, cid: str, key: tuple[str, str] | None) -> Figure | None:
    if key is None:
        return None
    return next((f for f in run.figures.get(cid, ()) if f.key == key), None)


def _format(x: float) -> str:
    return f"{x:,.6g}"


def _claim_row(
    cid: str, meta: Mapping[str, Any], machines: Sequence[Machine], runs: Sequence[Run]
) -> dict[str, Any]:
    key = _main_key(runs, cid)
    cells = []
    for run in runs:
        fig = _figure(run, cid, key)
        cells.append(
            {
                "verdict": run.verdicts.get(cid),
                "figure": fig.display if fig else None,
                "holds": fig.holds if fig else None,
                "reason": run.reasons.get(cid, ""),
            }
        )
    said = {m.name: w for m in machines if (w := _word(m.runs, cid)) is not None}
    words = {name: verdict for name, (verdict, _run) in said.items()}
    # Whose word came through the suite's fakes: a simulated refutation is the fake's.
    simulated = sorted(name for name, (_v, run) in said.items() if run.simulated)
    classes = {_CLASS[w] for w in words.values() if w in _CLASS}
    # Per machine, its latest run that measured the figure: the machine's value.
    points: list[dict[str, Any]] = []
    latest: dict[str, float] = {}
    reference: Figure | None = None
    for m in machines:
        mine: list[dict[str, Any]] = []
        for run in m.runs:
            fig = _figure(run, cid, key)
            if fig is None or fig.number is None:
                continue
            reference = reference or fig
            mine.append({"machine": m.number, "value": fig.number, "run": run.column,
                         "display": fig.display, "latest": False})
        if mine:
            mine[-1]["latest"] = True  # runs are in time order: the machine's latest value
            latest[m.name] = mine[-1]["value"]
            points.extend(mine)
    stats: dict[str, Any] | None = None
    if latest and reference is not None:
        values = sorted(latest.values())
        spread = values[-1] - values[0]
        stats = {
            "name": reference.name,
            "unit": reference.unit,
            "source": reference.source,
            "min": values[0],
            "median": statistics.median(values),
            "max": values[-1],
            "spread": spread,
            "tolerance": reference.tolerance,
            "stated": reference.stated,
            "accepted": reference.accepted,
            "machines": len(values),
            "text": {
                k: _format(v)
                for k, v in (("min", values[0]), ("median", statistics.median(values)),
                             ("max", values[-1]))
            },
        }
    if len(classes) > 1:
        group = "disagree"
    elif (
        stats is not None
        and stats["machines"] > 1
        and stats["tolerance"] is not None
        and stats["spread"] > stats["tolerance"]
    ):
        group = "spread"
    else:
        group = "rest"
    return {
        "id": cid,
        "document": _str(meta.get("document")),
        "statement": _str(meta.get("statement")),
        "cells": cells,
        "words": words,
        "simulated_words": simulated,
        "group": group,
        "stats": stats,
        "points": points,
        "checked_somewhere": any(c["verdict"] in DECIDED for c in cells),
    }


def _history(machines: Sequence[Machine]) -> list[dict[str, Any]]:
    """What changed between consecutive runs of each machine, as ``claims diff`` says it."""
    out = []
    for m in machines:
        for before, after in zip(m.runs, m.runs[1:], strict=False):
            assert before.slim is not None and after.slim is not None  # dropped only after this
            result = diff_evidence(before.slim, after.slim, labels=(before.path, after.path))
            out.append(
                {
                    "machine": m.name,
                    "from_run": before.column,
                    "to_run": after.column,
                    "from_started": before.started,
                    "to_started": after.started,
                    "identical": result["identical"],
                    "verdict_changes": [
                        {"claim": c["id"], "from": c["a"], "to": c["b"], "kind": c["kind"]}
                        for c in result["verdict_changes"]
                    ],
                    "moved_figures": [
                        {
                            "claim": f["claim"],
                            "measurement": f["name"],
                            "from": f["a_display"],
                            "to": f["b_display"],
                            "relative_change": f["relative_change"],
                        }
                        for f in result["moved_figures"]
                    ],
                    "machine_differences": result["machine_differences"],
                    "option_differences": result["option_differences"],
                }
            )
    return out


@dataclass
class _Read:
    """What one evidence file gives the comparison (picklable: it may come from a worker)."""

    run: Run
    metas: dict[str, dict[str, Any]]
    tidy: dict[str, list[str]]


def _read_one(path: Path, want_csv: bool = False, want_json: bool = False) -> _Read | Skipped:
    """Load one file through the evidence loader and keep what the comparison needs."""
    loaded = _load(path)
    if isinstance(loaded, Skipped):
        return loaded
    try:
        run = _run_of(loaded, path)
        metas: dict[str, dict[str, Any]] = {}
        for claim in loaded["claims"]:
            metas.setdefault(
                claim["id"], {"document": claim["document"], "statement": claim["statement"]}
            )
        tidy = (
            _tidy_text(_tidy_rows(loaded, run), want_csv=want_csv, want_json=want_json)
            if want_csv or want_json
            else {}
        )
    except Exception as exc:  # evidence the schema allows but this reading trips on
        if os.environ.get("CLAIMS_DEBUG"):
            raise
        return Skipped(str(path), f"cannot compare ({type(exc).__name__}: {exc})")
    return _Read(run, metas, tidy)


def _read_all(paths: Sequence[Path], want_csv: bool, want_json: bool) -> Iterable[_Read | Skipped]:
    """Each file's reading, in the order given; on WORKERS processes when there are many.

    Loading (JSON parsing and schema validation) is about two thirds of the
    CPU time and each file is independent, so two processes read two files at a
    time where two cores are free (on a machine whose cores are busy it gains
    nothing and costs little). A worker holds one document at a time.
    """
    workers = min(WORKERS, os.cpu_count() or 1)
    if workers < 2 or len(paths) < 2 * MIN_FILES_PER_WORKER:
        yield from (_read_one(p, want_csv, want_json) for p in paths)
        return
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    with ProcessPoolExecutor(max_workers=workers) as pool:
        read = partial(_read_one, want_csv=want_csv, want_json=want_json)
        yield from pool.map(read, paths, chunksize=2)


def compare_files(
    args: Iterable[str | Path], *, csv_out: bool = False, json_out: bool = False
) -> tuple[Comparison, _Tidy]:
    """Read every evidence file (skipping bad ones with the reason) and compare the runs."""
    found, skipped = evidence_paths(args)
    paths: list[Path] = []
    seen: set[str] = set()
    for path in found:
        real = os.path.realpath(path)
        if real not in seen:  # the same file named twice (a file and its folder) is one run
            seen.add(real)
            paths.append(path)
    tidy = _Tidy(want_csv=csv_out, want_json=json_out)
    runs: list[Run] = []
    metas: dict[str, dict[str, Any]] = {}
    for read in _read_all(paths, csv_out, json_out):
        if isinstance(read, Skipped):
            skipped.append(read)
            continue
        for key, meta in read.metas.items():
            metas.setdefault(key, meta)
        if read.tidy:
            tidy.add_rows(len(runs), read.tidy)
        runs.append(read.run)
    # Runs of one machine together, machines in the order of their first run.
    def when(r: Run) -> tuple[bool, float, str]:
        return (r.started_at is None, r.started_at.timestamp() if r.started_at else 0.0, r.path)

    by_key: dict[tuple[str, ...], list[Run]] = {}
    for run in sorted(runs, key=when):
        by_key.setdefault(run.machine_key, []).append(run)
    machines = [Machine(i + 1, key, group) for i, (key, group) in enumerate(by_key.items())]
    ordered: list[Run] = []
    for m in machines:
        for n, run in enumerate(m.runs, start=1):
            run.machine = m.number
            run.column = len(ordered) + 1
            run.label = f"{m.name}.{n}"
            run.header = _header(run, m.runs[n - 2] if n > 1 else None)
            ordered.append(run)
    tidy.columns = {i: r.column for i, r in enumerate(runs)}
    history = _history(machines)
    for run in ordered:
        run.slim = None  # the history is made; the slim documents are no longer needed
    rows = [_claim_row(cid, meta, machines, ordered) for cid, meta in metas.items()]
    return Comparison(machines, ordered, rows, history, skipped), tidy


def write_tidy(tidy: _Tidy, *, csv_path: Path | None, json_path: Path | None) -> None:
    """The long table as CSV (a header row) and as a JSON array of records, in column order.

    Streamed from the spool to a temporary file beside the target, then renamed
    over it: readers see the old table or the new one, never half of one, and
    the table is never one string in memory.
    """
    from claims.evidence import write_atomic

    try:
        if csv_path is not None:
            lines = (f"{column},{row}" for column, row in tidy.rows("csv"))
            write_atomic(csv_path, itertools.chain([",".join(TIDY_COLUMNS) + "\n"], lines))
        if json_path is not None:
            write_atomic(json_path, _json_array(tidy.rows("json")))
    finally:
        tidy.close()


def _json_array(rows: Iterable[tuple[int, str]]) -> Iterable[str]:
    yield "["
    sep = "\n"
    for column, row in rows:
        yield f'{sep}{{"run": {column}, {row}'
        sep = ",\n"
    yield "\n]\n"


# --- terminal -------------------------------------------------------------------
def format_compare_text(result: Comparison) -> str:
    """A terminal summary; every field from the evidence goes through claims.terminal.safe."""
    from claims.terminal import safe

    lines = [
        f"{len(result.runs)} run(s) on {len(result.machines)} machine(s); "
        f"{len(result.skipped)} file(s) skipped"
    ]
    for m in result.machines:
        lines.append(f"  {m.name}: {safe(m.title)} ({len(m.runs)} run(s))")
    for s in result.skipped:
        lines.append(f"  skipped {safe(s.path)}: {safe(s.reason)}")
    dis = result.disagreements
    lines.append(f"verdicts that differ between machines: {len(dis)}")
    for c in dis:
        words = ", ".join(
            f"{k} {v}" + (" (simulated)" if k in c["simulated_words"] else "")
            for k, v in c["words"].items()
        )
        lines.append(f"  ! {safe(c['id'])}: {safe(words)}")
    spread = [c for c in result.claims if c["group"] == "spread"]
    lines.append(f"figures that spread beyond their tolerance: {len(spread)}")
    for c in spread:
        s = c["stats"]
        lines.append(
            f"    {safe(c['id'])} {safe(s['name'])}: {s['text']['min']} to {s['text']['max']}"
            f" {safe(s['unit'])} (tolerance {_format(s['tolerance'])})"
        )
    changes = sum(len(h["verdict_changes"]) for h in result.history)
    regressions = sum(
        1 for h in result.history for c in h["verdict_changes"] if c["kind"] == "regression"
    )
    lines.append(
        f"history: {len(result.history)} step(s) between runs of a machine, "
        f"{changes} verdict change(s), {regressions} regression(s)"
    )
    return "\n".join(lines) + "\n"


# --- HTML -----------------------------------------------------------------------
def strip_plot(row: Mapping[str, Any], machines: Sequence[Machine]) -> Markup | None:
    """A small SVG: each run's figure per machine (a dot), the document's figure as a line.

    Hand-drawn rather than through matplotlib: a fleet page has one per claim,
    and a few hundred bytes each keep a page of 200 runs light. Every text in
    it is escaped.
    """
    stats = row.get("stats")
    points = row.get("points") or []
    if not stats or not points:
        return None
    values = [float(p["value"]) for p in points]
    extra = [float(x) for x in (stats.get("stated"),) if x is not None]
    if stats.get("accepted"):
        extra.extend(float(x) for x in stats["accepted"])
    lo, hi = min(values + extra), max(values + extra)
    if hi == lo:
        lo, hi = lo - (abs(lo) or 1) * 0.05, hi + (abs(hi) or 1) * 0.05
    log = lo > 0 and hi / lo > 1000

    def scale(x: float) -> float:
        if log:
            return (math.log10(x) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        return (x - lo) / (hi - lo)

    shown = [m for m in machines if any(p["machine"] == m.number for p in points)]
    left, width, step = 34.0, 200.0, 12.0
    height = step * len(shown) + 22.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="strip" width="{left + width + 8:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {left + width + 8:.0f} {height:.0f}" role="img">',
        f"<title>{escape(stats['name'])}: each machine's runs; the line is the document's "
        "figure</title>",
    ]
    accepted = stats.get("accepted")
    if accepted:
        x0, x1 = left + width * scale(accepted[0]), left + width * scale(accepted[1])
        parts.append(
            f'<rect x="{x0:.1f}" y="2" width="{max(x1 - x0, 1.0):.1f}" height="{height - 18:.1f}" '
            'fill="#fbe3e1"><title>accepted range of the stated figure</title></rect>'
        )
    if stats.get("stated") is not None:
        x = left + width * scale(stats["stated"])
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="1" y2="{height - 15:.1f}" stroke="{REFERENCE}" '
            f'stroke-width="1.5" stroke-dasharray="3 2"><title>the document: '
            f"{escape(_format(stats['stated']))} {escape(stats['unit'])}</title></line>"
        )
    for i, m in enumerate(shown):
        y = 8 + i * step
        parts.append(
            f'<text x="{left - 4:.0f}" y="{y + 3.5:.1f}" text-anchor="end" font-size="9" '
            f'fill="#5b6770">{escape(m.name)}</text>'
            f'<line x1="{left}" x2="{left + width}" y1="{y}" y2="{y}" stroke="#eef1f3"/>'
        )
        for p in (p for p in points if p["machine"] == m.number):
            x = left + width * scale(p["value"])
            fill = MEASURED if p.get("latest") else "#fff"
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y}" r="3.2" fill="{fill}" stroke="{MEASURED}" '
                f'stroke-width="1.2"><title>{escape(m.name)} run {p["run"]}: '
                f"{escape(p['display'])}</title></circle>"
            )
    axis_y = height - 6
    parts.append(
        f'<text x="{left}" y="{axis_y:.0f}" font-size="8.5" fill="#5b6770">'
        f"{escape(_format(lo))}</text>"
        f'<text x="{left + width}" y="{axis_y:.0f}" font-size="8.5" fill="#5b6770" '
        f'text-anchor="end">{escape(_format(hi))}{" (log)" if log else ""}</text>'
    )
    parts.append("</svg>")  # no ids inside: two plots on a page cannot clash
    return Markup("".join(parts))


def _pages(count: int) -> list[tuple[int, int, int]]:
    """(page, last child before it, first child after it) of the run columns, for the CSS.

    A row's children are the claim, the figure, then one cell per run: page p
    shows children 12p+3 to 12p+14 (with PAGE_RUNS 12), by position alone, so
    no cell carries a class for its page.
    """
    return [
        (p, PAGE_RUNS * p + 2, PAGE_RUNS * (p + 1) + 3)
        for p in range((count + PAGE_RUNS - 1) // PAGE_RUNS)
    ]


def _script() -> str:
    from claims.report.html import environment

    loader = environment().loader
    assert loader is not None
    source, _, _ = loader.get_source(environment(), "compare.js.j2")
    return source


def render_compare_html(result: Comparison) -> str:
    """The fleet page (self-contained, CSP-strict; evidence text escaped by the template)."""
    from claims.report.html import content_security_policy, environment

    groups = {
        g: [c for c in result.claims if c["group"] == g] for g in ("disagree", "spread", "rest")
    }
    # The rest: claims some run checked first, then what no run checked.
    groups["rest"].sort(key=lambda c: not c["checked_somewhere"])
    plots = {
        c["id"]: strip_plot(c, result.machines) for c in result.claims if c["stats"]
    }
    script = _script()
    template = environment().get_template("compare.html.j2")
    return template.render(
        result=result,
        groups=groups,
        plots=plots,
        pages=_pages(len(result.runs)),
        page_runs=PAGE_RUNS,
        firsts={m.runs[0].column for m in result.machines},
        order=ORDER,
        verdicts=VERDICTS,
        descriptions=DESCRIPTIONS,
        sources=SOURCES,
        bad=BAD,
        confirmed=CONFIRMED,
        percent=lambda x: "n/a" if x is None else f"{x * 100:+.1f}%",
        script=script,
        csp=content_security_policy(script),
    ).lstrip()


# --- command line ---------------------------------------------------------------
def run_compare(args: Any, error: Any) -> int:
    """``python -m claims compare``: the page, the tidy table, a terminal summary, the status.

    Exit status: 0; 1 with ``--fail-on-disagreement`` when a claim's verdict
    differs between machines; 2 when fewer than two runs could be read (the
    page is still written, naming the files and why they were left out).
    """
    import sys

    from claims.cli import EXIT_INPUT, EXIT_OK, EXIT_VERIFY
    from claims.evidence import write_atomic
    from claims.terminal import safe

    result, tidy = compare_files(
        args.evidence, csv_out=bool(args.csv), json_out=bool(args.json)
    )
    for s in result.skipped:
        error(f"claims compare: skipped {s.path}: {s.reason}")
    out = Path(args.output)
    write_atomic(out, render_compare_html(result))
    write_tidy(
        tidy,
        csv_path=Path(args.csv) if args.csv else None,
        json_path=Path(args.json) if args.json else None,
    )
    sys.stdout.write(format_compare_text(result))
    print(f"compare page written: {safe(out)}")
    for what, where in (("CSV", args.csv), ("JSON", args.json)):
        if where:
            print(f"tidy table ({what}) written: {safe(where)}")
    if len(result.runs) < 2:
        error("claims compare: fewer than two runs could be read; there is nothing to compare")
        return EXIT_INPUT
    if args.fail_on_disagreement and result.disagreements:
        return EXIT_VERIFY
    return EXIT_OK
