"""Before a claim test runs: its check, then whether it can run here at all.

:func:`prepare` makes the test's :class:`~claims.check.Check`, ends it as "not
applicable" when a claim is about another machine profile, and as "not run"
when a tier's prerequisite is missing (:mod:`claims.plugin.tiers`).
:func:`require_live` is the one place where, in certification mode
(``--claims-require-live``), a "not run" (from setup or from the test body) becomes a
failure instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from claims.check import Check
from claims.plugin.keys import CATALOG, CHECK, CONCLUSION, ENDING, PROFILE, TIERS_KEY
from claims.plugin.markers import claim_ids, item_tiers
from claims.plugin.options import Settings
from claims.plugin.outcomes import NotRun, RequiredButNotRun, not_applicable, not_run
from claims.plugin.source import declared_source
from claims.tiers import TIERS

__all__ = ["prepare", "require_live"]


@contextmanager
def require_live(settings: Settings) -> Iterator[None]:
    """Under ``--claims-require-live`` a check that is not run fails, naming what was missing."""
    try:
        yield
    except NotRun as exc:
        if settings.require_live:
            raise RequiredButNotRun(
                f"--claims-require-live: not run: {exc.msg}", pytrace=False
            ) from None
        raise


def prepare(item: pytest.Item) -> None:
    """Set up the claim test's check and end it early if it cannot run here."""
    # A rerun of the same item (claims audit) starts without the last run's conclusion
    # and ending.
    if CONCLUSION in item.stash:
        del item.stash[CONCLUSION]
    if ENDING in item.stash:
        del item.stash[ENDING]
    tiers = item_tiers(item)
    check = _new_check(item, tiers)
    if check is not None:
        _check_profile(item.config, check)
    tier_status = item.config.stash[TIERS_KEY]
    for tier in tiers:
        status = tier_status.status(tier)
        if not status.available:
            not_run(status.reason or f"{tier} tier unavailable")


def _new_check(item: pytest.Item, tiers: list[str]) -> Check | None:
    """The evidence recorder of a claim test (None for a test of no claim)."""
    ids = claim_ids(item)
    if not ids:
        return None
    config = item.config
    catalog = config.stash[CATALOG]
    check = Check(
        claims=tuple(catalog.get(cid) for cid in ids),
        nodeid=item.nodeid,
        source=declared_source(item, live=any(TIERS.is_live(t) for t in tiers)),
        profile=config.stash[PROFILE],
        catalog=catalog,
    )
    item.stash[CHECK] = check
    return check


def _check_profile(config: pytest.Config, check: Check) -> None:
    """Not applicable: a claim about another machine profile than this one."""
    profile = config.stash[PROFILE]
    for claim in check.claims:
        if claim.profile and claim.profile != profile:
            not_applicable(
                f"{claim.id} is about the {claim.profile} profile; this machine is "
                f"{profile} (override with --claims-profile)",
                scope={"profile": claim.profile},
            )
