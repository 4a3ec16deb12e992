"""The typed evidence records (claims.records) against the schema, and real runs against both.

The schema is generated from the records (claims.contract; tests/test_contract.py
keeps the file fresh). This reads the two independently: each TypedDict must name
exactly its schema object's properties, require exactly its ``required`` keys and
give each key the schema's JSON types; and what a run
really writes must validate against the schema closed (``additionalProperties:
false`` on every object that lists its properties), so a field the writer adds
without the schema fails here, not in someone's dashboard.
"""

# No `from __future__ import annotations`: the planted TypedDicts below need their
# Required/NotRequired evaluated, as claims.records does.

import json
import os
import subprocess
import sys
import types
import typing
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any, Literal, NotRequired, Required, TypedDict, Union

import jsonschema
import pytest

from claims import records
from claims.contract import closed, pointer
from claims.evidence import schema
from claims.testing import fake_nvidia_smi
from claims.testing.fake_ollama import FakeOllama
from claims.verdicts import Verdict
from tests.extras import needs_torch

ROOT = Path(__file__).resolve().parents[1]
CHILD_TIMEOUT_S = 300

_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean",
               type(None): "null", list: "array", dict: "object"}


def _pointer(path: str) -> dict[str, Any]:
    node: Any = schema()
    for part in filter(None, path.split("/")):
        node = node[int(part)] if isinstance(node, list) else node[part]
    assert isinstance(node, dict), path
    return node


def _kinds(annotation: Any) -> set[str] | None:
    """The JSON types a Python annotation admits, or None where it admits any value.

    Literal and Enum types give their values (as "=value"), to be compared with an enum.
    """
    if annotation is Any:
        return None
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        parts = [_kinds(a) for a in typing.get_args(annotation)]
        return None if any(p is None for p in parts) else set().union(*parts)  # type: ignore[arg-type]
    if origin is Literal:
        return {f"={v}" for v in typing.get_args(annotation)}
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return {f"={m.value}" for m in annotation}
    if typing.is_typeddict(annotation):
        return {"object"}
    base = origin or annotation
    if base is float:  # JSON has one kind of number; an int is a float's value too
        return {"number"}
    return {_JSON_TYPES[base]}


def _schema_kinds(prop: dict[str, Any]) -> set[str] | None:
    """The JSON types a schema property admits (None: any)."""
    if "$ref" in prop:
        return {"object"} if "properties" in _pointer(prop["$ref"].removeprefix("#")) else None
    if "enum" in prop:
        return {f"={v}" for v in prop["enum"]}
    if "const" in prop:
        return {f"={prop['const']}"}
    for combinator in ("oneOf", "anyOf"):
        if combinator in prop:
            parts = [_schema_kinds(p) for p in prop[combinator]]
            return None if any(p is None for p in parts) else set().union(*parts)  # type: ignore[arg-type]
    if "type" not in prop:
        return None
    kind = prop["type"]
    return set(kind) if isinstance(kind, list) else {kind}


# Each evidence record and where its object lies in the schema.
SCHEMA_OBJECTS: dict[type, str] = {
    value: pointer(value)
    for value in vars(records).values()
    if typing.is_typeddict(value) and value not in records.NOT_EVIDENCE
}


def differences(record: type, obj: dict[str, Any]) -> list[str]:
    """How a TypedDict and its schema object disagree: keys, required keys, types."""
    hints = typing.get_type_hints(record)
    keys, props = set(hints), set(obj.get("properties", {}))
    found = [f"{record.__name__}: key {k!r} is not in the schema" for k in sorted(keys - props)]
    found += [
        f"{record.__name__}: schema property {k!r} is not a key" for k in sorted(props - keys)
    ]
    required = set(record.__required_keys__)  # type: ignore[attr-defined]
    if required != set(obj.get("required", [])):
        found.append(f"{record.__name__}: required {sorted(required)}, "
                     f"the schema requires {sorted(obj.get('required', []))}")
    for key in sorted(keys & props):
        ours, theirs = _kinds(hints[key]), _schema_kinds(obj["properties"][key])
        if ours != theirs:
            found.append(f"{record.__name__}.{key}: typed {sorted(ours or ['any'])}, "
                         f"the schema says {sorted(theirs or ['any'])}")
    return found


@pytest.mark.parametrize("record", list(SCHEMA_OBJECTS), ids=lambda r: r.__name__)
def test_each_record_is_its_schema_object(record: type) -> None:
    assert differences(record, _pointer(SCHEMA_OBJECTS[record])) == []


def test_every_record_of_the_module_has_its_place_in_the_schema() -> None:
    typed = {v for v in vars(records).values() if typing.is_typeddict(v)}
    assert typed - set(SCHEMA_OBJECTS) == set(records.NOT_EVIDENCE)
    assert not set(SCHEMA_OBJECTS) & set(records.NOT_EVIDENCE)


def test_every_object_of_the_schema_that_lists_properties_is_a_record() -> None:
    """No part of the contract is left untyped (walks the schema for objects with properties)."""
    placed = set(SCHEMA_OBJECTS.values())

    def walk(node: Any, path: str) -> Iterator[str]:
        if isinstance(node, dict):
            if "properties" in node:
                yield path
            for key, value in node.items():
                yield from walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from walk(value, f"{path}/{i}")

    assert sorted(set(walk(schema(), "")) - placed) == []


def test_the_verdicts_of_the_schema_are_the_verdict_type() -> None:
    assert _schema_kinds(_pointer(SCHEMA_OBJECTS[records.ClaimRecord])["properties"]["verdict"]) \
        == {f"={v.value}" for v in Verdict}


def test_a_planted_mismatch_is_found() -> None:
    """The comparison can fail: a record with a key too many, one required that the schema
    leaves optional, and a wrong type, each named."""

    class Planted(TypedDict):
        label: str
        kind: int  # the schema says string
        content: str
        truncated: NotRequired[bool]
        extra: NotRequired[str]

    class Loose(TypedDict, total=False):
        label: Required[str]
        kind: str
        content: str
        truncated: bool

    obj = _pointer(SCHEMA_OBJECTS[records.Attachment])
    assert differences(Planted, obj) == [
        "Planted: key 'extra' is not in the schema",
        "Planted.kind: typed ['integer'], the schema says ['string']",
    ]
    assert differences(Loose, obj) == [
        "Loose: required ['label'], the schema requires ['content', 'kind', 'label']"
    ]


# --- real runs against the closed schema ---------------------------------------------------
def unlisted(doc: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(closed())
    return sorted(
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in validator.iter_errors(doc)
    )


def test_a_field_the_schema_does_not_name_fails_the_closed_schema(tmp_path: Path) -> None:
    from claims.testing.evidence import empty_evidence

    doc = empty_evidence()
    assert unlisted(doc) == []
    doc["claims"][0]["checks"].append({"nodeid": "t", "outcome": "passed", "verdict": "consistent",
                                       "source": "fixture", "measurements": [], "planted": 1})
    assert len(unlisted(doc)) == 1 and "'planted' was unexpected" in unlisted(doc)[0]


def _child_pytest(out: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    evidence = out / "evidence.json"
    env = {**os.environ, **(env or {})}
    for key in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST"):
        env.pop(key, None)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
           "-p", "no:hypothesispytest", "-p", "no:benchmark", "-q", f"--rootdir={ROOT}",
           f"--claims-evidence={evidence}", f"--claims-report-html={out / 'report.html'}", *args]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=CHILD_TIMEOUT_S, check=False)
    assert evidence.is_file(), proc.stdout[-3000:] + proc.stderr[-2000:]
    loaded: dict[str, Any] = json.loads(evidence.read_text("utf-8"))
    return loaded


@pytest.mark.slow
def test_a_real_offline_run_names_only_fields_of_the_schema(tmp_path: Path) -> None:
    doc = _child_pytest(tmp_path, "-m", "offline", "tests/claims")
    assert doc["claims"] and any(c["checks"] for c in doc["claims"])
    assert unlisted(doc) == []


@pytest.mark.slow
def test_a_fake_ollama_run_names_only_fields_of_the_schema(tmp_path: Path) -> None:
    """Through the fake server: live checks, facts of a measured server, simulated records."""
    with FakeOllama(token_interval_s=0.001) as fake:
        doc = _child_pytest(
            tmp_path, "-m", "ollama", "--claims-profile=generic", f"--ollama-host={fake.url}",
            *[arg for cid in ("MC-VERSION", "W2-SHOW-FACTS", "MC-HEALTH-TAGS", "W2-STREAM-NDJSON",
                              "MC-KEEPALIVE", "MC-EMBED-BATCH", "W2-COLD-TTFT")
              for arg in ("--claim", cid)],
            "tests/claims",
        )
    live = [ch for c in doc["claims"] for ch in c["checks"] if ch["source"] == "live"]
    assert live and doc["run"]["machine"]["ollama"] is not None
    assert unlisted(doc) == []


@pytest.mark.slow
@needs_torch  # the fake CUDA device stands on a real (CPU) torch
def test_a_simulated_gpu_run_names_only_fields_of_the_schema(tmp_path: Path) -> None:
    """A recorded Spark through the suite's fake CUDA and nvidia-smi: the GPU fields and charts."""
    smi = fake_nvidia_smi.install(tmp_path / "fakebin", ("nvidia-smi", "lscpu", "free"))
    env = {"PATH": os.pathsep.join([str(smi.parent), os.environ.get("PATH", "")]),
           "CLAIMS_FAKE_MACHINE": "gb10", "CLAIMS_MATMUL_N": "64", "CLAIMS_MATMUL_RUNS": "3",
           "CLAIMS_COPY_MIB": "8"}
    doc = _child_pytest(tmp_path, "-m", "gpu", "-p", "claims.testing.fake_cuda",
                        "--claims-profile=dgx-spark", "tests/claims/w1/test_gpu.py", env=env)
    assert doc["run"]["machine"]["gpu"] is not None and doc["run"]["simulated"]
    assert unlisted(doc) == []
