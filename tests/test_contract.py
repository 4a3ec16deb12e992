"""claims.contract: the evidence schema generated from the typed records, and kept fresh.

The schema file is what the records generate, byte for byte (a stale file fails
here, naming the command that rewrites it); the generator carries each record's
keys, required keys, types, descriptions and constraints into the schema, and
refuses an annotation it has no JSON form for.
"""

# No `from __future__ import annotations`: the planted TypedDicts below need their
# Required/NotRequired and Annotated evaluated, as claims.records does.

import json
from enum import StrEnum
from typing import Annotated, Any, Literal, NotRequired, Required, TypedDict

import jsonschema
import pytest

from claims import contract, records
from claims.contract import COMMAND, SCHEMA_PATH, build, render
from claims.evidence import schema
from claims.records import Doc
from claims.tiers import TIERS


def test_the_schema_file_is_what_the_records_generate():
    assert SCHEMA_PATH.read_text("utf-8") == render(), f"{SCHEMA_PATH.name} is stale: run {COMMAND}"
    assert schema() == build()


def test_the_output_is_byte_stable_and_valid_json_schema():
    assert render() == render()
    jsonschema.Draft202012Validator.check_schema(build())
    assert render().endswith("}\n") and "\r" not in render()


def test_each_evidence_record_is_one_definition_and_the_root_is_evidence():
    defs = build()["$defs"]
    reachable = {name for name in defs}
    typed = {name for name, value in vars(records).items()
             if isinstance(value, type) and hasattr(value, "__required_keys__")}
    not_evidence = {r.__name__ for r in records.NOT_EVIDENCE}
    assert reachable == typed - not_evidence - {"Evidence"}
    assert contract.pointer(records.Evidence) == ""
    assert contract.pointer(records.Measurement) == "/$defs/Measurement"
    assert build()["required"] == ["schema", "run", "claims", "summary"]
    assert build()["properties"]["schema"] == {"const": records.SCHEMA_ID}


def test_the_tier_enum_is_the_tier_table():
    tiers = build()["$defs"]["ClaimRecord"]["properties"]["tiers"]
    assert tiers == {"type": "array", "items": {"enum": list(TIERS.names())}}


class _Word(StrEnum):
    ONE = "one"
    TWO = "two"


class _Inner(TypedDict):
    """An inner record.

    Only the first paragraph is the description."""

    n: int


class _Planted(TypedDict, total=False):
    """A planted record: every kind of annotation the generator knows."""

    text: Required[Annotated[str, Doc("some text", pattern="^[a-z]+$")]]
    number: float
    flag: bool
    nothing: None
    maybe: str | None
    word: _Word
    kind: Literal["a", "b"]
    only: Literal["x"]
    many: Annotated[list[str], Doc("at least two", min_items=2)]
    table: dict[str, int]
    free: dict[str, Any]
    anything: Any
    inner: _Inner
    inner_or_text: _Inner | str | None
    optional: NotRequired[int]


def test_each_kind_of_annotation_has_its_json_form():
    builder = contract._Builder()
    obj = builder.record(_Planted)
    assert obj["description"] == "A planted record: every kind of annotation the generator knows."
    assert obj["required"] == ["text"]
    props = obj["properties"]
    assert props["text"] == {"type": "string", "pattern": "^[a-z]+$", "description": "some text"}
    assert props["number"] == {"type": "number"}
    assert props["flag"] == {"type": "boolean"}
    assert props["nothing"] == {"type": "null"}
    assert props["maybe"] == {"type": ["string", "null"]}
    assert props["word"] == {"enum": ["one", "two"]}
    assert props["kind"] == {"enum": ["a", "b"]}
    assert props["only"] == {"const": "x"}
    assert props["many"] == {"type": "array", "items": {"type": "string"}, "minItems": 2,
                             "description": "at least two"}
    assert props["table"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["free"] == {"type": "object", "additionalProperties": True}
    assert props["anything"] == {}
    assert props["inner"] == {"$ref": "#/$defs/_Inner"}
    assert props["inner_or_text"] == {
        "anyOf": [{"type": ["string", "null"]}, {"$ref": "#/$defs/_Inner"}]
    }
    assert builder.defs["_Inner"]["description"] == "An inner record."
    assert builder.defs["_Inner"]["required"] == ["n"]


def test_a_key_added_to_a_record_changes_the_schema():
    """What makes the freshness test able to fail: the generated text follows the records."""

    class _More(_Inner, total=False):
        """An inner record with a key more."""

        extra: str

    before = json.dumps(contract._Builder().record(_Inner))
    after = contract._Builder().record(_More)
    assert "extra" not in before and after["properties"]["extra"] == {"type": "string"}


def test_an_annotation_without_a_json_form_is_refused_by_name():
    class _Odd(TypedDict):
        when: set[int]

    with pytest.raises(TypeError, match=r"set\[int\]"):
        contract._Builder().record(_Odd)
