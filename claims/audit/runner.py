"""The audit's pytest plugin: one session, the offline claim tests rerun in-process.

Collection happens once. The baseline runs every selected offline claim test;
then each stated figure is perturbed in the run's catalog (the object the
``catalog`` fixture and every :class:`~claims.check.Check` read) and the tests
of its claim, plus any test that read it as a premise, run again with
``runtestprotocol``. Reports are not logged (``log=False``), so the terminal,
the evidence writer and the HTML report see none of these reruns; the check
records travel in each report's ``user_properties`` as in a normal run.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from claims.audit.data import Datum, Reads, replaced
from claims.catalog import Catalog
from claims.catalog.records import StatedFigure
from claims.plugin.check_record import after_teardown
from claims.plugin.keys import CATALOG, PROBLEM, PROFILE, RECORD_KEY
from claims.plugin.markers import claim_ids, item_tiers
from claims.plugin.pytest_private import run_unlogged
from claims.records import PendingCheck
from claims.text.anchors import FigureAnchor, load_anchors, printed_disagreement
from claims.tiers import OFFLINE

Records = dict[str, PendingCheck]  # nodeid -> the check record of one run of that test


@contextlib.contextmanager
def swapped(catalog: Catalog, claim_id: str, figure: StatedFigure) -> Iterator[None]:
    """The catalog with one figure of one claim replaced, for the duration of a rerun.

    The catalog is a frozen record shared by the whole session (the ``catalog``
    fixture is session-scoped), so the swap is made on that very object and
    undone afterwards; a copy would go unseen by the tests.
    """
    original = catalog.documents
    # Only the claim's own document is made again: rebuilding every document for each
    # swap grew with the square of the series (issue 51).
    home = catalog.get(claim_id).document
    documents = tuple(
        dataclasses.replace(
            doc,
            claims=tuple(
                dataclasses.replace(
                    c,
                    stated=tuple(figure if f.name == figure.name else f for f in c.stated),
                )
                if c.id == claim_id
                else c
                for c in doc.claims
            ),
        )
        if doc.id == home
        else doc
        for doc in original
    )
    object.__setattr__(catalog, "documents", documents)
    try:
        yield
    finally:
        object.__setattr__(catalog, "documents", original)


def _record(reports: Sequence[pytest.TestReport]) -> PendingCheck | None:
    """The check record of one test run, as the evidence writer would keep it."""
    found: PendingCheck | None = None
    for report in reports:
        for key, value in report.user_properties:
            if key != RECORD_KEY:
                continue
            # As in the evidence writer: pytest types the value as object; under RECORD_KEY
            # it is check_record's PendingCheck.
            rec = cast(PendingCheck, value).copy()
            if rec.get("when") == "teardown":
                if found is not None:
                    after_teardown(found, rec)
                continue
            found = rec
    return found


@dataclasses.dataclass
class Group:
    """Tests to rerun with one figure perturbed (``figure`` None: the baseline)."""

    items: list[pytest.Item]
    claim: str | None = None
    figure: StatedFigure | None = None
    records: Records = dataclasses.field(default_factory=dict)
    # Or one recorded value changed (claims.audit.data): where, and what it reads instead.
    datum: Datum | None = None
    value: Any = None
    # Run as a run over the edited catalog would be, input checks included: a figure that
    # no longer says what its anchor pins (claims.text.anchors) fails the claim tests
    # of its document before they measure. For a transcriber's slips; a value moved to
    # see whether a check reads it is judged on the checks alone.
    pinned: bool = False
    pin: str | None = None  # the anchor's objection, when it made one


class AuditSession:
    """The pytest plugin: collects once, then runs groups of tests on demand."""

    def __init__(self, wanted: set[str] | None) -> None:
        self.wanted = wanted
        self.session: pytest.Session | None = None
        self.items: list[pytest.Item] = []
        self.by_claim: dict[str, list[pytest.Item]] = {}
        self.planner: Any = None  # set by claims.audit.run_audit before the session runs
        self.reads: Reads | None = None  # while set, notes which recorded data each test reads
        # What the baseline run read (claims.text.reads compares the kept record with it).
        self.baseline_reads: Reads | None = None
        self.baseline_records: Records = {}
        # What changing each recorded value a test read did (claims.audit.run).
        self.recorded_data: dict[str, Any] | None = None
        self._anchors: dict[tuple[str, str], FigureAnchor] | None = None

    def anchor_of(self, claim_id: str, figure: str) -> FigureAnchor | None:
        """Where the document prints a figure of the bundled catalog (None: not anchored)."""
        if self._anchors is None:
            self._anchors = {
                a.key: a for doc in self.catalog.documents for a in load_anchors(doc.id)
            }
        return self._anchors.get((claim_id, figure))

    def pin_problem(self, claim_id: str, figure: StatedFigure) -> str | None:
        """What the run's anchor check would say of the catalog with ``figure`` in place, in
        the words it fails a claim test with (claims.plugin.inputs); None: nothing."""
        anchor = self.anchor_of(claim_id, figure.name)
        why = None if anchor is None else printed_disagreement(figure, anchor)
        if anchor is None or why is None:
            return None
        return (f"transcribed fixtures: {claim_id} figure {figure.name!r} no longer says what "
                f"the document prints at {anchor.seed}:{anchor.line}: {why}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        if session.testsfailed and not session.config.option.continue_on_collection_errors:
            raise session.Interrupted("collection errors: the audit cannot run")
        self.session = session
        for item in session.items:
            ids = claim_ids(item)
            if not ids or OFFLINE.name not in item_tiers(item):
                continue
            if self.wanted is not None and not (self.wanted & set(ids)):
                continue
            self.items.append(item)
            for cid in ids:
                self.by_claim.setdefault(cid, []).append(item)
        assert self.planner is not None
        self.planner(self)
        return True

    @property
    def catalog(self) -> Catalog:
        assert self.session is not None
        return self.session.config.stash[CATALOG]

    @property
    def root(self) -> Path:
        assert self.session is not None
        return Path(self.session.config.rootpath)

    @property
    def profile(self) -> str:
        """The machine profile the run judges for (what a figure's scope is held to)."""
        assert self.session is not None
        return self.session.config.stash.get(PROFILE, "generic")

    def run(self, groups: Sequence[Group]) -> None:
        """Run the groups in turn, each with its figure swapped in; records into each group."""
        plan = [(g, item) for g in groups for item in g.items]
        for index, (group, item) in enumerate(plan):
            nextitem: Any = plan[index + 1][1] if index + 1 < len(plan) else None
            if nextitem is item:
                # The same test runs again next (another figure of a one-test claim):
                # tear down its own fixtures but keep its module's and the session's.
                nextitem = _Parents(item)
            swap: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
            if group.claim is not None and group.figure is not None:
                swap = swapped(self.catalog, group.claim, group.figure)
                if group.pinned:
                    group.pin = self.pin_problem(group.claim, group.figure)
                    if group.pin is not None:
                        swap = _with_problem(swap, item, group.claim, group.pin)
            elif group.datum is not None:
                swap = replaced(group.datum, group.value)
            if self.reads is not None:
                self.reads.current = item.nodeid
            with swap:
                reports = run_unlogged(item, nextitem)
            rec = _record(reports)
            if rec is not None:
                group.records[item.nodeid] = rec


@contextlib.contextmanager
def _with_problem(
    swap: contextlib.AbstractContextManager[None], item: pytest.Item, claim_id: str,
    problem: str,
) -> Iterator[None]:
    """``swap``, with the input problem a run would find set on ``item`` when it is a test
    of the figure's document (as claims.plugin.collection sets it), then taken off."""
    doc = claim_id.split("-", 1)[0]
    mine = any(cid.split("-", 1)[0] == doc for cid in claim_ids(item))
    before = item.stash.get(PROBLEM, None)
    with swap:
        if mine and before is None:
            item.stash[PROBLEM] = problem
        try:
            yield
        finally:
            if mine and before is None:
                del item.stash[PROBLEM]


class _Parents:
    """Stands for "the next test shares every collector of this one, but not the test".

    pytest's teardown keeps what the next item's ``listchain()`` shares; naming
    the item itself would keep its function-scoped fixtures and skip its setup.
    """

    def __init__(self, item: pytest.Item) -> None:
        self.chain = item.listchain()[:-1]

    def listchain(self) -> list[Any]:
        return list(self.chain)
