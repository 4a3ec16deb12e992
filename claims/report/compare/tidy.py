"""The tidy export of ``claims compare``: one row per run x claim x measurement.

Rows are serialised as each file is read and spooled to a temporary file,
then copied out in column order by :func:`write_tidy`, as CSV (a header row)
or a JSON array of records. In the CSV a text cell that a spreadsheet would
evaluate as a formula (``=``, ``+``, ``-``, ``@`` and not a number) starts
with an apostrophe.

A row is the run's columns (file to suite commit) then the claim's (claim to
holds); each distinct claim record's part of its rows is serialised once
(:func:`run_tidy_text`), each run's part once per run.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import tempfile
from array import array
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from claims import records
from claims.evidence import write_atomic
from claims.evidence_fleet import ClaimEntry
from claims.report.compare.load import Run, as_interval, as_number
from claims.report.view import value_text

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


class TidySpool:
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
        """One run's rows, serialised by :func:`tidy_text` or :func:`run_tidy_text`."""
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


def tidy_text(
    records: Sequence[dict[str, Any]], *, want_csv: bool, want_json: bool
) -> dict[str, list[str]]:
    """One run's tidy rows as CSV lines and JSON records, each without the run number."""
    out: dict[str, list[str]] = {}
    if want_json:
        # Each record without its opening brace: write_tidy puts '{"run": N, ' there.
        out["json"] = [_ENCODE(r)[1:] for r in records]
    if want_csv:
        out["csv"] = [_csv_line(_csv_cells(r, TIDY_COLUMNS[1:])) for r in records]
    return out


def csv_cell(value: Any) -> str:
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


def _run_cells(doc: records.Evidence, run: Run) -> dict[str, Any]:
    """The run's columns of its rows (file to suite commit)."""
    fields = run.fields
    suite = doc["run"].get("suite")
    return {
        "file": run.path,
        "machine": " · ".join((fields["host"], fields["GPU"])),
        "host": fields["host"],
        "profile": fields["profile"],
        "started": run.started,
        "simulated": run.simulated,
        "suite_commit": suite["git_commit"] if suite else None,
    }


def tidy_rows(doc: records.Evidence, run: Run) -> list[dict[str, Any]]:
    """The export's records of one run: one per claim x check x measurement."""
    cells = _run_cells(doc, run)
    return [{**cells, **row} for claim in doc["claims"] for row in claim_rows(claim)]


def _csv_line(cells: Sequence[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(cells)
    return buf.getvalue()


def _csv_cells(r: Mapping[str, Any], columns: Sequence[str]) -> list[str]:
    return ["" if r[c] is None else csv_cell(r[c]) for c in columns]


_RUN_COLUMNS = TIDY_COLUMNS[1:8]
_CLAIM_COLUMNS = TIDY_COLUMNS[8:]


def run_tidy_text(
    doc: records.Evidence, run: Run, entries: Sequence[ClaimEntry], *, want_csv: bool,
    want_json: bool
) -> dict[str, list[str]]:
    """What :func:`tidy_text` makes of :func:`tidy_rows`, the claims' part of each row
    serialised once per distinct claim record (kept in its entry) and the run's once.

    A CSV cell is quoted on its own and a JSON object's members are written in order,
    so a row is its run's part joined to its claim's part.
    """
    cells = _run_cells(doc, run)
    kinds = [k for k, want in (("json", want_json), ("csv", want_csv)) if want]
    prefix = {
        "json": _ENCODE(cells)[1:-1] + ", ",
        "csv": _csv_line(_csv_cells(cells, _RUN_COLUMNS))[:-1] + ",",
    }
    out: dict[str, list[str]] = {k: [] for k in kinds}
    memo_key = f"tidy {want_json} {want_csv}"
    for entry in entries:
        texts = entry.memo.get(memo_key)
        if texts is None:
            rows = claim_rows(entry.claim)
            texts = entry.memo[memo_key] = {
                "json": [_ENCODE(r)[1:] for r in rows] if want_json else [],
                "csv": [_csv_line(_csv_cells(r, _CLAIM_COLUMNS)) for r in rows]
                if want_csv else [],
            }
        for kind in kinds:
            head = prefix[kind]
            out[kind].extend(head + t for t in texts[kind])
    return out


def claim_rows(claim: records.ClaimRecord) -> list[dict[str, Any]]:
    """A claim's columns of its rows (claim to holds): one per check x measurement."""
    rows: list[dict[str, Any]] = []
    for check in claim["checks"]:
        for m in check["measurements"]:
            iv = as_interval(m.get("expected_interval"))
            rows.append(
                {
                    "claim": claim["id"],
                    "document": claim["document"],
                    "verdict": str(claim["verdict"]),
                    "test": check["nodeid"],
                    "source": check["source"],
                    "measurement": m["name"],
                    "measured": _json_value(m["measured"]),
                    "measured_number": as_number(m["measured"]),
                    "measured_display": value_text(
                        m["measured"], m.get("measured_display"), m.get("unit")
                    ),
                    "unit": m.get("unit"),
                    "stated": _json_value(m.get("stated")),
                    "stated_number": as_number(m.get("stated")),
                    "accepted_lo": iv[0] if iv else None,
                    "accepted_hi": iv[1] if iv else None,
                    "tolerance": m.get("tolerance"),
                    "compared": m.get("compared", True) and m.get("applicable") is not False,
                    "holds": m["holds"],
                }
            )
    return rows


def write_tidy(tidy: TidySpool, *, csv_path: Path | None, json_path: Path | None) -> None:
    """The long table as CSV (a header row) and as a JSON array of records, in column order.

    Streamed from the spool to a temporary file beside the target, then renamed
    over it: readers see the old table or the new one, never half of one, and
    the table is never one string in memory.
    """
    try:
        if csv_path is not None:
            lines = (f"{column},{row}" for column, row in tidy.rows("csv"))
            write_atomic(csv_path, _batched(
                itertools.chain([",".join(TIDY_COLUMNS) + "\n"], lines)))
        if json_path is not None:
            write_atomic(json_path, _batched(_json_array(tidy.rows("json"))))
    finally:
        tidy.close()


def _json_array(rows: Iterable[tuple[int, str]]) -> Iterable[str]:
    yield "["
    sep = "\n"
    for column, row in rows:
        yield f'{sep}{{"run": {column}, {row}'
        sep = ",\n"
    yield "\n]\n"


def _batched(pieces: Iterable[str], count: int = 2000) -> Iterable[str]:
    """The pieces joined a few thousand at a time: one write per batch, not per row
    (160,000 rows' writes cost more than their text)."""
    it = iter(pieces)
    while batch := list(itertools.islice(it, count)):
        yield "".join(batch)
