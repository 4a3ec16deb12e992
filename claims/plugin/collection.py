"""What the plugin does to the collected tests, before any of them runs.

* :func:`collected` – all of the below, for an active session;
* :func:`select_claims` – ``--claim ID``: keep the tests of those claims;
* :func:`guard_sockets` – a test may connect only to the hosts its tiers allow
  (loopback, the Ollama host for the ollama tier; pytest-socket enforces it);
* :func:`marker_problem` – a claim test whose markers disagree with the catalog
  (unknown id, untestable claim, a tier the claim does not list, no tier at
  all) is failed in setup with this text, and so is a test with a tier marker but
  no claim: the tier markers select claims (``-m offline`` is the offline
  certification), so the suite's own tests carry none;
* :func:`write_claim_tests` – ``--claims-claim-tests PATH`` for ``claims list``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import Catalog
from claims.evidence import write_atomic
from claims.plugin.inputs import input_problem
from claims.plugin.keys import CATALOG, INPUTS, PROBLEM, SETTINGS
from claims.plugin.markers import claim_ids, item_tiers
from claims.tiers import TIERS, TierSettings

__all__ = ["collected", "guard_sockets", "marker_problem", "select_claims", "write_claim_tests"]


def collected(config: pytest.Config, items: list[pytest.Item]) -> None:
    """What an active session does to its collected tests, before any runs."""

    settings = config.stash[SETTINGS]
    claim_tests_path = config.getoption("--claims-claim-tests")
    if claim_tests_path:
        write_claim_tests(Path(claim_tests_path), items)
    select_claims(config, items, settings.claim_ids)
    catalog = config.stash[CATALOG]
    inputs = config.stash.get(INPUTS, None)
    for item in items:
        guard_sockets(item, settings)
        problem = marker_problem(item, catalog) or input_problem(inputs, claim_ids(item))
        if problem:
            item.stash[PROBLEM] = problem


def select_claims(config: pytest.Config, items: list[pytest.Item], wanted: Iterable[str]) -> None:
    """Deselect every test that is not about one of the ``wanted`` claims (none: keep all)."""
    wanted = set(wanted)
    if not wanted:
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        (keep if wanted & set(claim_ids(item)) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def guard_sockets(item: pytest.Item, settings: TierSettings) -> None:
    """Limit the test's connections to its tiers' hosts: offline means offline."""
    hosts = TIERS.allowed_hosts(item_tiers(item), settings)
    if hosts is not None:
        item.add_marker(pytest.mark.allow_hosts(list(hosts)))


def marker_problem(item: pytest.Item, catalog: Catalog) -> str | None:
    """Why the test's claim and tier markers disagree with the catalog (None: they agree)."""
    ids = claim_ids(item)
    tiers = item_tiers(item)
    if not ids:
        if tiers and item.get_closest_marker("claims_selfcheck") is None:
            return (
                f"tier marker(s) {', '.join(tiers)} on a test of no claim: the tier markers "
                "select claims (-m offline is the offline certification); add "
                "@pytest.mark.claim(ID) or remove the marker (the suite's own tests run "
                "unmarked, in bash scripts/test.sh; a check a certification needs is marked "
                "claims_selfcheck)"
            )
        return None
    problems = []
    for cid in ids:
        if cid not in catalog:
            problems.append(f"unknown claim id {cid!r} (not in the catalog)")
            continue
        claim = catalog.get(cid)
        if not claim.testable:
            problems.append(f"claim {cid} is catalogued as untestable but has a test")
        stray = [t for t in tiers if t not in claim.tiers]
        if stray:
            problems.append(f"tier(s) {', '.join(stray)} not listed for claim {cid} in the catalog")
    if not tiers:
        problems.append(f"a claim test needs a tier marker ({TIERS.spoken()})")
    return "; ".join(problems) or None


def write_claim_tests(path: Path, items: list[pytest.Item]) -> None:
    """Every collected test's claim ids and tiers, before any deselection (for `claims list`)."""
    coverage: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        for cid in claim_ids(item):
            coverage.setdefault(cid, []).append({"nodeid": item.nodeid, "tiers": item_tiers(item)})
    write_atomic(path, json.dumps(coverage, indent=1, sort_keys=True))
