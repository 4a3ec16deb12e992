"""python -m claims with what a new user types: a folder for -o, the recorded store the
README shows, a misspelt claim id. Each gets what it asks for or a clear exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claims.cli import EXIT_INPUT, EXIT_OK, main
from claims.evidence import write_atomic
from claims.testing.evidence import empty_evidence

ROOT = Path(__file__).resolve().parents[1]
RECORDED_STORE = ROOT / "fixtures" / "ollama-0.31.2" / "store"


def test_report_into_a_folder_writes_report_html_there(tmp_path: Path, capsys) -> None:
    evidence = tmp_path / "e.json"
    write_atomic(evidence, json.dumps(empty_evidence(markexpr="")))
    out = tmp_path / "out"
    out.mkdir()
    assert main(["report", str(evidence), "-o", str(out)]) == EXIT_OK
    assert (out / "report.html").is_file()
    assert str(out / "report.html") in capsys.readouterr().out


def test_audit_of_an_unknown_claim_is_bad_usage(capsys) -> None:
    assert main(["audit", "--claim", "NO-SUCH-CLAIM"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "unknown claim id(s) NO-SUCH-CLAIM" in err and "Traceback" not in err


def _audit_result(digest: str) -> dict:
    return {"finished": "2026-12-01T10:00:00+00:00", "digest": digest, "documents": None,
            "selected": None, "figures": [], "defects": [], "explained": 0,
            "summary": "0 of 0 judged figures change their verdict when perturbed",
            "transcriptions": {"skipped": "no documents given"}}


def _fake_audits(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[object]:
    """claims audit's runs, faked: each is listed and answers an empty result of the
    checkout at ``root`` as it is then; no documents are named."""
    import claims.audit
    from claims.inputs.audit_digest import audit_digest

    runs: list[object] = []

    def fake_run(*args: object, **kwargs: object) -> dict:
        runs.append(args)
        return _audit_result(audit_digest(root))

    monkeypatch.setattr(claims.audit, "run_audit", fake_run)
    monkeypatch.delenv("CLAIMS_DOCUMENTS", raising=False)
    return runs


def test_audit_reuses_the_result_kept_for_this_checkout_and_reruns_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The second certification of an unchanged checkout does not rerun the audit; another
    checkout's result, or --force, does (scripts/test.sh's audit test passes --force)."""
    from claims.inputs.audit_digest import audit_digest
    from claims.inputs.audit_result import write_audit

    runs = _fake_audits(monkeypatch, ROOT)
    # Not the result kept with the sources (the next test's): this one's is -o's alone.
    monkeypatch.setattr("claims.inputs.audit_digest.KEPT_AUDIT", "no/such/kept.json")
    out = tmp_path / "audit.json"
    write_audit(out, _audit_result("0" * 64))  # another checkout's
    args = ["audit", "--tests", str(ROOT / "tests"), "-o", str(out)]
    assert main(args) == EXIT_OK and len(runs) == 1
    assert json.loads(out.read_text("utf-8"))["digest"] == audit_digest(ROOT)
    capsys.readouterr()
    assert main(args) == EXIT_OK and len(runs) == 1  # kept, not rerun
    shown = capsys.readouterr().out
    assert "reused the result kept, made 2026-12-01T10:00:00+00:00" in shown
    assert "0 of 0 judged figures" in shown  # the kept result is printed as a run prints it
    assert main([*args, "--force"]) == EXIT_OK and len(runs) == 2


def test_a_fresh_clone_reuses_the_audit_kept_with_its_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """No result at -o (a fresh clone): the one kept with the sources answers while their
    digest is the checkout's, is copied to -o for the report, and says where it ran; once
    a source changes, the audit reruns (issue 51)."""
    from claims.inputs.audit_digest import KEPT_AUDIT, audit_digest
    from claims.inputs.audit_result import write_audit

    root = tmp_path / "clone"
    (root / "tests" / "claims").mkdir(parents=True)
    (root / "claims" / "catalog").mkdir(parents=True)
    (root / "claims" / "catalog" / "W9.toml").write_text("# a source\n", "utf-8")
    runs = _fake_audits(monkeypatch, root)
    write_audit(root / KEPT_AUDIT, {**_audit_result(audit_digest(root)),
                                    "python": "3.11.7", "machine": "x86_64"})
    out = tmp_path / "reports" / "audit.json"
    args = ["audit", "--tests", str(root / "tests"), "-o", str(out)]
    assert main(args) == EXIT_OK and runs == []
    shown = capsys.readouterr().out
    assert f"kept with the sources ({KEPT_AUDIT})" in shown
    assert "on Python 3.11.7 (x86_64)" in shown
    assert json.loads(out.read_text("utf-8"))["digest"] == audit_digest(root)
    # A source edited: neither the kept result nor its copy at -o is this checkout's.
    (root / "claims" / "catalog" / "W9.toml").write_text("# edited\n", "utf-8")
    assert main(args) == EXIT_OK and len(runs) == 1


def test_inspect_store_works_on_the_recorded_store(capsys, gemma_gguf: Path) -> None:
    """Its model blob is the bundled Gemma GGUF, not in the repository: the command links
    it in (as the tests do) and says so, and reports the files where they really are."""
    assert main(["inspect", "store", str(RECORDED_STORE), "--json", "--verify"]) == EXIT_OK
    summary = json.loads(capsys.readouterr().out)
    assert summary["problems"] == []
    assert summary["root"] == str(RECORDED_STORE)
    assert "bundled Gemma GGUF" in summary["model_blob"]
    (manifest,) = summary["manifests"]
    blobs = {b["field"]: b["blob"] for b in manifest["blobs"]}
    assert blobs["config"].startswith(str(RECORDED_STORE))
    model = next(v for k, v in blobs.items() if k != "config")
    assert Path(model) == gemma_gguf


def test_a_store_missing_another_blob_still_fails(tmp_path: Path, capsys) -> None:
    """Only the bundled GGUF is linked in: any other missing blob is still reported."""
    import shutil

    store = tmp_path / "store"
    shutil.copytree(RECORDED_STORE, store)
    for blob in (store / "blobs").iterdir():
        blob.unlink()
    code = main(["inspect", "store", str(store)])
    assert code != EXIT_OK
    assert "sha256-c7deca6a" in capsys.readouterr().err


@pytest.fixture
def gemma_gguf() -> Path:
    from claims.probes.errors import ProbeError
    from claims.probes.files.artifacts import gemma_gguf as locate

    try:
        return locate()
    except ProbeError as exc:
        pytest.skip(f"the bundled Gemma GGUF is not available: {exc}")
