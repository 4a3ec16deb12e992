"""The evidence contract, generated: ``claims/schema/evidence.schema.json`` from the records.

:mod:`claims.records` is the one source of the evidence's shape: each
:class:`~typing.TypedDict` reachable from :class:`~claims.records.Evidence` is
one object of the schema (``$defs/<its name>``), its docstring's first paragraph
the object's description, its keys the object's properties (``Required`` ones
its ``required`` list) and each key's type the property's JSON type. A key's
description and JSON-only constraints (a pattern, a least number of items) ride
on its annotation as :class:`~claims.records.Doc`. The one word list that lives
above the records, the tier names, is read from :data:`claims.tiers.TIERS`.

``python scripts/evidence-schema.py`` writes the file; ``--check`` (and
``tests/test_contract.py``) fail when the written file is not what the records
generate. The output is byte-stable: keys in declaration order, two-space
indent, one trailing newline.
"""

from __future__ import annotations

import json
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any, Final, Literal, NotRequired, Required, Union

from claims import records
from claims.records import ClaimRecord, Doc, Evidence
from claims.tiers import TIERS

__all__ = ["COMMAND", "SCHEMA_PATH", "build", "closed", "pointer", "render"]

SCHEMA_PATH: Final = Path(__file__).resolve().parent / "schema" / "evidence.schema.json"
# What a stale schema's message tells the reader to run (from the checkout's root).
COMMAND: Final = "python scripts/evidence-schema.py"

_TITLE = "Evidence written by one run of the claims suite"
_DESCRIPTION = (
    "Other tools (diff, report, CI dashboards) read these keys. Generated from the typed "
    f"records of claims/records.py by `{COMMAND}`: edit those, not this file. An object that "
    "lists its properties names every key the suite writes (tests/test_records.py checks real "
    "runs against that); extra keys are allowed anywhere for other tools' additions, and "
    "objects marked additionalProperties: true are open by design (facts, the audit's summary)."
)
_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean",
                            type(None): "null"}
# Word lists kept above the records (the records must not import the tier table).
_ITEMS_FROM_ABOVE: dict[tuple[type, str], list[str]] = {
    (ClaimRecord, "tiers"): list(TIERS.names()),
}


def pointer(record: type) -> str:
    """The JSON pointer of a record's object in the schema ("" for the whole document)."""
    return "" if record is Evidence else f"/$defs/{record.__name__}"


def _description(record: type) -> str:
    first = (record.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(first.split())


class _Builder:
    """Turns records into schema objects, collecting each record it reaches in ``defs``."""

    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}

    def record(self, record: type) -> dict[str, Any]:
        hints = typing.get_type_hints(record, include_extras=True)
        required = record.__required_keys__  # type: ignore[attr-defined]
        properties = {}
        for key, annotation in hints.items():
            prop = self.field(annotation)
            if (record, key) in _ITEMS_FROM_ABOVE:
                prop["items"] = {"enum": _ITEMS_FROM_ABOVE[(record, key)]}
            properties[key] = prop
        return {
            "type": "object",
            "description": _description(record),
            "required": [key for key in hints if key in required],
            "properties": properties,
        }

    def field(self, annotation: Any) -> dict[str, Any]:
        """A property: its type's schema, with the description and constraints of its Doc."""
        while typing.get_origin(annotation) in (Required, NotRequired):
            annotation = typing.get_args(annotation)[0]
        docs: list[Doc] = []
        if typing.get_origin(annotation) is typing.Annotated:
            annotation, *meta = typing.get_args(annotation)
            docs = [m for m in meta if isinstance(m, Doc)]
        prop = self.type(annotation)
        for doc in docs:
            if doc.pattern is not None:
                prop["pattern"] = doc.pattern
            if doc.min_items is not None:
                prop["minItems"] = doc.min_items
            if doc.text:
                prop["description"] = doc.text
        return prop

    def type(self, annotation: Any) -> dict[str, Any]:
        if annotation is Any:
            return {}
        if annotation in _SCALARS:
            return {"type": _SCALARS[annotation]}
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            return {"enum": [member.value for member in annotation]}
        if typing.is_typeddict(annotation):
            name = annotation.__name__
            if name not in self.defs:
                self.defs[name] = {}  # placed first: a record that reaches itself ends here
                self.defs[name] = self.record(annotation)
            return {"$ref": f"#/$defs/{name}"}
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is Literal:
            return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
        if origin is list:
            return {"type": "array", "items": self.type(args[0])}
        if origin is dict:
            values = self.type(args[1])
            return {"type": "object", "additionalProperties": values or True}
        if origin in (Union, types.UnionType):
            return self.union(args)
        raise TypeError(f"no JSON schema for the annotation {annotation!r}")

    def union(self, args: tuple[Any, ...]) -> dict[str, Any]:
        """Plain JSON types of a union in one ``type`` list; anything else beside it in anyOf."""
        plain: list[str] = []
        others: list[dict[str, Any]] = []
        for arg in args:
            part = self.type(arg)
            if set(part) == {"type"} and isinstance(part["type"], str):
                plain.append(part["type"])
            else:
                others.append(part)
        if not others:
            return {"type": plain if len(plain) > 1 else plain[0]}
        if plain:
            others.insert(0, {"type": plain if len(plain) > 1 else plain[0]})
        return {"anyOf": others}


def build() -> dict[str, Any]:
    """The evidence schema as the records define it."""
    builder = _Builder()
    root = builder.record(Evidence)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": records.SCHEMA_ID,
        "title": _TITLE,
        "description": _DESCRIPTION,
        "type": "object",
        "required": root["required"],
        "properties": root["properties"],
        "$defs": dict(sorted(builder.defs.items())),
    }


def closed() -> dict[str, Any]:
    """The schema with every object that lists its properties closed to other keys.

    The published schema lets other tools add keys; this one is what the suite itself
    writes and its tests build, so a key the records do not declare fails it.
    """
    schema = build()

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if "properties" in node:
                node.setdefault("additionalProperties", False)
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(schema)
    return schema


def render() -> str:
    """The schema file's text, byte for byte."""
    return json.dumps(build(), indent=2, ensure_ascii=False) + "\n"
