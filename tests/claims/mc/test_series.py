"""MC claims that a week of the series prints too, each judged as one fact.

The masterclass's figure is the claim's stated figure (anchored where it prints it); the
test reads the week's figure from the catalog (a claim of that week, anchored in its
post), never a copy of it.
"""

from __future__ import annotations

import pytest

from claims.testkit import Check

pytestmark = pytest.mark.offline


@pytest.mark.claim("MC-PORT-IS-WEEK2S", source="recorded")
def test_port_is_week2s(check: Check) -> None:
    check.against("port", check.premise("port", claim="W2-PORT"),
                  note="the port Week 2's API calls reach (W2-PORT)")
    check.against("port", check.premise("port, in 4.1", claim="MC-HOST-DEFAULT"),
                  note="the masterclass's default (MC-HOST-DEFAULT, 4.1)")
