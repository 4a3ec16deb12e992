"""fixtures/lab and fixtures/hub are checked byte for byte against fixtures/BUNDLED.sha256
(claims.inputs.bundled) on every run: an edited, added or missing file is named, and an
offline run of the documents relying on it fails."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.catalog.loader import Catalog
from claims.inputs.bundled import BUNDLED, bundled_files, git_blob_id, verify_bundled
from tests.checkout import copy_checkout, flip_a_bit, run_pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for folder in ("fixtures/lab", "fixtures/hub"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    shutil.copyfile(ROOT / BUNDLED, tmp_path / BUNDLED)
    return tmp_path


def _problems(root: Path) -> list[tuple[str, str]]:
    result = verify_bundled(root)
    assert result is not None
    return [(p["doc"], p["file"]) for p in result["problems"]]


def test_checkout_matches_its_manifest() -> None:
    result = verify_bundled(ROOT)
    assert result is not None and result["problems"] == []
    assert result["checked"] == len(bundled_files(ROOT)) > 80


def test_every_lab_file_is_the_upstream_blob() -> None:
    upstream = json.loads((ROOT / "fixtures/lab/upstream.json").read_text("utf-8"))
    assert upstream["commit"] == "e834f900dd244958739d0e261a125774491ccc91"
    for rel, entry in upstream["files"].items():
        data = (ROOT / "fixtures/lab" / rel).read_bytes()
        assert git_blob_id(data) == entry["git_blob"], rel


def test_one_byte_of_a_file_no_post_quotes_is_caught(tree: Path) -> None:
    license_ = tree / "fixtures/lab/LICENSE"
    license_.write_bytes(license_.read_bytes().replace(b"MIT", b"MIX", 1))
    found = _problems(tree)
    assert ("W1", "fixtures/lab/LICENSE") in found and ("W4", "fixtures/lab/LICENSE") in found
    result = verify_bundled(tree)
    assert result is not None
    texts = {p["problem"] for p in result["problems"]}
    assert any("was edited" in t for t in texts) and any("git blob id" in t for t in texts)


def test_hub_snapshot_edit_added_and_missing_files(tree: Path) -> None:
    snap = next((tree / "fixtures/hub").rglob("config.json"))
    snap.write_text(snap.read_text("utf-8").replace("36", "37", 1), "utf-8")
    (tree / "fixtures/lab/extra.txt").write_text("x", "utf-8")
    (tree / "fixtures/lab/roadmap/week-09.md").unlink()
    found = _problems(tree)
    rel = snap.relative_to(tree).as_posix()
    assert {("W3", rel), ("W4", rel)} <= set(found)
    assert ("W1", "fixtures/lab/extra.txt") in found
    assert ("W1", "fixtures/lab/roadmap/week-09.md") in found


def test_bytecode_python_writes_beside_a_lab_script_is_not_content(tree: Path) -> None:
    # python -m compileall over the checkout writes __pycache__ into the lab copy.
    script = next((tree / "fixtures/lab").rglob("*.py"))
    cache = script.parent / "__pycache__"
    cache.mkdir()
    (cache / f"{script.stem}.cpython-311.pyc").write_bytes(b"\xa7\r\r\n")
    assert _problems(tree) == []
    # A file named like a cache outside such a folder is still an added file.
    (script.parent / "stray.pyc").write_bytes(b"x")
    assert [f for _, f in _problems(tree)] and all(
        f.endswith("stray.pyc") for _, f in _problems(tree))


def test_no_manifest_means_no_check(tmp_path: Path) -> None:
    assert verify_bundled(tmp_path) is None


@pytest.mark.slow
@pytest.mark.parametrize(("rel", "tests_dir"), [
    ("fixtures/lab/LICENSE", "tests/claims/w1/test_lab.py"),
    ("fixtures/lab/week-05-pytorch-tensors/observations.md", "tests/claims/w5/test_week5.py"),
    ("fixtures/hub/Qwen--Qwen2.5-3B-Instruct/aa8e72537993ba99e69dfaafa59ed015b17504d1/"
     "snapshot.json", "tests/claims/w4/test_listing.py"),
])
def test_edited_byte_fails_an_offline_run(tmp_path: Path, rel: str, tests_dir: str) -> None:
    repo = copy_checkout(tmp_path)
    flip_a_bit(repo / rel)
    proc = run_pytest(repo, "-m", "offline", "-n", "0", tests_dir)
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert rel in proc.stdout, proc.stdout[-3000:]


def test_the_documents_relying_on_a_file_are_the_catalog_s(tree: Path) -> None:
    """No list of documents lives here: a document whose lab list names a folder is failed
    by its files, and only by those (a catalog with a made-up week shows it)."""
    catalog = load_catalog()
    extra = replace(catalog.documents[0], id="X9", lab=("roadmap/week-05.md",), hub=())
    widened = Catalog(documents=(*catalog.documents, extra))
    week5 = tree / "fixtures/lab/roadmap/week-05.md"
    week5.write_bytes(week5.read_bytes() + b"\n")
    found = {doc for doc, rel in _problems_in(tree, widened) if rel.endswith("week-05.md")}
    assert "X9" in found and "W1" in found
    assert not {doc for doc, rel in _problems_in(tree, widened) if rel.endswith("LICENSE")}


def _problems_in(root: Path, catalog: Catalog) -> list[tuple[str, str]]:
    result = verify_bundled(root, catalog)
    assert result is not None
    return [(p["doc"], p["file"]) for p in result["problems"]]


def test_a_listed_lab_file_without_provenance_is_named(tree: Path) -> None:
    """A file added to a week's folder is one its document relies on: without its entry in
    upstream.json it is not known to be the lab's, and says so."""
    (tree / "fixtures/lab/week-02-first-local-model/new.py").write_text("x = 1\n", "utf-8")
    result = verify_bundled(tree)
    assert result is not None
    problems = [p for p in result["problems"] if p["file"].endswith("/new.py")]
    assert {p["doc"] for p in problems} == {"W2"}
    assert any("has no entry for it" in p["problem"] and "--lab-repo" in p["problem"]
               for p in problems)


def test_the_claim_tests_leave_no_bytecode_in_the_lab_copy(tmp_path: Path) -> None:
    # Week 5's claim tests load the lab's scripts as modules; an import writes __pycache__
    # beside the bundled copy unless told not to, and a user's environment rarely says so.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["CLAIMS_CACHE_DIR"] = str(tmp_path / "cache")
    lab = ROOT / "fixtures/lab/week-05-pytorch-tensors"
    before = set(lab.rglob("*"))
    proc = subprocess.run(
        [sys.executable, "-c", "from tests.claims.w5.test_week5 import _module; "
                               "_module('benchmark_matmul')"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    added = set(lab.rglob("*")) - before
    for path in sorted(added, reverse=True):  # files before their folders
        path.unlink() if path.is_file() else path.rmdir()
    # The script itself ran (its bytecode is written when it is compiled, before it runs):
    # without torch it stops at its own "import torch".
    assert proc.returncode == 0 or 'benchmark_matmul.py", line' in proc.stderr, proc.stderr
    assert not added, sorted(str(p.relative_to(ROOT)) for p in added)
