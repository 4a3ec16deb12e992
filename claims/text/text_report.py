"""``python -m claims coverage`` as text: a table per document, as coverage.py prints one.

Every text that comes from a document goes through :func:`claims.terminal.safe`: the
documents are untrusted, and a control sequence in one must not reach the terminal.
"""

from __future__ import annotations

from claims.terminal import safe
from claims.text.measure import STATUSES, Accounting, Figure

__all__ = ["CONTEXT_CHARS", "context", "format_missing", "format_table"]

# How much of the line around an unaccounted figure --show-missing prints, each side.
CONTEXT_CHARS = 30


def format_table(acc: Accounting) -> str:
    head = ("Document", "Printed", *(s.capitalize() for s in STATUSES), "Accounted")
    rows = [(d.document.id, d.printed, *(d.count(s) for s in STATUSES), f"{d.percent:.2f}%")
            for d in acc.documents]
    t = acc.totals()
    rows.append(("TOTAL", t["printed"], *(t[s] for s in STATUSES), f"{t['percent']:.2f}%"))
    cells = [tuple(str(c) for c in head)] + [tuple(str(c) for c in r) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths, strict=True))))
        if n == 0 or n == len(cells) - 2:
            lines.append("-" * len(lines[-1]))
    return "\n".join(lines)


def context(acc: Accounting, fig: Figure) -> str:
    """The line around a figure, the figure in [brackets], whitespace collapsed."""
    at = fig.at
    source = next(s for s in acc.sources.values() if s.key == at.source)
    line = source.lines[at.line - 1]
    lo = at.column - 1
    hi = lo + len(at.text)
    text = f"{line[max(0, lo - CONTEXT_CHARS):lo]}[{at.text}]{line[hi:hi + CONTEXT_CHARS]}"
    return " ".join(text.split())


def format_missing(acc: Accounting) -> str:
    """One line per unaccounted figure: file:line:column, the figure, the text around it."""
    out = []
    for fig in acc.figures:
        if fig.status == "unaccounted":
            at = fig.at
            out.append(f"{at.document}  {safe(at.source)}:{at.line}:{at.column}  "
                       f"{safe(at.text)}  | {safe(context(acc, fig))}")
    return "\n".join(out)
