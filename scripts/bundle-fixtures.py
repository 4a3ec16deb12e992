"""Rewrite fixtures/BUNDLED.sha256, the SHA-256 of every file of fixtures/lab and fixtures/hub.

Usage: .venv/bin/python scripts/bundle-fixtures.py

Every run checks those folders against it (claims.inputs.bundled), so an edited byte of the
author's lab or of the Hub snapshot fails the claims of the documents relying on it.
Run this only after a deliberate change (a newer lab commit, recorded in
fixtures/lab/upstream.json with its blob ids), and commit the manifest with it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from claims.inputs.bundled import bundled_files, write_bundled

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    path = write_bundled(ROOT)
    print(f"{len(bundled_files(ROOT))} files -> {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
