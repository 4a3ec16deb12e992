"""claims.evidence: schema contract, atomic writes, reading with clear errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.evidence import (
    EvidenceError,
    EvidenceLog,
    load_evidence,
    schema,
    validate,
    write_atomic,
)
from claims.testing.evidence import minimal_run

SHARED_SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "evidence.schema.json"


def test_bundled_schema_is_the_shared_contract():
    if not SHARED_SCHEMA.exists():
        pytest.skip(f"shared schema not present at {SHARED_SCHEMA} (outside the workplace)")
    assert schema() == json.loads(SHARED_SCHEMA.read_text("utf-8"))


def test_empty_log_is_valid_evidence_listing_every_claim():
    catalog = load_catalog()
    log = EvidenceLog(catalog, minimal_run())
    doc = log.document(complete=True)
    assert validate(doc) == []
    assert len(doc["claims"]) == len(catalog)
    assert doc["run"]["complete"] is True


def test_checks_are_split_per_claim():
    catalog = load_catalog()
    a, b = [c.id for c in catalog if c.testable][:2]
    log = EvidenceLog(catalog, minimal_run())
    log.add(
        [a, b],
        {
            "nodeid": "t",
            "outcome": "passed",
            "verdict": "reproduced",
            "source": "live",
            "measurements": [
                {"name": "x", "claim": a, "measured": 1, "holds": True},
                {"name": "y", "claim": b, "measured": 2, "holds": True},
            ],
        },
    )
    doc = log.document(complete=True)
    by_id = {c["id"]: c for c in doc["claims"]}
    assert [m["name"] for m in by_id[a]["checks"][0]["measurements"]] == ["x"]
    assert [m["name"] for m in by_id[b]["checks"][0]["measurements"]] == ["y"]
    assert by_id[a]["verdict"] == "reproduced"


def test_validation_names_the_field():
    doc = EvidenceLog(load_catalog(), minimal_run()).document(complete=True)
    doc["claims"][0]["verdict"] = "sort-of"
    problems = validate(doc)
    assert problems and problems[0].startswith("claims/0/verdict")


def test_atomic_write_leaves_no_temporary_files(tmp_path):
    target = tmp_path / "out" / "evidence.json"
    write_atomic(target, "one")
    write_atomic(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["evidence.json"]
    # Readable like any file the user writes, not private like mkstemp's default.
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"\xff\xfe", "not UTF-8"),
        (b"{", "not JSON"),
        (b"[]", "top level is not an object"),
        (b'{"schema": "claims-evidence/1"}', "not claims evidence"),
    ],
)
def test_load_evidence_errors_name_the_file(tmp_path, content, message):
    path = tmp_path / "e.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(EvidenceError, match=message) as info:
        load_evidence(path)
    assert str(path) in str(info.value)
