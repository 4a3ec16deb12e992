"""docs/adding-a-document.md, followed to the letter with its toy document.

The page's files (fenced blocks marked ``file=NAME``) are written into a scratch
folder, its command (the block marked ``run``) is run there, and the verdict must
reach the evidence and the HTML report. Nothing of the suite is touched: the
catalog is given with ``--claims-catalog``, the probe and the test live in the
scratch folder.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import load_catalog
from claims.inputs.bundled import verify_bundled
from claims.text.transcribed import transcribed_documents
from tests.checkout import copy_catalog

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "adding-a-document.md"
FILE_BLOCK = re.compile(r"^```\w+ file=(\S+)\n(.*?)^```$", re.M | re.S)
RUN_BLOCK = re.compile(r"^```console run\n(.*?)\n```$", re.M | re.S)
CLAIM = "X1-ZEROS-COMPRESS"
# Keeps the run hermetic: this machine's profile and any Ollama server play no part.
HERMETIC = ["-p", "no:cacheprovider", "--claims-profile=generic",
            "--ollama-host=http://127.0.0.1:9"]


def page_files() -> dict[str, str]:
    return {name: body for name, body in FILE_BLOCK.findall(PAGE.read_text("utf-8"))}


def page_command() -> list[str]:
    match = RUN_BLOCK.search(PAGE.read_text("utf-8"))
    assert match, f"{PAGE} has no ```console run block"
    words = shlex.split(match.group(1))
    assert words[:3] == ["python", "-m", "pytest"], words
    return words[3:]


def _run(pytester: pytest.Pytester, files: dict[str, str]) -> dict[str, Any]:
    for name, body in files.items():
        (pytester.path / name).write_text(body, "utf-8")
    result = pytester.runpytest_subprocess(*page_command(), *HERMETIC, timeout=300)
    evidence = pytester.path / "reports" / "evidence.json"
    assert evidence.is_file(), result.stdout.str()[-3000:]
    data: dict[str, Any] = json.loads(evidence.read_text("utf-8"))
    return data


def _verdict(evidence: dict[str, Any]) -> str:
    (claim,) = [c for c in evidence["claims"] if c["id"] == CLAIM]
    return str(claim["verdict"])


def test_the_page_names_a_catalog_file_a_probe_and_a_claim_test() -> None:
    files = page_files()
    assert set(files) == {"X1.toml", "x1_probe.py", "test_x1.py"}
    assert "--claims-catalog" in page_command()
    # The toy is not part of the suite's own catalog.
    assert CLAIM not in load_catalog()


@pytest.mark.slow
def test_the_toy_document_reaches_a_verdict_in_the_evidence_and_the_report(
    pytester: pytest.Pytester,
) -> None:
    evidence = _run(pytester, page_files())
    assert _verdict(evidence) == "consistent"
    (claim,) = [c for c in evidence["claims"] if c["id"] == CLAIM]
    measured = [m for c in claim["checks"] for m in c["measurements"] if m.get("compared")]
    assert [m["name"] for m in measured] == ["compressed size"]
    html = (pytester.path / "reports" / "report.html").read_text("utf-8")
    assert CLAIM in html and "consistent" in html


@pytest.mark.slow
def test_the_catalog_decides_the_toy_verdict(pytester: pytest.Pytester) -> None:
    """As the page says: the stated value changed to 0.5 KB, the same test refutes it."""
    files = page_files()
    files["X1.toml"] = files["X1.toml"].replace(
        'name = "compressed size", value = "2"', 'name = "compressed size", value = "0.5"'
    )
    assert 'value = "0.5"' in files["X1.toml"]
    assert _verdict(_run(pytester, files)) == "refuted"


# --- 5. Moving in ----------------------------------------------------------------
PLACES = re.compile(r"^(\d+)\. \*\*(.+?)\*\*(.*?)(?=^\d+\. \*\*|^\S|\Z)", re.M | re.S)
COMMAND = re.compile(r"`python (scripts/[\w-]+\.py)([^`]*)`")


def moving_in() -> str:
    text = PAGE.read_text("utf-8")
    assert "## 5. Moving in" in text, f"{PAGE} has no '5. Moving in' section"
    return text.split("## 5. Moving in", 1)[1].split("\n## ", 1)[0]


def test_moving_in_takes_three_places() -> None:
    places = PLACES.findall(moving_in())
    assert [int(n) for n, _, _ in places] == [1, 2, 3]
    assert [title.rstrip(".") for _, title, _ in places] == [
        "The catalog file and its anchors", "The probe", "The claim tests"]


def test_each_place_is_where_the_suite_s_documents_have_theirs() -> None:
    """Every path a place names, with X1 read as each document of the catalog (its id, or
    in lower case) and <area> as any probe area, is there for every document."""
    catalog = load_catalog()
    paths = [p for _, _, body in PLACES.findall(moving_in())
             for p in re.findall(r"`((?:claims|tests)/[^`\s]+)`", body)]
    assert len(paths) >= 5, paths
    for path in paths:
        folder = path if path.endswith("/") else path.rsplit("/", 1)[0] + "/"
        exact = not path.endswith("/") and "x1_probe" not in path and "test_x1" not in path
        for doc in catalog.documents:
            pattern = (path if exact else folder).replace("X1", doc.id).replace(
                "x1", doc.id.lower()).replace("<area>", "*")
            assert list(ROOT.glob(pattern.rstrip("/"))), f"{path}: no {pattern} for {doc.id}"


def test_each_command_of_moving_in_is_a_script_taking_those_options() -> None:
    commands = COMMAND.findall(moving_in())
    assert {script for script, _ in commands} >= {
        "scripts/anchor-figures.py", "scripts/bundle-fixtures.py"}
    for script, args in commands:
        assert (ROOT / script).is_file(), script
        proc = subprocess.run([sys.executable, script, "--help"], cwd=ROOT, text=True,
                              capture_output=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.returncode == 0, proc.stderr
        for option in re.findall(r"--[\w-]+", args):
            assert option in proc.stdout, f"{script} takes no {option}"


def test_the_probe_s_import_moves_as_the_page_says() -> None:
    assert "from x1_probe import gzip_size_of_zeros" in page_files()["test_x1.py"]
    assert "from claims.probes.<area>.x1_probe import gzip_size_of_zeros" in moving_in()


def test_the_moved_in_catalog_file_is_all_the_lists_need(tmp_path: Path) -> None:
    """The toy's catalog file beside the suite's: it is a document of the series (in its
    order), the bundled-file and transcription checks ask nothing of it, and no list
    elsewhere had to learn its id."""
    folder = copy_catalog(tmp_path)
    (folder / "X1.toml").write_text(page_files()["X1.toml"], "utf-8")
    catalog = load_catalog(sorted(folder.glob("*.toml")))
    suite = load_catalog()
    assert [d.id for d in catalog.documents] == [d.id for d in suite.documents] + ["X1"]
    result = verify_bundled(ROOT, catalog)
    assert result is not None and result["problems"] == []
    assert "X1" not in transcribed_documents(ROOT)
