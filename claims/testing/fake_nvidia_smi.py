"""A stand-in ``nvidia-smi`` that prints recorded output (for the gpu tier's self-tests).

It answers the three invocations the probes make, from the files in
``fixtures/system/<machine>/`` (``gb10`` unless CLAIMS_FAKE_SMI names another):

* no arguments: ``nvidia_smi.txt`` (the table);
* ``-q``: ``nvidia_smi_q.txt``;
* ``--query-gpu=a,b,c --format=csv,noheader,nounits``: the requested columns
  of ``query_gpu.csv`` (whose columns are ``claims.probes.system.GPU_QUERY_FIELDS``).

:func:`install` puts it on a PATH: it writes an executable ``nvidia-smi`` that
runs this script with the current interpreter.

Used only to test the instrument on machines without a GPU; its output is
recorded text, so a verdict obtained with it means nothing about any machine.
"""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

from claims.probes.system import GPU_QUERY_FIELDS as COLUMNS


def install(bin_dir: Path) -> Path:
    """Write an executable ``nvidia-smi`` into ``bin_dir`` that runs this stand-in."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    smi = bin_dir / "nvidia-smi"
    script = Path(__file__).resolve()
    smi.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n', encoding="utf-8")
    smi.chmod(0o755)
    return smi


def main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parents[2] / "fixtures" / "system"
    machine = root / os.environ.get("CLAIMS_FAKE_SMI", "gb10")
    if not argv:
        sys.stdout.write((machine / "nvidia_smi.txt").read_text(encoding="utf-8"))
        return 0
    if argv == ["-q"]:
        sys.stdout.write((machine / "nvidia_smi_q.txt").read_text(encoding="utf-8"))
        return 0
    query = [a for a in argv if a.startswith("--query-gpu=")]
    if query:
        fields = query[0].split("=", 1)[1].split(",")
        unknown = [f for f in fields if f not in COLUMNS]
        if unknown:
            print(f'Field "{unknown[0]}" is not a valid field to query.', file=sys.stderr)
            return 2
        text = (machine / "query_gpu.csv").read_text(encoding="utf-8")
        for row in csv.reader(text.splitlines(), skipinitialspace=True):
            if row:
                values = dict(zip(COLUMNS, row, strict=True))
                print(", ".join(values[f] for f in fields))
        return 0
    print(f"fake nvidia-smi: unsupported arguments {argv}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
