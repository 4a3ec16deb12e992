"""W3 claims that the lab's roadmap prints too, each judged as one fact.

The post's week number is the claim's stated figure (anchored where the post prints it);
the roadmap page of that week is read from the bundled lab (fixtures/lab/roadmap), and
the head counts it names are compared with W3-CONFIG's in the catalog.
"""

from __future__ import annotations

import pytest

from claims.probes.files.lab_notes import roadmap_pages, stated_head_counts
from claims.testing import lab
from claims.testkit import Check

pytestmark = pytest.mark.offline


@pytest.mark.claim("W3-WEEK13-HEAD-SPLIT", source="recorded")
def test_head_split_week_is_the_roadmaps(check: Check) -> None:
    pages = roadmap_pages(lab.lab_dir() / "roadmap")
    check.fact("lab roadmap", f"{lab.PROVENANCE}: roadmap/week-NN.md")
    split = (round(check.premise("num_attention_heads", claim="W3-CONFIG")),
             round(check.premise("num_key_value_heads", claim="W3-CONFIG")))
    stating = {week: stated_head_counts(page) for week, page in pages.items()
               if stated_head_counts(page)}
    check.observe("weeks whose page states a query/key-value head split", stating)
    # The week that teaches this model's own split: its page names these very counts.
    weeks = [week for week, pairs in stating.items() if split in pairs]
    check.measure("weeks whose page uses the Week 3 model's split", weeks,
                  holds=len(weeks) == 1, expected=f"one week states {split[0]} query heads "
                  f"and {split[1]} key/value heads (W3-CONFIG)")
    week = weeks[0] if weeks else None
    for figure in ("head split week", "head split week on the card"):
        check.against(figure, week, note="the roadmap week whose page states W3-CONFIG's "
                      "num_attention_heads and num_key_value_heads")
