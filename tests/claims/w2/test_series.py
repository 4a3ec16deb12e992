"""W2 claims that Week 1 prints too, each judged as one fact.

The post's figure is the claim's stated figure (anchored where the post prints it); the
test reads Week 1's figure from the catalog (W1-SMI-FIELDS, anchored in Week 1's post)
and Week 2's own lab notes, never a copy of either.
"""

from __future__ import annotations

import re

import pytest

from claims.testing import lab
from claims.testkit import Check

pytestmark = pytest.mark.offline

WEEK2_REPORT = "week-02-first-local-model/system-report.md"
# The report's `nvidia-smi --query-gpu=name,driver_version --format=csv,noheader` output.
SMI_QUERY = re.compile(r"^\$ nvidia-smi --query-gpu=name,driver_version.*\n(?P<name>[^,\n]+),",
                       re.MULTILINE)


@pytest.mark.claim("W2-GPU-IS-WEEK1S", source="recorded")
def test_gpu_is_week1s(check: Check) -> None:
    check.against("GPU", check.premise_text("GPU name", claim="W1-SMI-FIELDS"),
                  note="Week 1's nvidia-smi (W1-SMI-FIELDS)")
    report = (lab.lab_dir() / WEEK2_REPORT).read_text("utf-8")
    m = SMI_QUERY.search(report)
    check.fact("lab evidence", f"{lab.PROVENANCE}: {WEEK2_REPORT}")
    check.against("GPU", m["name"] if m else "no nvidia-smi name query in the report",
                  note="Week 2's lab notes, nvidia-smi --query-gpu=name")
