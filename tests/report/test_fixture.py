"""The report tests' synthetic evidence (tests/report/conftest.py) follows the one contract.

The fixture is written by hand, so it is held to the schema the records generate,
closed (claims.contract.closed): a key no record declares, a missing required key
or a word outside its enum fails here rather than letting the report be tested on
evidence the suite could never write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from claims.contract import closed


def _unlisted(doc: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(closed())
    return sorted(
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in validator.iter_errors(doc)
    )


@pytest.mark.parametrize("complete", [True, False])
def test_the_synthetic_evidence_holds_only_keys_of_the_records(
    make_evidence: Callable[..., dict[str, Any]], complete: bool
) -> None:
    assert _unlisted(make_evidence(complete=complete, extra_claims=12)) == []


def test_a_key_no_record_declares_fails(evidence: dict[str, Any]) -> None:
    evidence["claims"][0]["checks"][0]["measurements"][0]["planted"] = 1
    evidence["run"]["machine"]["planted"] = "x"
    found = _unlisted(evidence)
    assert len(found) == 2 and all("'planted' was unexpected" in line for line in found)
