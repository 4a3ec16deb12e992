"""Test files of a child project on the toy catalog (tests/toy_catalog), written from parts.

The plugin's own tests run real pytest children whose claim tests are made for the case
(one dies, one hangs, one fills the disk); the claims they measure and the ordinary tests
beside them are the same each time, so they are written once here.
"""

from __future__ import annotations

__all__ = ["SUM", "claim_test"]


def claim_test(name: str, claim: str, *body: str) -> str:
    """The source of one offline claim test: ``def name(check)`` of ``claim`` with ``body``'s
    lines (the file imports pytest)."""
    lines = "".join(f"    {line}\n" for line in body)
    return f'\n@pytest.mark.offline\n@pytest.mark.claim("{claim}")\ndef {name}(check):\n{lines}'


# T1-SUM holds: the toy catalog states a sum of 4.
SUM = claim_test("test_1_sum", "T1-SUM", 'check.against("sum", 4.0)')
