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

The work is in four modules: :mod:`.load` (one evidence file into a
:class:`Run`, or the reason it is skipped), :mod:`.tidy` (the long table),
:mod:`.machines` (runs into machines, claim rows, history) and :mod:`.render`
(the terminal summary and the page). This module is the command.
"""


from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from claims.evidence import write_atomic
from claims.exit_codes import EXIT_INPUT, EXIT_OK, EXIT_VERIFY
from claims.report.compare.load import Skipped, evidence_paths, tolerance_width
from claims.report.compare.machines import Comparison, Machine, compare_files
from claims.report.compare.render import (
    PAGE_RUNS,
    format_compare_text,
    render_compare_html,
    strip_plot,
)
from claims.report.compare.tidy import TIDY_COLUMNS, write_tidy
from claims.terminal import safe

__all__ = [
    "PAGE_RUNS",
    "TIDY_COLUMNS",
    "Comparison",
    "Machine",
    "Skipped",
    "compare_files",
    "evidence_paths",
    "format_compare_text",
    "render_compare_html",
    "run_compare",
    "strip_plot",
    "tolerance_width",
    "write_tidy",
]


def run_compare(args: Any, error: Any) -> int:
    """``python -m claims compare``: the page, the tidy table, a terminal summary, the status.

    Exit status: 0; 1 with ``--fail-on-disagreement`` when a claim's verdict
    differs between machines; 2 when fewer than two runs could be read (the
    page is still written, naming the files and why they were left out).
    """
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
