"""W5 claims that Week 1 prints too, each judged as one fact.

Week 5's lab record (model-run.yaml) gives the claim's stated figures (anchored there);
the test reads Week 1's figures from the catalog (W1-SMI-FIELDS, W1-UNIFIED-MEM, each
anchored in Week 1's post) and from Week 1's lab system-report.md, never a copy.
"""

from __future__ import annotations

import pytest

from claims.probes.files.lab_notes import summary_table
from claims.testing import lab
from claims.testkit import Check

pytestmark = pytest.mark.offline

WEEK1_REPORT = "week-01-environment/system-report.md"


@pytest.mark.claim("W5-MACHINE-IS-WEEK1S", source="recorded")
def test_machine_is_week1s(check: Check) -> None:
    check.against("device", check.premise_text("GPU name", claim="W1-SMI-FIELDS"),
                  note="Week 1's nvidia-smi (W1-SMI-FIELDS)")
    check.against("unified memory", check.premise("pool size", claim="W1-UNIFIED-MEM"),
                  unit="GiB", note="Week 1's pool (W1-UNIFIED-MEM)")
    check.against("driver", check.premise_text("driver version", claim="W1-SMI-FIELDS"),
                  note="Week 1's nvidia-smi (W1-SMI-FIELDS)")
    table = summary_table(lab.lab_dir() / WEEK1_REPORT)
    check.fact("lab evidence", f"{lab.PROVENANCE}: {WEEK1_REPORT}")
    check.against("driver", table.get("Driver"), note="Week 1's system report, Driver row")
    check.against("device", lab.results("W1").get("device"),
                  note="Week 1's lab results.json device")
