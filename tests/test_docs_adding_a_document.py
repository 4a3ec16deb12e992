"""docs/adding-a-document.md, followed to the letter with its toy document.

The page's files (fenced blocks marked ``file=NAME``) are written into a scratch
folder, its command (the block marked ``run``) is run there, and the verdict must
reach the evidence and the HTML report. Nothing of the suite is touched: the
catalog is given with ``--claims-catalog``, the probe and the test live in the
scratch folder.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from claims.catalog import load_catalog

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
