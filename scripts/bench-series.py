"""Time the suite's main commands as the series grows: is each linear in the documents?

Usage: python scripts/bench-series.py [--sizes 6 12 24 48] [--runs 3]
           [--commands pytest coverage audit] [--audit-document DOC | --audit-claim ID ...]
           [--claims-documents DIR] [--keep DIR] [--root DIR]

For each size, scripts/grow-series.py writes a grown copy of the checkout (the
catalog's documents copied under new ids until there are that many) into a temporary
folder, and each command is run there, by this interpreter, with the copy's own
``claims`` first on the path, ``--runs`` rounds of every size in turn (wall clock,
whole process, as a user waits for it):

* ``pytest``: ``python -m pytest -m offline -p no:cacheprovider -q``, the repeated
  offline certification; after it, the run's evidence is read back and each copy's
  claims must have their original's verdicts (the "verdicts" column);
* ``coverage``: ``python -m claims coverage --claims-documents DIR`` (it needs the
  documents: ``--claims-documents`` or ``$CLAIMS_DOCUMENTS``, else it is not run);
* ``audit``: ``python -m claims audit --force`` into a temporary result. A full audit
  takes minutes at 6 documents and hours at 48 on two cores: ``--audit-document W5``
  audits that document and all its copies (a subset that grows with the series),
  ``--audit-claim ID`` one claim and its copies.

It prints a markdown table: per size the documents and claims, each command's median
and best seconds and the median ratio of its runs to the previous size's in the same
round. Doubling the
documents should at most double each time, plus a fixed start-up (issue 51,
docs/self-measurement.md). The machine's load is printed before and after: on a
shared machine quote medians, and rerun a size whose best and median are far apart.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("pytest", "coverage", "audit")
SIZES = (6, 12, 24, 48)
# Exit statuses that are an answer, not a failure of the command: pytest 0 (a run with
# only passes, skips and expected failures), coverage 0, audit 0 or 1 (1: it found an
# insensitive figure, which is its verdict on the checkout, timed like any other).
ANSWERS = {"pytest": {0}, "coverage": {0}, "audit": {0, 1}}


def load_generator(root: Path = ROOT) -> ModuleType:
    """scripts/grow-series.py as a module (its name has a hyphen: no plain import)."""
    path = root / "scripts" / "grow-series.py"
    spec = importlib.util.spec_from_file_location("grow_series", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"bench-series: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    # dataclasses look their module up in sys.modules while the module is executed.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def child_env(repo: Path) -> dict[str, str]:
    """The environment of a command run in a grown copy: its own ``claims`` and fixtures
    (a ``$CLAIMS_FIXTURES`` inherited from a test session would name another checkout),
    and no documents but those coverage is given: the offline run is timed as a user
    repeats it, without them, and ``$CLAIMS_DOCUMENTS`` would name seeds without the
    copies' copies of them."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAIMS_FIXTURES", "CLAIMS_DOCUMENTS")}
    return {**env, "PYTHONPATH": str(repo)}


def catalog_ids(repo: Path) -> dict[str, list[str]]:
    """Document id -> its claim ids, read from the copy's catalog files."""
    import tomllib

    out: dict[str, list[str]] = {}
    for path in sorted((repo / "claims" / "catalog").glob("*.toml")):
        if not path.name.endswith(".anchors.toml"):
            data = tomllib.loads(path.read_text("utf-8"))
            out[data["document"]["id"]] = [c["id"] for c in data.get("claim", [])]
    return out


def copies_of(doc: str, docs: dict[str, list[str]]) -> list[str]:
    """``doc`` and its copies (``W1``, ``W1X2``, ``W1X3``...), in the catalog."""
    return [d for d in docs if d == doc or (d.startswith(f"{doc}X") and d[len(doc) + 1:].isdigit())]


def audit_claims(repo: Path, document: str | None, claims: list[str]) -> list[str]:
    """The claims the audit is restricted to in ``repo``: every claim of ``document`` and
    of its copies, and each of ``claims`` with its copies (empty: the whole catalog)."""
    docs = catalog_ids(repo)
    picked: list[str] = []
    if document is not None:
        found = copies_of(document, docs)
        if not found:
            raise SystemExit(f"bench-series: no document {document!r} in {repo}")
        picked += [c for d in found for c in docs[d]]
    for claim in claims:
        doc, _, rest = claim.partition("-")
        found = [f"{d}-{rest}" for d in copies_of(doc, docs) if f"{d}-{rest}" in docs[d]]
        if not found:
            raise SystemExit(f"bench-series: no claim {claim!r} in {repo}")
        picked += found
    return picked


def command(name: str, repo: Path, documents: Path | None, audit: list[str],
            scratch: Path) -> list[str]:
    py = sys.executable
    if name == "pytest":
        return [py, "-m", "pytest", "-m", "offline", "-p", "no:cacheprovider", "-q"]
    if name == "coverage":
        # The grown documents folder: the seeds and the copies' copies of them.
        return [py, "-m", "claims", "coverage", "--claims-documents",
                str(repo / "documents")]
    return [py, "-m", "claims", "audit", "--force", "-o", str(scratch / "audit.json"),
            *(a for claim in audit for a in ("--claim", claim))]


@dataclass
class Timing:
    """One command at one size: each run's wall seconds, or why it failed."""

    seconds: list[float] = field(default_factory=list)
    failed: str | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def time_once(timing: Timing, argv: list[str], repo: Path, answers: set[int],
              timeout: float) -> None:
    """Run a command once in ``repo`` and add its wall seconds to ``timing`` (or why it
    failed; a failed command is not run again)."""
    if timing.failed:
        return
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, cwd=repo, env=child_env(repo), capture_output=True,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        timing.failed = f"over {timeout:.0f} s"
        return
    elapsed = time.perf_counter() - start
    if proc.returncode not in answers:
        tail = (proc.stdout + proc.stderr).strip()[-1500:]
        timing.failed = f"exit {proc.returncode}"
        print(f"  {' '.join(argv[1:5])}: exit {proc.returncode}\n{tail}", file=sys.stderr)
        return
    timing.seconds.append(elapsed)


def verdicts_agree(repo: Path) -> str:
    """Whether each copy's claims got their original's verdicts in the run's evidence."""
    path = repo / "reports" / "evidence.json"
    try:
        evidence: dict[str, Any] = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        return f"no evidence ({exc})"
    verdict = {c["id"]: c.get("verdict") for c in evidence.get("claims", [])}
    differ = []
    for claim, got in verdict.items():
        doc, _, rest = claim.partition("-")
        original, sep, k = doc.rpartition("X")
        if sep and original and k.isdigit() and verdict.get(f"{original}-{rest}") != got:
            differ.append(claim)
    return "same" if not differ else f"{len(differ)} differ ({', '.join(differ[:3])})"


def cell(now: Timing | None, before: Timing | None) -> tuple[str, str]:
    """A command's "median (best)" seconds, and the median of its runs' ratios to the
    previous size's runs of the same round (the sizes are run in turn, round after
    round, so a machine that slows down for a while slows both sides of a ratio)."""
    if now is None:
        return "not run", ""
    if now.failed or not now.seconds:
        return f"failed: {now.failed}", ""
    text = f"{now.median:.1f} ({min(now.seconds):.1f})"
    if before is None or before.failed or not before.seconds:
        return text, ""
    ratios = [a / b for a, b in zip(now.seconds, before.seconds, strict=False)]
    return text, f"{statistics.median(ratios):.2f}"


def table(rows: list[tuple[int, int, dict[str, Timing], str]], names: list[str]) -> str:
    head = ["documents", "claims"]
    for name in names:
        head += [f"{name} s, median (best)", "x prev"]
    lines = ["| " + " | ".join([*head, "verdicts of the copies"]) + " |",
             "|" + " --- |" * (len(head) + 1)]
    previous: dict[str, Timing] = {}
    for size, claims, timings, verdicts in rows:
        cells = [str(size), str(claims)]
        for name in names:
            cells += list(cell(timings.get(name), previous.get(name)))
        lines.append("| " + " | ".join([*cells, verdicts]) + " |")
        previous = timings
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES),
                        help="documents in the grown catalog (multiples of its own count)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command per size")
    parser.add_argument("--commands", nargs="+", choices=COMMANDS, default=list(COMMANDS))
    parser.add_argument("--audit-document", metavar="DOC",
                        help="audit only this document and its copies")
    parser.add_argument("--audit-claim", metavar="ID", action="append", default=[],
                        help="audit only this claim and its copies (repeatable)")
    parser.add_argument("--claims-documents", type=Path,
                        default=os.environ.get("CLAIMS_DOCUMENTS") or None,
                        help="the source documents, for coverage (default: $CLAIMS_DOCUMENTS)")
    parser.add_argument("--timeout", type=float, default=7200,
                        help="seconds one run of one command may take")
    parser.add_argument("--keep", type=Path, help="grow into this folder and keep the copies")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to grow")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    names = list(args.commands)
    if "coverage" in names and args.claims_documents is None:
        print("bench-series: no documents (--claims-documents or $CLAIMS_DOCUMENTS): "
              "coverage is not run", file=sys.stderr)
        names.remove("coverage")
    grow = load_generator(args.root)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
          f"(1 min) at the start; {args.runs} runs per command", file=sys.stderr)
    rows: list[tuple[int, int, dict[str, Timing], str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-series-") as tmp:
        base = args.keep or Path(tmp)
        # Every size is grown before any is timed: all from the checkout as it is now,
        # whatever is edited in it while the benchmark runs.
        for size in args.sizes:
            try:
                grow.grow(args.root.resolve(), base / f"series-{size}", size,
                          args.claims_documents)
            except grow.GrowError as exc:
                print(f"bench-series: {exc}", file=sys.stderr)
                return 1
        repos = {size: base / f"series-{size}" for size in args.sizes}
        audits = {size: audit_claims(repo, args.audit_document, args.audit_claim)
                  for size, repo in repos.items()}
        timings = {size: {name: Timing() for name in names} for size in args.sizes}
        verdicts = dict.fromkeys(args.sizes, "not run")
        # Round after round, each size in turn (A B A B ...): the machine's drift (a
        # neighbour's job starting) falls on every size alike, not on the last one.
        for name in names:
            for round_ in range(1, args.runs + 1):
                for size, repo in repos.items():
                    scratch = Path(tmp) / f"scratch-{size}"
                    scratch.mkdir(exist_ok=True)
                    argv_ = command(name, repo, args.claims_documents, audits[size], scratch)
                    print(f"{size} documents: {name}, run {round_} of {args.runs}",
                          file=sys.stderr)
                    time_once(timings[size][name], argv_, repo, ANSWERS[name], args.timeout)
                    if name == "pytest" and round_ == args.runs \
                            and not timings[size][name].failed:
                        verdicts[size] = verdicts_agree(repo)
        for size, repo in repos.items():
            claims = sum(len(c) for c in catalog_ids(repo).values())
            rows.append((size, claims, timings[size], verdicts[size]))
    print(f"machine: load average {os.getloadavg()[0]:.2f} (1 min) at the end",
          file=sys.stderr)
    if args.audit_document or args.audit_claim:
        print(f"audit: {args.audit_document or ''} {' '.join(args.audit_claim)} and copies")
    print(table(rows, names))
    failed = any(t.failed for _, _, ts, _ in rows for t in ts.values())
    differ = any(v not in ("same", "not run") for *_, v in rows)
    return 1 if failed or differ else 0


if __name__ == "__main__":
    sys.exit(main())
