"""Rewrite docs/options.md's table of options from the plugin's option table.

Usage: python scripts/options-table.py [--check]

The table lies between the two marker comments of claims.plugin.options
(README_BEGIN, README_END); --check only says whether it is stale (exit 1).
"""

from __future__ import annotations

import sys
from pathlib import Path

from claims.plugin.options import README_BEGIN, README_END, markdown_table

PAGE = Path(__file__).resolve().parents[1] / "docs" / "options.md"


def rewritten(text: str) -> str:
    """``text`` with the block between the markers replaced by the current table."""
    head, begin, rest = text.partition(README_BEGIN)
    _, end, tail = rest.partition(README_END)
    if not begin or not end:
        raise SystemExit(f"{PAGE}: the option table's markers are missing")
    return f"{head}{README_BEGIN}\n{markdown_table()}\n{README_END}{tail}"


def main(argv: list[str]) -> int:
    text = PAGE.read_text("utf-8")
    new = rewritten(text)
    if "--check" in argv:
        stale = new != text
        if stale:
            print("docs/options.md's option table is stale: run python scripts/options-table.py")
        return 1 if stale else 0
    PAGE.write_text(new, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
