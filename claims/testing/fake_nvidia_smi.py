"""Stand-in ``nvidia-smi``, ``lscpu`` and ``free`` that print a recorded machine's output.

They answer the invocations the probes make, from the files in
``fixtures/system/<machine>/`` (``gb10`` unless CLAIMS_FAKE_MACHINE names another;
CLAIMS_FAKE_SMI, its older name, still works; an absolute path names a machine folder
laid out the same way elsewhere):

* ``nvidia-smi``: ``nvidia_smi.txt`` (the table); on a machine whose NVML is broken
  (``nvidia_smi_exit_status.txt`` present), that file's message for every invocation,
  with that exit status; ``-q``: ``nvidia_smi_q.txt``;
  ``-L``: ``nvidia_smi_L.txt`` where the machine has one;
  ``--query-gpu=a,b,c --format=csv,noheader,nounits``: the requested columns of
  ``query_gpu.csv`` (whose columns are ``claims.probes.machine.system.GPU_QUERY_FIELDS``);
  an unknown field fails the way nvidia-smi does (exit 2, "is not a valid field");
* ``lscpu``: ``lscpu.txt``; ``free -h``: ``free_h.txt`` (installed only when asked
  for with ``tools=``, since a machine without those files has no such fake).

:func:`install` writes executables that run this script with the current
interpreter. Each carries the :data:`claims.simulation.MARKER` line, so a run that
finds one on PATH is marked simulated. Used only to test the instrument on
machines without a GPU: a verdict obtained through it means nothing about any machine.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Iterable
from pathlib import Path

from claims.probes.machine.system import GPU_QUERY_FIELDS as COLUMNS
from claims.simulation import marker_line
from claims.testing import recordings

TOOLS = ("nvidia-smi", "lscpu", "free")


def machine_dir() -> Path:
    """The recorded machine the fakes answer for (CLAIMS_FAKE_MACHINE, default gb10), under
    the fixtures folder :mod:`claims.testing.recordings` names."""
    name = os.environ.get("CLAIMS_FAKE_MACHINE") or os.environ.get("CLAIMS_FAKE_SMI") or "gb10"
    if os.path.isabs(name):  # a machine folder of one's own, laid out as fixtures/system/*
        return Path(name)
    return recordings.fixtures_dir() / "system" / name


def install(bin_dir: Path, tools: Iterable[str] = ("nvidia-smi",)) -> Path:
    """Write executable fakes of ``tools`` into ``bin_dir``; return the ``nvidia-smi`` one."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = Path(__file__).resolve()
    # The wrapper carries the fixtures folder, so it answers wherever it is run from.
    fixtures = recordings.fixtures_dir().resolve()
    for tool in tools:
        if tool not in TOOLS:
            raise ValueError(f"no fake for {tool!r} (fakes: {', '.join(TOOLS)})")
        exe = bin_dir / tool
        exe.write_text(f"#!/bin/sh\n{marker_line(f'{tool} (claims.testing.fake_nvidia_smi)')}\n"
                       f'export {recordings.ENV}="${{{recordings.ENV}:-{fixtures}}}"\n'
                       f'exec "{sys.executable}" "{script}" --as {tool} "$@"\n', encoding="utf-8")
        exe.chmod(0o755)
    return bin_dir / "nvidia-smi"


def _print(machine: Path, name: str) -> int:
    path = machine / name
    if not path.exists():
        print(f"fake: {machine.name} has no {name}", file=sys.stderr)
        return 2
    sys.stdout.write(path.read_text(encoding="utf-8"))
    return 0


def _smi(machine: Path, argv: list[str]) -> int:
    failing = machine / "nvidia_smi_exit_status.txt"
    if failing.exists():
        # A machine whose NVML is broken: every invocation prints the recorded message
        # (nvidia-smi writes it to stdout) and exits with the recorded status.
        sys.stdout.write((machine / "nvidia_smi.txt").read_text(encoding="utf-8"))
        return int(failing.read_text(encoding="utf-8").strip())
    if not argv:
        return _print(machine, "nvidia_smi.txt")
    if argv == ["-q"]:
        return _print(machine, "nvidia_smi_q.txt")
    if argv == ["-L"]:
        return _print(machine, "nvidia_smi_L.txt")
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


def main(argv: list[str]) -> int:
    tool = "nvidia-smi"
    if argv[:1] == ["--as"] and len(argv) >= 2:
        tool, argv = argv[1], argv[2:]
    machine = machine_dir()
    if tool == "lscpu" and not argv:
        return _print(machine, "lscpu.txt")
    if tool == "free" and argv in (["-h"], []):
        return _print(machine, "free_h.txt")
    if tool == "nvidia-smi":
        return _smi(machine, argv)
    print(f"fake {tool}: unsupported arguments {argv}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
