"""python -m claims: exit codes and one-line errors, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from claims.evidence import write_atomic
from claims.testing.evidence import empty_evidence


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "claims", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def evidence_file(tmp_path: Path, name: str = "e.json") -> Path:
    path = tmp_path / name
    write_atomic(path, json.dumps(empty_evidence(markexpr="")))
    return path


def test_list_json_lists_all_five_documents():
    proc = run("list", "--json", cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [d["id"] for d in data["documents"]] == ["W1", "W2", "W3", "W4", "MC"]
    assert {c["document"] for c in data["claims"]} == {"W1", "W2", "W3", "W4", "MC"}
    assert any(c["tests"] for c in data["claims"])


def test_report_renders_a_single_file(tmp_path):
    out = tmp_path / "r.html"
    proc = run("report", str(evidence_file(tmp_path)), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text("utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    "args",
    [
        ("report", "missing.json"),
        ("inspect", "gguf", "/nonexistent/file.gguf"),
        ("bogus-command",),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(tmp_path, args):
    proc = run(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip()


def test_report_of_a_malformed_file_names_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "claims-evidence/1"}')
    proc = run("report", str(bad))
    assert proc.returncode == 2
    assert str(bad) in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
