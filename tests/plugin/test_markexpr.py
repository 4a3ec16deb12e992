"""What a -m expression selects, as pytest reads it (claims.plugin.markexpr)."""

from __future__ import annotations

import pytest

from claims.plugin.markexpr import MOST_NAMES, names_tier, selects_only_marked
from claims.plugin.pytest_private import BadExpression


@pytest.mark.parametrize(
    ("markexpr", "asked"),
    [
        ("hub", True),
        ("hub and not slow", True),
        ("(hub)", True),
        ("offline or hub", True),
        ("", False),  # the whole suite: the hub is chosen by name only
        ("not hub", False),
        ("offline and not (hub)", False),  # the old word check read "hub" here
        ("offline or not  hub", False),  # and here (two spaces)
        ("offline or not hub", False),  # keeps hub tests only when also offline
        ("not offline", False),  # keeps hub tests, but never names the tier
        ("hub and offline", False),  # keeps no test of the hub alone
        ("hubble", False),  # another marker
    ],
)
def test_the_hub_is_asked_for_only_by_name_and_alone(markexpr: str, asked: bool) -> None:
    assert names_tier(markexpr, "hub") is asked


def test_a_certification_selects_a_tier_and_nothing_unmarked() -> None:
    assert selects_only_marked("offline")
    assert selects_only_marked("offline and not slow")
    assert not selects_only_marked("not slow")  # keeps unmarked tests
    assert not selects_only_marked("slow")  # names no tier
    names = " or ".join(f"m{i}" for i in range(MOST_NAMES)) + " or offline"
    assert not selects_only_marked(names)  # too many names to try: no


def test_an_expression_pytest_refuses_is_refused_with_its_words() -> None:
    with pytest.raises(BadExpression, match="column"):
        names_tier("hub or", "hub")
