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
:mod:`claims.inputs.transcribed`: each mistake of :mod:`claims.inputs.typos` (a
digit changed, swapped, dropped or added, 10x, the sign, GB for GiB) must fail
the anchored transcription check.
"""

from __future__ import annotations

import contextlib
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from claims.audit.plan import FigureResult
from claims.audit.run import audit_figures
from claims.audit.runner import AuditSession
from claims.audit.words import audit_words
from claims.evidence import now_iso
from claims.inputs.audit_digest import audit_digest, documents_digest, platform_of
from claims.inputs.audit_result import catalog_digest
from claims.inputs.transcribed import audit_transcriptions
from claims.probes.files.artifacts import cache_dir
from claims.tiers import OFFLINE

__all__ = ["FigureResult", "run_audit", "slip_counts", "summary_line"]


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


def run_audit(
    claims: Sequence[str] | None = None,
    *,
    tests: Path | str = "tests",
    pytest_args: Sequence[str] = (),
    quiet: bool = True,
    documents: Path | None = None,
) -> dict[str, Any]:
    """Run the audit in-process; the result is JSON-ready (see ``claims audit --json``)."""
    import pytest

    wanted = set(claims) if claims else None
    root = Path(tests).resolve().parent
    # Taken before the run: a file edited while the audit runs makes the kept result
    # not match the checkout afterwards, so the next audit reruns.
    digest = audit_digest(root)
    session = AuditSession(wanted)
    results: list[FigureResult] = []
    session.planner = lambda s: results.extend(audit_figures(s))
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

    transcriptions = audit_transcriptions(root, documents)
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
    }
