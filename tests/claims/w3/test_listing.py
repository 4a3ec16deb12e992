"""W3-NO-CODE decided offline from two records of the repository's file list.

The post lists the twelve files at the pinned revision (fixtures/hub's
snapshot.json, ``stated_not_printed.files``); the lab's model-inspector.py saved
the Hub's listing with sizes (fixtures/lab, Week 3 results.json). Both are asked
what the hub tier asks the live listing: is any of them code a loader could run.
"""

from __future__ import annotations

import pytest

from claims.probes.files.hf_repo import code_files, listing_from_record
from claims.testing import lab

pytestmark = pytest.mark.offline


@pytest.mark.claim("W3-NO-CODE", source="recorded")
def test_no_code_in_recorded_listings(check, qwen_snapshot) -> None:
    printed = list(qwen_snapshot.stated("files")["values"])
    code = code_files(printed)
    check.fact("post's file list", "fixtures/hub snapshot.json stated_not_printed.files "
               "(Week 3, seed 002 lines 543-549)")
    check.measure("code files among the twelve the post lists", code, holds=not code,
                  expected="none")
    results = lab.results("W3")
    listing = listing_from_record(results["files"], repo_id=results["repository"],
                                  revision=results["revision"], where="lab W3 results.json")
    check.fact("lab listing", f"{lab.PROVENANCE}: week-03-model-files/results.json files")
    lab_code = code_files(listing.names)
    check.measure("code files in the lab's recorded Hub listing", lab_code,
                  holds=not lab_code, expected="none")
    check.measure("the lab's listing names the same files as the post", sorted(listing.names),
                  holds=sorted(listing.names) == sorted(printed), expected="the post's twelve")
