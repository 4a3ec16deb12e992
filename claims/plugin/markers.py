"""The suite's markers: one per tier (from :mod:`claims.tiers`) and ``claim(id)``.

A claim test carries ``@pytest.mark.claim(ID)`` and at least one tier marker. The
tier markers are for claim tests only (``-m offline`` is a certification, not the
suite's own test run); the one exception is a test marked ``claims_selfcheck``, a
check of the suite that a certification of that tier needs.
these helpers read them off an item the same way everywhere (collection, the
hooks around each test, the check record, the audit's reruns).
"""

from __future__ import annotations

import pytest

from claims.tiers import TIERS

__all__ = ["CLAIM_MARKER", "claim_ids", "item_tiers", "register_markers"]

SELFCHECK_MARKER = (
    "claims_selfcheck: a check of the suite itself that a certification of its tier needs "
    "(e.g. the user's server was left unchanged); the one kind of test of no claim that "
    "may carry a tier marker"
)
CLAIM_MARKER = (
    "claim(id, source=None): links the test to a catalog claim id (select with --claim ID); "
    "source= declares where its evidence comes from: recorded, fixture or live"
)


def register_markers(config: pytest.Config) -> None:
    """Register every tier's marker with its help text, then ``claim``."""
    for tier in TIERS:
        config.addinivalue_line("markers", f"{tier.name}: {tier.marker}")
    config.addinivalue_line("markers", CLAIM_MARKER)
    config.addinivalue_line("markers", SELFCHECK_MARKER)


def claim_ids(item: pytest.Item) -> list[str]:
    """The claim ids of the test's ``claim`` markers, in order, each once."""
    ids: list[str] = []
    for mark in item.iter_markers("claim"):
        ids.extend(str(a) for a in mark.args)
    return list(dict.fromkeys(ids))


def item_tiers(item: pytest.Item) -> list[str]:
    """The tiers the test is marked with, in the table's order."""
    return [t for t in TIERS.names() if item.get_closest_marker(t) is not None]
