"""The repeated offline certification of this checkout beside another commit's, side by side.

Usage: python scripts/bench-against.py [--base 5b001df] [--runs 3] [--max-ratio 0.5]
           [--keep DIR]

Issue 51's target is a ratio, never a number of seconds: a bare ``pytest -m offline`` of
this checkout at most half as long as the same command on a commit before the slowdown,
timed on one machine in the same environment. So the other commit is checked out in a
temporary git worktree and both are run by this interpreter (one virtual environment:
``python -m`` puts each checkout's own ``claims`` first on the path), one warm-up run
each (bytecode caches), then ``--runs`` pairs in turn, this checkout first (A B A B ...):
a machine whose speed drifts moves both halves of a pair alike. It prints, per side,
the median and best wall and CPU seconds (the whole process tree), the median of the
pairs' ratios, and whether the claims both catalogs hold got the same verdicts (the
ones only this checkout has are counted apart). With ``--max-ratio R`` it exits 1 when
the median wall ratio is above R.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The commit before Week 5 and the accounting landed (issue 51's baseline).
BASE = "5b001df"
# A loaded two-core machine is slow, not hung.
RUN_TIMEOUT_S = 1800


@dataclass
class Side:
    """One checkout's runs: wall and CPU seconds of each, and its last evidence."""

    name: str
    repo: Path
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    evidence: Path | None = None


def offline_run(side: Side, out: Path) -> list[str]:
    """The command a user repeats: the offline tier, its evidence and report in ``out``."""
    side.evidence = out / "evidence.json"
    return [sys.executable, "-m", "pytest", "-m", "offline", "-p", "no:cacheprovider", "-q",
            "--claims-evidence", str(side.evidence),
            "--claims-report-html", str(out / "report.html")]


def time_once(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the process tree, exit status) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=RUN_TIMEOUT_S, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def verdicts(path: Path) -> dict[str, str]:
    """Claim id -> verdict of an evidence file."""
    data = json.loads(path.read_text("utf-8"))
    return {c["id"]: c["verdict"] for c in data["claims"]}


def compare_verdicts(now: dict[str, str], before: dict[str, str]) -> tuple[list[str], int]:
    """(each claim both hold whose verdict differs, as a line; how many claims only
    ``now`` holds)."""
    differ = [f"{cid}: {before[cid]} before, {now[cid]} now"
              for cid in sorted(now.keys() & before.keys()) if now[cid] != before[cid]]
    return differ, len(now.keys() - before.keys())


def pair_ratios(a: list[float], b: list[float]) -> list[float]:
    """Each pair's A/B (the pairs as they ran: the first A with the first B...)."""
    return [x / y for x, y in zip(a, b, strict=True) if y > 0]


def summary(sides: tuple[Side, Side]) -> str:
    a, b = sides
    lines = ["| | wall s, median (best) | CPU s, median (best) |", "| --- | --- | --- |"]
    for side in sides:
        lines.append(f"| {side.name} | {statistics.median(side.walls):.2f} "
                     f"({min(side.walls):.2f}) | {statistics.median(side.cpus):.2f} "
                     f"({min(side.cpus):.2f}) |")
    wall, cpu = pair_ratios(a.walls, b.walls), pair_ratios(a.cpus, b.cpus)
    lines.append(f"| A/B, median of the pairs | {statistics.median(wall):.3f} "
                 f"({min(wall):.3f} to {max(wall):.3f}) | {statistics.median(cpu):.3f} "
                 f"({min(cpu):.3f} to {max(cpu):.3f}) |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--base", default=BASE, help="the commit to run beside this checkout")
    parser.add_argument("--runs", type=int, default=3, help="pairs, after one warm-up each")
    parser.add_argument("--max-ratio", type=float, default=None,
                        help="exit 1 when the median wall ratio A/B is above this")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the worktree and the runs' evidence in this folder")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs: at least 1")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-against-"))
    base_repo = work / "base"
    made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach",
                           str(base_repo), args.base], capture_output=True, text=True,
                          timeout=120, check=False)
    if made.returncode != 0:
        print(f"bench-against: cannot check out {args.base}: {made.stderr.strip()}",
              file=sys.stderr)
        return 2
    sides = (Side(f"A: this checkout ({ROOT.name})", ROOT), Side(f"B: {args.base}", base_repo))
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the "
          f"start; {args.runs} pairs after a warm-up each", flush=True)
    try:
        for round_ in range(args.runs + 1):
            for n, side in enumerate(sides):
                out = work / f"run-{n}"
                wall, cpu, status = time_once(offline_run(side, out), side.repo)
                if status != 0:
                    print(f"bench-against: {side.name} exited {status}", file=sys.stderr)
                    return 2
                if round_:  # the first round warms the bytecode caches: not counted
                    side.walls.append(wall)
                    side.cpus.append(cpu)
        print(summary(sides))
        a, b = sides
        assert a.evidence is not None and b.evidence is not None
        differ, new = compare_verdicts(verdicts(a.evidence), verdicts(b.evidence))
        print(f"verdicts: {len(differ)} of the claims both hold differ; {new} claims only "
              "this checkout holds")
        for line in differ:
            print(f"  {line}")
        print(f"load average {os.getloadavg()[0]:.2f} at the end")
    finally:
        if args.keep is None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(base_repo)], capture_output=True, timeout=120, check=False)
    ratio = statistics.median(pair_ratios(sides[0].walls, sides[1].walls))
    if differ:
        return 1
    return 1 if args.max_ratio is not None and ratio > args.max_ratio else 0


if __name__ == "__main__":
    sys.exit(main())
