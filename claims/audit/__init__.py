"""The mutation audit: does every stated figure change its claim's verdict?

``python -m claims audit`` perturbs, one at a time, every stated figure of
every claim the offline tier decides, reruns that claim's offline tests (and
any test that computed with the figure, :meth:`claims.check.Check.premise`)
in-process, and reports per figure whether its claim's verdict changed. Only
that counts as sensitive: a check that changes while the claim's verdict stays,
or another claim that moves, is recorded beside the figure, not counted
(:mod:`claims.audit.judge`). A figure that cannot change its verdict is listed
with the reason the baseline run's own records give (stated for another model,
judged only live, its offline check did not run here...); a figure compared by
a check that still did not notice is a defect of the suite, and the audit
exits 1 naming it.

What reruns per figure and why a figure may be excused is planned in
:mod:`claims.audit.plan`; the stages that run it in :mod:`claims.audit.run`
(on the session of :mod:`claims.audit.runner`). How each figure is perturbed
is in :mod:`claims.audit.mutate`: a figure that holds is moved until no
recorded measurement agrees with it (upwards, then, for one-sided bounds,
downwards); a figure a known erratum lists is corrected to what was measured,
which must fail strictly.

Every figure compared offline is then slipped the other ways a transcriber slips
(its unit, its form, its bound's direction, its scope): each slip that leaves
the verdict where it was is listed with why. The summary's denominator is every
judged figure (every stated figure of every testable claim); a figure of a claim
decided only live is listed as such, not left out.

The catalog's words are slipped too (:mod:`claims.audit.words`): each relation word of
a statement turned around, each number an erratum's explanation computes with or
quotes changed; the wording check (:mod:`claims.catalog.wording`) must object.

Transcribed values (fixtures/recorded/) are audited by
:mod:`claims.text.transcribed`: each mistake of :mod:`claims.text.typos` (a
digit changed, swapped, dropped or added, 10x, the sign, GB for GiB) must fail
the anchored transcription check.
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from claims.audit.data import Reads, reading
from claims.audit.plan import FigureResult
from claims.audit.run import audit_figures
from claims.audit.runner import AuditSession, Group
from claims.audit.words import audit_words
from claims.evidence import now_iso
from claims.inputs.audit_digest import audit_digest, documents_digest, platform_of
from claims.inputs.audit_result import catalog_digest
from claims.probes.files.artifacts import cache_dir
from claims.records import PendingCheck
from claims.text.reads import READ, ReadsError, load_reads, read_values
from claims.text.transcribed import audit_transcriptions, transcribed_documents
from claims.tiers import OFFLINE

__all__ = ["FigureResult", "read_record", "record_reads", "run_audit", "slip_counts",
           "summary_line", "values_read"]


def summary_line(sensitive: int, total: int) -> str:
    return f"{sensitive} of {total} judged figures change their verdict when perturbed"


def slip_counts(results: Sequence[FigureResult]) -> dict[str, dict[str, int]]:
    """Per kind of slip (unit, form, bound direction, scope): how many tried, how many
    moved their claim's verdict, and of those how many its anchor caught (the run's
    input check failed the claim's tests) rather than its checks."""
    counts: dict[str, dict[str, int]] = {}
    for result in results:
        for slip in result.slips:
            entry = counts.setdefault(slip["kind"], {"cases": 0, "caught": 0, "by_anchor": 0})
            entry["cases"] += 1
            entry["caught"] += bool(slip["caught"])
            entry["by_anchor"] += slip.get("by") == "anchor"
    return counts


def _compared(records: Mapping[str, PendingCheck]) -> set[tuple[str, str]]:
    """(claim, figure name) of every measurement the run's checks made."""
    out: set[tuple[str, str]] = set()
    for rec in records.values():
        for m in rec.get("measurements", []):
            owners = [m["claim"]] if m.get("claim") else rec.get("claims", [])
            out |= {(claim, m["name"]) for claim in owners}
    return out


def values_read(root: Path, reads: Reads, records: Mapping[str, PendingCheck]
                ) -> dict[str, list[str]]:
    """Document -> the transcribed value paths some claim test read in a run noted by
    ``reads``, whose check records are ``records`` (claims.text.reads.read_values), for
    every transcribed document."""
    datums: dict[str, set[str]] = {}
    for data in reads.by_test.values():
        for doc, path in data:
            datums.setdefault(doc, set()).add(path)
    opened: set[str] = set()
    for files in reads.files_by_test.values():
        for name in files:
            where = Path(name)
            if where.is_relative_to(root):
                opened.add(where.relative_to(root).as_posix())
    compared = _compared(records)
    return {doc: read_values(root, doc, datums.get(doc, ()), opened, compared)
            for doc in transcribed_documents(root)}


def read_record(root: Path, read: dict[str, list[str]]) -> dict[str, Any]:
    """How the kept record of what the claim tests read (claims.text.reads) compares with
    what a run read: ``stale`` lists each value read but not in the record and each value
    in the record that no test read (empty: the record is current)."""
    try:
        kept = load_reads(root)
    except ReadsError as exc:
        return {"file": str(READ), "stale": [str(exc)]}
    stale = []
    for doc in sorted(set(read) | set(kept)):
        now, then = set(read.get(doc, ())), set(kept.get(doc, ()))
        stale += [f"{doc} {p}: read, but not in {READ}" for p in sorted(now - then)]
        stale += [f"{doc} {p}: in {READ}, but no claim test reads it" for p in sorted(then - now)]
    return {"file": str(READ), "stale": stale}


def record_reads(tests: Path | str = "tests", pytest_args: Sequence[str] = ()
                 ) -> dict[str, list[str]]:
    """Run the offline claim tests once, as the audit's baseline runs them, and return which
    transcribed values they read (what scripts/record-reads.py keeps)."""
    root = Path(tests).resolve().parent
    session = AuditSession(None)
    reads = Reads()

    group = Group(items=[])

    def baseline(s: AuditSession) -> None:
        s.reads = reads
        group.items = list(s.items)
        with reading(reads):
            s.run([group])
        s.reads = None

    session.planner = baseline
    _run_session(session, tests, pytest_args)
    return values_read(root, reads, group.records)


def _run_session(session: AuditSession, tests: Path | str, pytest_args: Sequence[str],
                 *, quiet: bool = True) -> None:
    """One in-process pytest session of the offline claim tests, driven by ``session``'s
    planner; RuntimeError (with the end of its output) if it did not get as far as running."""
    import pytest

    # The claim tests are all under tests/claims: collecting the suite's own tests too,
    # only for -m offline to deselect them, cost seconds per audit (issue 51).
    claim_tests = Path(tests) / "claims"
    args = [
        str(claim_tests if claim_tests.is_dir() else tests),
        "-m",
        OFFLINE.name,
        "-p",
        "no:cacheprovider",
        "--no-claims-report",
        "-q",
        "-p",
        "no:randomly",
        # A failed rerun's traceback is never shown, yet pytest's long style writes out
        # every frame's arguments: the session catalog, whole, for each perturbed figure
        # (a cost that grew with the square of the series). Its messages come from the
        # exception (claims.plugin.check_record), which the short style keeps.
        "--tb=short",
        *pytest_args,
    ]
    # The cache folder first (CacheUnwritable, which the CLI prints as one line): the
    # session would stop on it with a usage error that says less from in here.
    cache_dir()
    out = io.StringIO()
    with contextlib.redirect_stdout(out) if quiet else contextlib.nullcontext():
        code = pytest.main(args, plugins=[session])
    if session.session is None:
        tail = out.getvalue()[-2000:]
        raise RuntimeError(f"the audit's pytest session did not run (exit {code}): {tail}")


def run_audit(
    claims: Sequence[str] | None = None,
    *,
    tests: Path | str = "tests",
    pytest_args: Sequence[str] = (),
    quiet: bool = True,
    documents: Path | None = None,
) -> dict[str, Any]:
    """Run the audit in-process; the result is JSON-ready (see ``claims audit --json``)."""
    wanted = set(claims) if claims else None
    root = Path(tests).resolve().parent
    # Taken before the run: a file edited while the audit runs makes the kept result
    # not match the checkout afterwards, so the next audit reruns.
    digest = audit_digest(root)
    session = AuditSession(wanted)
    results: list[FigureResult] = []
    session.planner = lambda s: results.extend(audit_figures(s))
    _run_session(session, tests, pytest_args, quiet=quiet)

    transcriptions = audit_transcriptions(root, documents)
    # What the baseline read against the kept record (only a whole audit ran every test).
    reads = session.baseline_reads
    record = (read_record(root, values_read(root, reads, session.baseline_records))
              if reads is not None and wanted is None else None)
    sensitive = sum(r.sensitive for r in results)

    return {
        "finished": now_iso(),
        # What the result was made on (claims.inputs.audit_digest): a later `claims audit`
        # reuses it only where all three are the same, and the report shows it as the
        # checkout's only where the digest is.
        "digest": digest,
        # The interpreter and machine it ran on: not in the digest (the sources are),
        # but named wherever the result is shown (claims.inputs.audit_result.ran_on).
        **platform_of(),
        "documents": documents_digest(documents),
        "selected": sorted(wanted) if wanted else None,
        "catalog": catalog_digest(session.catalog),
        "partial": wanted is not None,
        "claims": sorted({r.claim for r in results}),
        # Every stated figure of every testable claim: the denominator is what the suite
        # judges, not what the audit knows how to perturb.
        "total": len(results),
        "audited": sum(r.how is not None for r in results),
        "sensitive": sensitive,
        "explained": sum(not r.sensitive and r.reason is not None for r in results),
        "defects": [asdict(r) for r in results if r.defect],
        "summary": summary_line(sensitive, len(results)),
        # What was perturbed, by kind (FigureResult.how): the last perturbation tried.
        "perturbed": dict(Counter(r.how for r in results if r.how)),
        "slips": slip_counts(results),
        # The statements' relation words and the explanations' numbers, slipped: caught
        # by the wording check, no test rerun (claims.audit.words).
        "words": audit_words(c for c in session.catalog if wanted is None or c.id in wanted),
        "figures": [asdict(r) for r in results],
        "transcriptions": transcriptions,
        "recorded_data": session.recorded_data or {},
        "read_record": record,
    }
