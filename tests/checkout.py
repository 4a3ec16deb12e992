"""A copy of this checkout to edit, and a pytest run of the copy: for the tests that show an
edited input (a bundled byte, a catalog figure, a lab figure) fails or changes a run.

One place for what such a test repeats: which folders a run needs, how a byte is changed,
and how the child pytest is started (the copy's own ``claims`` first on the path, no
cache, a bound on its time so a hung child fails the test instead of hanging it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOG_DIR = ROOT / "claims" / "catalog"
# What a run of the suite reads: the package, its tests and fixtures, their configuration.
COPIED = ("claims", "tests", "fixtures", "conftest.py", "pyproject.toml")
# An offline run of a few claim tests in a copy; a loaded machine is slow, not hung.
CHILD_TIMEOUT_S = 600


def copy_checkout(into: Path) -> Path:
    """``into``/repo: what a run needs of this checkout, without bytecode caches."""
    repo = into / "repo"
    repo.mkdir(parents=True)
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copyfile(src, repo / name)
    return repo


def copy_catalog(into: Path) -> Path:
    """``into``/catalog: the catalog's TOML files (documents and anchors), no code."""
    folder = into / "catalog"
    shutil.copytree(CATALOG_DIR, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return folder


def replace_once(path: Path, old: str, new: str) -> None:
    """Edit the one place ``old`` stands in a text file (it must stand there exactly once)."""
    text = path.read_text("utf-8")
    assert text.count(old) == 1, f"{old!r} stands {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), "utf-8")


def flip_a_bit(path: Path) -> None:
    """Change one bit of the middle byte of a file: the smallest edit there is."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def run_pytest(repo: Path, *args: str,
               timeout: float = CHILD_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """``python -m pytest -q -p no:cacheprovider ARGS`` in ``repo``, importing its ``claims``."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=repo, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )
