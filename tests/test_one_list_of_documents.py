"""The catalog is the one list of the documents: no other file enumerates them.

A new document lands as its catalog file (with its anchors), one probe module and one
claim test module, plus its copied lab files. Every list that names the documents
derives from the catalog's ``[document]`` tables; one written out elsewhere (a tuple
of ids in a checker, a hard-coded expectation in a test, "W1..W4" in the README) is
what made the next week cost eight edits. This test finds such lists:

* in Python (claims/, scripts/, tests/, conftest.py): a list, tuple or set literal of
  two or more strings that are all document ids, or a string that enumerates ids;
* in the other files people edit (README.md, docs/, scripts/*.sh, pyproject.toml,
  the lab copy's README and manifests): text that enumerates ids.

"Enumerates" is three or more ids joined by commas, "and", "or" or "/", or a range of
two ("W1..W4", "W1–W4"). Naming one or two documents (a claim's id, "W3 and W4's
model") is not a list of the documents and is left alone.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import load_catalog

ROOT = Path(__file__).resolve().parents[1]
IDS = tuple(d.id for d in load_catalog().documents)
# An id as prose writes it: W1, `W1`, or a folder's w1.
_ID = "`?(?:" + "|".join(re.escape(i) for i in sorted(IDS, key=len, reverse=True)) + ")`?"
_JOIN = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*)"
ENUMERATION = re.compile(
    rf"(?<![\w-])(?:{_ID}){_JOIN}(?:{_ID})(?:{_JOIN}(?:{_ID}))+(?![\w-])"
    rf"|(?<![\w-])(?:{_ID})\s*(?:\.\.\.?|…|–|—)\s*(?:{_ID})(?![\w-])",
    re.IGNORECASE,
)
# Text files a person edits when the series grows (fixtures/recorded and the copied lab
# files are the documents' own words, not ours).
TEXT_FILES = ["README.md", "pyproject.toml", "tests/README.md", "fixtures/lab/README.md",
              "fixtures/lab/upstream.json", "fixtures/lab/manifest.json"]
TEXT_GLOBS = ["docs/*.md", "scripts/*.sh"]
# Written before the rule, about the documents of its day; not a list the suite reads.
HISTORY = {"docs/round-three-statements.md"}


def _python_files() -> list[Path]:
    files = [ROOT / "conftest.py"]
    for folder in ("claims", "scripts", "tests"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return [p for p in files if p.is_file()]


def _text_files() -> list[Path]:
    files = [ROOT / rel for rel in TEXT_FILES]
    for pattern in TEXT_GLOBS:
        files += sorted(ROOT.glob(pattern))
    return [p for p in files
            if p.is_file() and p.relative_to(ROOT).as_posix() not in HISTORY]


def id_lists(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) for each list of document ids in Python source."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if (len(values) == len(node.elts) >= 2
                    and all(isinstance(v, str) and v in IDS for v in values)):
                yield node.lineno, f"a literal list of documents {values}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = ENUMERATION.search(node.value)
            if match:
                yield node.lineno, f"a string enumerating documents {match.group(0)!r}"


def enumerations(text: str) -> Iterator[tuple[int, str]]:
    for match in ENUMERATION.finditer(text):
        yield text.count("\n", 0, match.start()) + 1, repr(match.group(0))


def json_id_lists(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(JSON path, what) for each array of document ids in a JSON document."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_id_lists(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        if len(value) >= 2 and all(isinstance(v, str) and v in IDS for v in value):
            yield path, f"a list of documents {value}"
        for i, item in enumerate(value):
            yield from json_id_lists(item, f"{path}[{i}]")


def test_the_catalog_has_documents_to_look_for() -> None:
    assert len(IDS) >= 2


@pytest.mark.parametrize(("source", "found"), [
    (f'DOCS = ("{IDS[0]}", "{IDS[1]}")', True),
    (f'assert ids == ["{IDS[0]}", "{IDS[1]}"]', True),
    (f'msg = "the catalog\'s: {IDS[0]}, {IDS[1]}, {IDS[-1]}"', True),
    (f'x = {{"{IDS[0]}", "{IDS[1]}"}}', True),
    (f'doc = "{IDS[0]}"', False),
    (f'pair = ("{IDS[0]}", "benchmark.cpu_ms")', False),
    (f'refs = {{"{IDS[0]}": "a", "{IDS[1]}": "b"}}', False),
    (f'claim = "{IDS[0]}-X and {IDS[1]}-Y"', False),
])
def test_the_python_check_finds_lists_and_only_lists(source: str, found: bool) -> None:
    assert bool(list(id_lists(source))) is found


@pytest.mark.parametrize(("text", "found"), [
    (f"one TOML file per document ({IDS[0]}..{IDS[3]}, {IDS[-1]})", True),
    (f"weeks {IDS[0]}–{IDS[3]}", True),
    (f"{IDS[0]}, {IDS[1]} and {IDS[-1]} name one quantity", True),
    (f"{IDS[0]}/{IDS[1]}/{IDS[2]}", True),
    (f"one folder per document (`{IDS[0].lower()}`..`{IDS[3].lower()}`, `mc`)", True),
    (f"the Qwen total ({IDS[2]}, {IDS[3]}-QWEN-EXACT)", False),
    (f"{IDS[2]} and {IDS[3]} read the Hub snapshot", False),
    (f"claim {IDS[0]}-ARCH", False),
])
def test_the_text_check_finds_enumerations_and_only_those(text: str, found: bool) -> None:
    assert bool(list(enumerations(text))) is found


def test_the_json_check_finds_arrays_of_ids() -> None:
    data = {"files": {"LICENSE": {"documents": list(IDS[:2])}, "x": {"document": IDS[0]}}}
    assert [where for where, _ in json_id_lists(data)] == ["files.LICENSE.documents"]


def test_no_list_of_documents_outside_the_catalog() -> None:
    found: list[str] = []
    for path in _python_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == "tests/test_one_list_of_documents.py":
            continue
        found += [f"{rel}:{line}: {what}"
                  for line, what in id_lists(path.read_text("utf-8"))]
    for path in _text_files():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text("utf-8")
        found += [f"{rel}:{line}: an enumeration of documents {what}"
                  for line, what in enumerations(text)]
        if path.suffix == ".json":
            found += [f"{rel} {where}: {what}"
                      for where, what in json_id_lists(json.loads(text))]
    assert not found, (
        "the catalog (claims/catalog/*.toml) is the one list of the documents; derive "
        "these from load_catalog().documents:\n" + "\n".join(found))
