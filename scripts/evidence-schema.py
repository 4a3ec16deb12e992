"""Write claims/schema/evidence.schema.json from the typed records of claims/records.py.

Usage: python scripts/evidence-schema.py [--check]

The records are the one source of the evidence contract (claims.contract turns
them into the schema); --check only says whether the file is stale (exit 1).
"""

from __future__ import annotations

import sys

from claims.contract import COMMAND, SCHEMA_PATH, render


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        stale = SCHEMA_PATH.read_text("utf-8") != text
        if stale:
            print(f"{SCHEMA_PATH.name} is stale: run {COMMAND}")
        return 1 if stale else 0
    SCHEMA_PATH.write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
