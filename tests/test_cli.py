"""python -m claims: exit codes and one-line errors, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.cli import main
from claims.evidence import write_atomic
from claims.exit_codes import EXIT_INPUT
from claims.testing.evidence import empty_evidence

# Subprocesses or timings: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow


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


def test_list_json_lists_every_document_of_the_catalog():
    proc = run("list", "--json", "--tests", cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    documents = [d.id for d in load_catalog().documents]
    assert len(documents) > 1
    assert [d["id"] for d in data["documents"]] == documents
    assert {c["document"] for c in data["claims"]} == set(documents)
    assert any(c["tests"] for c in data["claims"])


def test_list_reads_the_catalog_alone_unless_asked_for_the_tests(monkeypatch, capsys):
    import claims.claim_tests

    def collect(*args, **kwargs):
        raise AssertionError("claims list collected the tests")

    monkeypatch.setattr(claims.claim_tests, "collect_claim_tests", collect)
    assert main(["list", "--json", "--tier", "gpu"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["claims"] and all("gpu" in c["tiers"] for c in data["claims"])
    assert all("tests" not in c for c in data["claims"])
    assert main(["list", "--document", "W1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("W1-") for line in lines)


def test_an_unknown_tier_document_or_claim_suggests_the_nearest(capsys):
    assert main(["list", "--tier", "offlin"]) == EXIT_INPUT
    assert "did you mean 'offline'?" in capsys.readouterr().err
    assert main(["list", "--document", "w2"]) == EXIT_INPUT
    assert "unknown document 'w2'" in capsys.readouterr().err
    assert main(["audit", "--claim", "W1-ARC"]) == EXIT_INPUT
    assert "did you mean 'W1-ARCH'?" in capsys.readouterr().err


def test_list_takes_its_document_ids_from_the_catalog(tmp_path):
    proc = run("list", "--json", "--document", "W3", "--tests", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert {c["document"] for c in json.loads(proc.stdout)["claims"]} == {"W3"}
    proc = run("list", "--document", "W9", "--tests", str(tmp_path))
    assert proc.returncode == 2
    known = ", ".join(d.id for d in load_catalog().documents)
    assert proc.stderr.strip() == f"unknown document 'W9' (the catalog's: {known})"


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


# --- no control character from the input reaches the terminal -------------------------
# ESC sequences (clear screen, OSC window title, OSC 8 hyperlink), CR, NUL, BEL, a C1
# CSI (U+009B) and a right-to-left override (U+202E): each would act on a terminal.
HOSTILE = "A\x1b[2J\x1b]0;owned\x07\x1b]8;;http://x.invalid\x07link\x1b]8;;\x07\rB\x00C\x9b31mD\u202eE"
RAW = ("\x1b", "\x07", "\r", "\x00", "\x9b", "\u202e")


def _assert_neutral(text: str) -> None:
    for raw in RAW:
        assert raw not in text, f"raw {raw!r} in output"


def _hostile_gguf(path: Path) -> Path:
    import gguf
    import numpy as np

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_string("general.name", HOSTILE)
    writer.add_string(f"evil.{HOSTILE}.key", "value")
    writer.add_array("evil.list", [HOSTILE, "plain"])
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


@pytest.mark.parametrize("as_json", [False, True])
def test_inspect_gguf_neutralises_control_characters(tmp_path, as_json):
    path = _hostile_gguf(tmp_path / "hostile.gguf")
    proc = run("inspect", "gguf", str(path), *(["--json"] if as_json else []))
    assert proc.returncode == 0, proc.stderr
    _assert_neutral(proc.stdout + proc.stderr)
    if as_json:
        # The same data, written with escapes: a JSON reader gets the text back.
        def strings(value: object) -> list[str]:
            if isinstance(value, str):
                return [value]
            if isinstance(value, dict):
                return [s for k, v in value.items() for s in [k, *strings(v)]]
            if isinstance(value, list):
                return [s for v in value for s in strings(v)]
            return []

        found = strings(json.loads(proc.stdout))
        assert HOSTILE in found and f"evil.{HOSTILE}.key" in found
    else:
        assert "\\x1b[2J" in proc.stdout and "\\u202e" in proc.stdout


def test_inspect_store_neutralises_model_folder_names(tmp_path):
    from claims.testing.store_builder import StoreWriter, write_tiny_gguf

    root = tmp_path / "models"
    writer = StoreWriter(root)
    gguf_file = write_tiny_gguf(tmp_path / "m.gguf")
    blob, _ = writer.blob_file(gguf_file, "application/vnd.ollama.image.model")
    good = writer.model("plain:latest", [blob])
    name = HOSTILE.replace("\x00", "").replace("/", "_")  # a file name holds neither
    evil = good.parent.parent / f"ev{name}il"
    evil.mkdir()
    (evil / f"t{name}").write_bytes(good.read_bytes())
    for args in ((), ("--json",), ("--verify",)):
        proc = run("inspect", "store", str(root), *args)
        assert "Traceback" not in proc.stderr
        _assert_neutral(proc.stdout + proc.stderr)


def test_diff_text_neutralises_evidence_fields(tmp_path):
    doc = empty_evidence(markexpr="")
    a = tmp_path / "a.json"
    write_atomic(a, json.dumps(doc))
    doc["claims"][0]["verdict"] = "refuted"
    # A refuted claim has a refuted check (the loader refuses a verdict its checks do not give).
    doc["claims"][0]["checks"] = [{"nodeid": "t", "outcome": "failed", "verdict": "refuted",
                                   "source": "fixture", "measurements": []}]
    doc["claims"][0]["reason"] = HOSTILE
    doc["claims"][0]["id"] = doc["claims"][0]["id"]
    doc["run"]["machine"]["cpu"] = HOSTILE
    b = tmp_path / f"b{HOSTILE[:3]}.json"
    write_atomic(b, json.dumps(doc))
    for args in ((), ("--json",)):
        proc = run("diff", str(a), str(b), *args)
        assert proc.returncode == 0, proc.stderr
        _assert_neutral(proc.stdout + proc.stderr)
    assert "\\x1b]0;owned" in run("diff", str(a), str(b)).stdout


@pytest.mark.parametrize("command", [["report", "{fifo}"], ["diff", "{fifo}", "{other}"]])
def test_a_fifo_given_as_evidence_exits_2_at_once(tmp_path, command):
    # Issue 22: `claims report FIFO` waited forever for a writer that never came.
    import os

    fifo = tmp_path / "evidence.json"
    os.mkfifo(fifo)
    other = evidence_file(tmp_path, "other.json")
    args = [a.format(fifo=fifo, other=other) for a in command]
    proc = run(*args, "-o", str(tmp_path / "out.html")) if command[0] == "report" else run(*args)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"claims: {fifo}: not a regular file (a FIFO, device or folder)"
