"""The terminal's skips, one line per kind with a count, instead of one line per test.

A run without an Ollama server skips some thirty tests for the same reason; pytest's
``-ra`` would print each, some 600 characters long, as the last screen of the run.
This summary groups the skipped tests by their reason (after ``not run:`` / ``not
applicable:``), most frequent first, each cut to one line, and says where the full
reasons are: the evidence, the report, and ``-rs``. Given ``-rs`` (or ``-ra``),
pytest's own list is shown instead. Known errata (pytest's xfails) are one line too.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from claims.terminal import safe

__all__ = ["kind_of", "summarize_skips"]

# One line of a terminal: a kind's reason is cut here.
WIDTH = 110


def kind_of(report: Any) -> str:
    """A skipped test's reason, as pytest's -rs line would say it, without the location."""
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        text = str(longrepr[2])
    else:
        text = str(longrepr or "no reason given")
    return text.removeprefix("Skipped: ").strip() or "no reason given"


def _cut(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def summarize_skips(terminalreporter: Any) -> None:
    """Write the grouped skips and the count of known errata (nothing when there are none)."""
    chars = str(getattr(terminalreporter, "reportchars", "") or "")
    # Test reports of setup or call, and collection reports (a module skipped whole).
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if getattr(r, "when", None) in ("setup", "call", None)]
    xfailed = terminalreporter.stats.get("xfailed", [])
    if not skipped and not xfailed:
        return
    terminalreporter.write_sep("-", "skipped, by reason")
    if skipped and "s" not in chars and "a" not in chars and "A" not in chars:
        kinds = Counter(kind_of(r) for r in skipped)
        for reason, count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
            terminalreporter.write_line(f"{count:>4} × {safe(_cut(reason))}")
        terminalreporter.write_line(
            f"{len(skipped)} skipped in {len(kinds)} kinds; every test's reason is in the "
            "evidence and the report, and with -rs here"
        )
    if xfailed and "x" not in chars and "a" not in chars and "A" not in chars:
        terminalreporter.write_line(
            f"{len(xfailed)} known errata (xfailed: the document is wrong there, as the catalog "
            "records); -rx lists them"
        )
