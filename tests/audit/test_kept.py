"""The audit result kept with the sources (claims/audit/kept.json) is this checkout's.

A fresh clone's first certification reuses it instead of rerunning the audit (issue
51), so it must be the audit of exactly these sources: this test fails as soon as a
catalog, fixture, probe or claim test changes without the kept result being made
again, and says how. That it is also *true* (the same counts a fresh audit finds) is
tests/audit/test_audit.py's, which reruns the whole audit (scripts/test.sh, CI).
"""

from __future__ import annotations

from pathlib import Path

from claims.inputs.audit_digest import KEPT_AUDIT, audit_digest, short
from claims.inputs.audit_result import current_audit, read_audit

ROOT = Path(__file__).resolve().parents[2]
REMAKE = (f"make it again: `python -m claims audit --force -o {KEPT_AUDIT}` (CLAIMS_DOCUMENTS "
          "unset: a user's clone has no documents), then commit it")


def test_the_kept_audit_is_of_these_sources() -> None:
    kept = read_audit(ROOT / KEPT_AUDIT)
    assert isinstance(kept, dict), f"{KEPT_AUDIT}: {kept or 'missing'}; {REMAKE}"
    digest = audit_digest(ROOT)
    assert kept.get("digest") == digest, (
        f"{KEPT_AUDIT} was made on other sources (digest {short(kept.get('digest'))}, "
        f"this checkout's is {short(digest)}); {REMAKE}")
    # Reusable as a fresh clone would reuse it: of every claim, without the documents.
    assert current_audit(ROOT / KEPT_AUDIT, digest, None, None) is not None, REMAKE


def test_the_kept_audit_found_no_defect_and_says_where_it_ran() -> None:
    kept = read_audit(ROOT / KEPT_AUDIT)
    assert isinstance(kept, dict), f"{KEPT_AUDIT}: {kept or 'missing'}; {REMAKE}"
    assert kept["defects"] == [], "the kept audit lists defects: a certification would fail"
    assert kept["sensitive"] + kept["explained"] == kept["total"] >= 250
    assert isinstance(kept.get("python"), str) and isinstance(kept.get("machine"), str)
    assert kept.get("partial") is False and kept.get("documents") is None
