"""Runs grouped into machines, and the claim rows and history of ``claims compare``.

:func:`compare_files` reads the files (one loader, so that a claim record
repeated across runs is checked and taken apart once), groups the runs by
machine in time order, and makes one row per claim (each run's verdict and
main figure, each machine's word, the figure's spread) and each machine's
history in the words of :mod:`claims.report.diff`.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from claims.evidence_fleet import FleetLoader
from claims.report.compare.load import (
    Figure,
    Run,
    Skipped,
    claim_parts,
    evidence_paths,
    load_one,
    run_of,
)
from claims.report.compare.tidy import TidySpool, run_tidy_text
from claims.report.diff import diff_evidence
from claims.verdicts import Verdict

DECIDED = frozenset({Verdict.REPRODUCED, Verdict.CONSISTENT, Verdict.REFUTED,
                     Verdict.KNOWN_ERRATUM, Verdict.ERROR})
_CLASS: dict[str, str] = {
    Verdict.REPRODUCED: "holds",
    Verdict.CONSISTENT: "holds",
    Verdict.REFUTED: "does not hold",
    Verdict.KNOWN_ERRATUM: "does not hold",
    Verdict.ERROR: "error",
}


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


def format_number(x: float) -> str:
    return f"{x:,.6g}"


class _ClaimMeta(TypedDict):
    """What a comparison row shows of a claim, from the claim record of any one run."""

    document: str
    statement: str


def _claim_row(
    cid: str, meta: _ClaimMeta, machines: Sequence[Machine], runs: Sequence[Run]
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
                k: format_number(v)
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
        "document": meta["document"],
        "statement": meta["statement"],
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
    """What one evidence file gives the comparison."""

    run: Run
    metas: dict[str, _ClaimMeta]
    tidy: dict[str, list[str]]


def _read_one(
    path: Path, loader: FleetLoader, want_csv: bool = False, want_json: bool = False
) -> _Read | Skipped:
    """Load one file through the evidence loader and keep what the comparison needs."""
    loaded = load_one(path, loader)
    if isinstance(loaded, Skipped):
        return loaded
    doc, entries = loaded
    try:
        parts = claim_parts(entries)
        run = run_of(doc, path, parts)
        metas: dict[str, _ClaimMeta] = {}
        for part in parts:
            if part.id not in metas:
                metas[part.id] = {"document": part.document, "statement": part.statement}
        tidy = (
            run_tidy_text(doc, run, entries, want_csv=want_csv, want_json=want_json)
            if want_csv or want_json
            else {}
        )
    except Exception as exc:  # evidence the schema allows but this reading trips on
        if os.environ.get("CLAIMS_DEBUG"):
            raise
        return Skipped(str(path), f"cannot compare ({type(exc).__name__}: {exc})")
    return _Read(run, metas, tidy)


def _read_all(paths: Sequence[Path], want_csv: bool, want_json: bool) -> Iterable[_Read | Skipped]:
    """Each file's reading, in the order given, through one loader.

    One process: the loader's cache of checked claim records is what makes a
    fleet cheap (most records repeat from run to run), and worker processes
    would each check them again and send the shared parts back as copies.
    """
    loader = FleetLoader()
    yield from (_read_one(p, loader, want_csv, want_json) for p in paths)


def compare_files(
    args: Iterable[str | Path], *, csv_out: bool = False, json_out: bool = False
) -> tuple[Comparison, TidySpool]:
    """Read every evidence file (skipping bad ones with the reason) and compare the runs."""
    found, skipped = evidence_paths(args)
    paths: list[Path] = []
    seen: set[str] = set()
    for path in found:
        real = os.path.realpath(path)
        if real not in seen:  # the same file named twice (a file and its folder) is one run
            seen.add(real)
            paths.append(path)
    tidy = TidySpool(want_csv=csv_out, want_json=json_out)
    runs: list[Run] = []
    metas: dict[str, _ClaimMeta] = {}
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


