"""Record which transcribed values the offline claim tests read (claims/text/reads.py).

Usage: .venv/bin/python scripts/record-reads.py   (run from the checkout)

Runs the offline claim tests once, in-process, as the audit's baseline runs them (their
recorded data in containers that note each value read, the files they open noted), and
writes fixtures/recorded/READ.json: per document, the transcribed value paths some claim
test read. `python -m claims coverage` counts a transcribed figure as recorded only where
that record says a test reads it; `python -m claims audit` compares the record with what
its own baseline read and lists every difference. Run it after changing what a claim test
reads, and commit the record with the change.
"""

from __future__ import annotations

import sys
from pathlib import Path

from claims.audit import record_reads
from claims.text.reads import READ, reads_json


def main() -> int:
    root = Path.cwd()
    read = record_reads(root / "tests")
    (root / READ).write_text(reads_json(read), "utf-8")
    total = sum(len(paths) for paths in read.values())
    print(f"{READ}: {total} transcribed values read by the claim tests "
          f"({', '.join(f'{d} {len(p)}' for d, p in read.items())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
