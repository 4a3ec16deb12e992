"""scripts/bundle-fixtures.py --lab-repo: upstream.json's entries written from the lab
repository for the lab files the catalog's lab lists name, and a copy that is not the
lab's bytes refused, naming the file."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from claims.catalog import load_catalog
from claims.catalog.loader import Catalog
from claims.inputs.bundled import git_blob_id

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bundle-fixtures.py"
GIT_TIMEOUT_S = 60


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bundle_fixtures_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True, capture_output=True, text=True, timeout=GIT_TIMEOUT_S).stdout.strip()


@pytest.fixture
def lab(tmp_path: Path) -> tuple[Path, Path, Catalog]:
    """A two-commit lab repository, a checkout copying two of its files (one renamed), and
    a catalog whose one document lists them."""
    repo = tmp_path / "lab"
    (repo / "wk").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "README.md").write_text("the lab\n", "utf-8")
    (repo / "wk" / "a.txt").write_text("one\n", "utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "first")
    first = _git(repo, "rev-parse", "HEAD")
    (repo / "wk" / "b.txt").write_text("two\n", "utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "second")
    head = _git(repo, "rev-parse", "HEAD")
    root = tmp_path / "checkout"
    copy = root / "fixtures" / "lab"
    (copy / "wk").mkdir(parents=True)
    (copy / "README.upstream.md").write_bytes((repo / "README.md").read_bytes())
    (copy / "wk" / "a.txt").write_bytes((repo / "wk" / "a.txt").read_bytes())
    (copy / "notes.md").write_text("the copy's own notes\n", "utf-8")
    (copy / "upstream.json").write_text(json.dumps({"commit": head, "files": {
        "README.upstream.md": {"upstream_path": "README.md"}}}), "utf-8")
    doc = replace(load_catalog().documents[0], lab=("README.upstream.md", "wk"), hub=())
    assert first != head
    return root, repo / ".git", Catalog(documents=(doc,))


def test_entries_are_written_from_the_lab_at_the_recorded_commit(
        lab: tuple[Path, Path, Catalog]) -> None:
    root, repo, catalog = lab
    assert _script().rewrite_upstream(root, catalog, repo) == 2
    files = json.loads((root / "fixtures/lab/upstream.json").read_text("utf-8"))["files"]
    assert sorted(files) == ["README.upstream.md", "wk/a.txt"]  # not the copy's notes
    a = files["wk/a.txt"]
    assert a["git_blob"] == git_blob_id(b"one\n") and a["mode"] == "100644"
    assert a["upstream_path"] == "wk/a.txt"
    assert a["last_changed_in"] == _git(repo.parent, "rev-parse", "HEAD~1")
    assert files["README.upstream.md"]["upstream_path"] == "README.md"


def test_a_copy_that_is_not_the_lab_s_bytes_is_refused(lab: tuple[Path, Path, Catalog]) -> None:
    root, repo, catalog = lab
    (root / "fixtures/lab/wk/a.txt").write_text("One\n", "utf-8")
    with pytest.raises(SystemExit, match=r"fixtures/lab/wk/a.txt is not wk/a.txt at"):
        _script().rewrite_upstream(root, catalog, repo)


def test_without_the_lab_a_file_lacking_its_entry_is_named(
        lab: tuple[Path, Path, Catalog]) -> None:
    root, _, catalog = lab
    with pytest.raises(SystemExit, match=r"fixtures/lab/wk/a.txt: .* --lab-repo"):
        _script().rewrite_upstream(root, catalog, None)
