"""The transcribed fixtures' SHA-256 manifest: an edited value fails without the documents.

The documents (the seed files) are an explicit input a user's clone does not have;
the manifest (fixtures/recorded/MANIFEST.sha256) is in the checkout, so every run
catches an edit. Each edit below once passed the whole offline run when the
documents were absent.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from claims.catalog import Catalog, load_catalog
from claims.inputs.manifest import (
    FIGURE_LINE,
    MANIFEST,
    figure_digests,
    transcribed_files,
    verify_manifest,
)
from claims.plugin.inputs import check_inputs, input_problem
from claims.text.transcribed import transcribed_documents

ROOT = Path(__file__).resolve().parents[2]

# (file, text as recorded, the edit): a digit moved, a digit changed, a unit's figure.
EDITS = [
    ("fixtures/recorded/W1.json", '"matrix": "4096x4096 float32"', '"matrix": "4096x4069 float32"'),
    ("fixtures/recorded/W2.json", '"client_total_ms": "4288.0"', '"client_total_ms": "4228.0"'),
    ("fixtures/recorded/W3.json", '"2.2 GB"', '"2.3 GB"'),
]


def _copy(tmp_path: Path) -> Path:
    """The transcribed files and their manifest, at the same places under a new root."""
    for rel in [*transcribed_files(ROOT), str(MANIFEST)]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, tmp_path / rel)
    return tmp_path


def test_the_manifest_lists_every_transcribed_file_as_it_is() -> None:
    result = verify_manifest(ROOT)
    assert result is not None, f"{MANIFEST} is missing"
    assert result["problems"] == [], [p["problem"] for p in result["problems"]]
    assert result["checked"] == len(transcribed_files(ROOT)) + len(figure_digests(ROOT))
    assert len(transcribed_files(ROOT)) > 20 and len(figure_digests(ROOT)) > 200


@pytest.mark.parametrize(("rel", "recorded", "edited"), EDITS)
def test_an_edited_value_is_named_with_its_file(
    tmp_path: Path, rel: str, recorded: str, edited: str
) -> None:
    root = _copy(tmp_path)
    text = (root / rel).read_text("utf-8")
    assert text.count(recorded) == 1
    (root / rel).write_text(text.replace(recorded, edited), "utf-8")
    result = verify_manifest(root)
    assert result is not None
    (problem,) = result["problems"]
    assert problem["file"] == rel and rel in problem["problem"]
    assert "anchor-transcriptions.py" in problem["problem"]  # the one command that re-anchors


def test_a_new_transcribed_file_must_be_anchored_first(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    manifest = root / MANIFEST
    lines = manifest.read_text("utf-8").splitlines(keepends=True)
    manifest.write_text(
        "".join(
            line for line in lines if "W4.json" not in line or line.startswith(FIGURE_LINE)
        ),
        "utf-8",
    )
    result = verify_manifest(root)
    assert result is not None
    assert [p["file"] for p in result["problems"]] == ["fixtures/recorded/W4.json"]


def test_a_document_without_transcribed_figures_needs_no_fixture(tmp_path: Path) -> None:
    """The recorded fixture is optional: a document that never had one (its text bundled,
    or nothing to transcribe) is not asked for fixtures/recorded/<DOC>.json."""
    root = _copy(tmp_path)
    for name in ("W4.json", "W4.anchors.json"):
        (root / "fixtures" / "recorded" / name).unlink()
    manifest = root / MANIFEST
    manifest.write_text("".join(
        line for line in manifest.read_text("utf-8").splitlines(keepends=True)
        if "fixtures/recorded/W4." not in line), "utf-8")
    assert "W4" not in transcribed_documents(root)
    result = verify_manifest(root)
    assert result is not None and result["problems"] == []


def test_a_deleted_fixture_the_manifest_lists_is_missing(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "fixtures" / "recorded" / "W4.anchors.json").unlink()
    (root / "fixtures" / "recorded" / "W4.json").unlink()
    result = verify_manifest(root)
    assert result is not None
    missing = {p["file"] for p in result["problems"] if p["problem"].endswith("is missing")}
    assert missing == {"fixtures/recorded/W4.json", "fixtures/recorded/W4.anchors.json"}


def test_only_the_claims_of_the_edited_document_fail(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    rel, recorded, edited = EDITS[0]
    (root / rel).write_text((root / rel).read_text("utf-8").replace(recorded, edited), "utf-8")
    inputs = check_inputs(root, None)
    assert inputs["transcription"]["ran"] is False
    assert "no documents given" in inputs["transcription"]["reason"]
    problem = input_problem(inputs, ["W1-SPEEDUP-RANGE"])
    assert problem is not None and rel in problem
    assert input_problem(inputs, ["W2-LIST"]) is None
    assert input_problem(inputs, []) is None  # not a claim test
    assert input_problem(None, ["W1-SPEEDUP-RANGE"]) is None  # a session that checked none


def test_nothing_beside_the_checkout_is_read_unless_named(tmp_path: Path) -> None:
    """A documents folder where the old lookup went (../shared/seeds) changes nothing."""
    root = _copy(tmp_path / "clone")
    beside = tmp_path / "shared" / "seeds"
    beside.mkdir(parents=True)
    (beside / "002_7d36a8153c2e8741.txt").write_text("nothing that was transcribed\n", "utf-8")
    with_folder = check_inputs(root, None)
    named = check_inputs(root, beside)
    shutil.rmtree(tmp_path / "shared")
    assert check_inputs(root, None) == with_folder
    assert with_folder["manifest"]["problems"] == []
    assert named["transcription"]["ran"] is False  # named, but not all the seed files
    assert "lacks" in named["transcription"]["reason"]
    assert input_problem(named, ["W1-SPEEDUP-RANGE"]) is not None  # named and unusable: say so


@pytest.mark.slow
def test_an_edited_fixture_fails_its_claim_tests_in_a_real_run(pytester: pytest.Pytester) -> None:
    """End to end: the offline claim test errors in setup, naming the edited file."""
    _copy(pytester.path)
    rel, recorded, edited = EDITS[0]
    path = pytester.path / rel
    path.write_text(path.read_text("utf-8").replace(recorded, edited), "utf-8")
    pytester.makepyfile(
        test_w1="""
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("W1-SPEEDUP-RANGE", source="recorded")
        def test_reads_w1(check):
            check.measure("ran", True, holds=True, expected="it ran")
        """
    )
    result = pytester.runpytest("-p", "claims.plugin", "-p", "no:cacheprovider",
                                "--no-claims-report", "-m", "offline")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*transcribed fixtures: {rel} was edited*"])


def _edited(catalog: Catalog, claim_id: str, name: str, text: str) -> Catalog:
    """The catalog with one figure's printed value changed."""
    docs = tuple(
        dataclasses.replace(doc, claims=tuple(
            dataclasses.replace(c, stated=tuple(
                dataclasses.replace(f, text=text) if f.name == name else f for f in c.stated
            )) if c.id == claim_id else c
            for c in doc.claims
        ))
        for doc in catalog.documents
    )
    return Catalog(docs)


def test_an_edited_catalog_figure_a_fixture_names_is_caught_as_an_edited_fixture() -> None:
    # W1.json's benchmark.gpu_cold_ms names W1-COLD-KERNEL's figure instead of copying it.
    catalog = _edited(load_catalog(), "W1-COLD-KERNEL", "cold first call", "153.73")
    result = verify_manifest(ROOT, catalog)
    assert result is not None
    (problem,) = result["problems"]
    assert problem["doc"] == "W1" and problem["file"] == "fixtures/recorded/W1.json"
    assert "W1-COLD-KERNEL 'cold first call'" in problem["problem"]
    assert "benchmark.gpu_cold_ms" in problem["problem"]
    assert "anchor-transcriptions.py" in problem["problem"]


def test_manifest_and_transcribed_import_one_way_only() -> None:
    """The manifest reads the transcriptions; the transcriptions never read the manifest
    (they once imported each other inside functions to dodge the cycle)."""
    import ast

    def imported(rel: str) -> tuple[set[str], int]:
        tree = ast.parse((ROOT / rel).read_text("utf-8"))
        names = {
            node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        nested = sum(
            isinstance(inner, (ast.Import, ast.ImportFrom))
            for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef)
            for inner in ast.walk(fn)
        )
        return names, nested

    transcribed, nested_t = imported("claims/text/transcribed.py")
    manifest, nested_m = imported("claims/inputs/manifest.py")
    assert "claims.inputs.manifest" not in transcribed
    assert "claims.text.transcribed" in manifest
    assert nested_t == nested_m == 0
