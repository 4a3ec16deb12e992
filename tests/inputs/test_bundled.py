"""fixtures/lab and fixtures/hub are checked byte for byte against fixtures/BUNDLED.sha256
(claims.inputs.bundled) on every run: an edited, added or missing file is named, and an
offline run of the documents relying on it fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

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


def test_no_manifest_means_no_check(tmp_path: Path) -> None:
    assert verify_bundled(tmp_path) is None


@pytest.mark.slow
@pytest.mark.parametrize(("rel", "tests_dir"), [
    ("fixtures/lab/LICENSE", "tests/claims/w1/test_lab.py"),
    ("fixtures/hub/Qwen--Qwen2.5-3B-Instruct/aa8e72537993ba99e69dfaafa59ed015b17504d1/"
     "snapshot.json", "tests/claims/w4/test_listing.py"),
])
def test_edited_byte_fails_an_offline_run(tmp_path: Path, rel: str, tests_dir: str) -> None:
    repo = copy_checkout(tmp_path)
    flip_a_bit(repo / rel)
    proc = run_pytest(repo, "-m", "offline", "-n", "0", tests_dir)
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert rel in proc.stdout, proc.stdout[-3000:]
