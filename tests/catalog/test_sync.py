"""The catalog and the collected tests must agree (the conformance-suite pattern).

Coverage comes from a real ``pytest --collect-only`` of tests/claims, so it sees
exactly the markers pytest applies.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.claim_tests import collect_claim_tests

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def coverage():
    data, note = collect_claim_tests(TESTS)
    assert data is not None, note
    return data


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_every_testable_claim_has_a_test(coverage, catalog):
    missing = [c.id for c in catalog if c.testable and not coverage.get(c.id)]
    assert missing == [], f"testable claims without a test: {', '.join(missing)}"


def test_every_claim_marker_names_a_catalog_id(coverage, catalog):
    unknown = sorted(set(coverage) - catalog.ids)
    assert unknown == [], f"tests name unknown claim ids: {', '.join(unknown)}"


def test_untestable_claims_have_no_tests(coverage, catalog):
    tested = [c.id for c in catalog if not c.testable and coverage.get(c.id)]
    assert tested == []


def test_every_listed_tier_has_a_test_in_that_tier(coverage, catalog):
    gaps = []
    for claim in catalog:
        if not claim.testable:
            continue
        covered = {t for test in coverage.get(claim.id, []) for t in test["tiers"]}
        for tier in claim.tiers:
            if tier not in covered:
                gaps.append(f"{claim.id}:{tier}")
    assert gaps == [], f"catalog tiers with no test in that tier: {', '.join(gaps)}"
