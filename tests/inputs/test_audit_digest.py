"""claims.inputs.audit_digest: what a kept audit result is reused on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claims.inputs.audit_digest import (
    AUDIT_INPUTS,
    KEPT_AUDIT,
    audit_digest,
    documents_digest,
    platform_of,
    short,
)

# One file of each kind of input a mutation audit reads, in a small checkout of its own.
FILES = {
    "claims/catalog/W9.toml": "[document]\nid = 'W9'\n",
    "claims/catalog/W9.anchors.toml": "# anchors\n",
    "claims/probes/speed.py": "RATE = 1\n",
    "claims/audit/mutate.py": "UP = 1.5\n",
    "fixtures/recorded/W9.json": '{"cpu_ms": "135.73"}\n',
    "fixtures/system/free_h.txt": "Mem: 121Gi\n",
    "tests/claims/w9/test_speed.py": "def test_speed(): pass\n",
    "tests/conftest.py": "",
    "conftest.py": "",
    "pyproject.toml": "[project]\nversion = '0.1.0'\n",
}


def _checkout(where: Path) -> Path:
    for rel, text in FILES.items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(text, "utf-8")
    return where


def test_the_same_checkout_gives_the_same_digest_wherever_it_lies(tmp_path: Path) -> None:
    a = audit_digest(_checkout(tmp_path / "a"))
    assert a == audit_digest(_checkout(tmp_path / "b"))
    assert len(a) == 64 and short(a) == a[:12] and short(None) == "none"


@pytest.mark.parametrize("rel", sorted(FILES))
def test_an_edit_to_any_input_changes_it(tmp_path: Path, rel: str) -> None:
    root = _checkout(tmp_path)
    before = audit_digest(root)
    with (root / rel).open("a", encoding="utf-8") as fh:
        fh.write("#")
    assert audit_digest(root) != before


def test_a_moved_or_added_file_changes_it_and_what_the_audit_does_not_read_does_not(
    tmp_path: Path,
) -> None:
    root = _checkout(tmp_path)
    before = audit_digest(root)
    # Not inputs: the README and docs, the run's reports, the suite's own tests, caches.
    for rel in ("README.md", "docs/x.md", "reports/audit.json", "tests/report/test_x.py",
                "claims/__pycache__/cli.cpython-311.pyc", "fixtures/.DS_Store"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x", "utf-8")
    assert audit_digest(root) == before
    (root / "fixtures/recorded/W9.json").rename(root / "fixtures/recorded/W8.json")
    moved = audit_digest(root)
    assert moved != before
    (root / "fixtures/recorded/W9.json").write_text("", "utf-8")
    assert audit_digest(root) not in (before, moved)


def test_a_file_name_that_is_not_utf8_is_hashed_not_fatal(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    before = audit_digest(root)
    try:
        (root / "fixtures" / os.fsdecode(b"blob-\xff")).write_bytes(b"x")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses a file name that is not UTF-8")
    assert audit_digest(root) != before


def test_the_inputs_are_the_audits_and_the_documents_apart(tmp_path: Path) -> None:
    assert {"claims", "fixtures", "tests/claims", "pyproject.toml"} <= set(AUDIT_INPUTS)
    assert documents_digest(None) is None
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "000.txt").write_text("Week 2", "utf-8")
    first = documents_digest(docs)
    (docs / "000.txt").write_text("Week 2!", "utf-8")
    assert documents_digest(docs) not in (None, first)


def test_the_kept_result_and_the_interpreter_are_not_inputs(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The result kept with the sources is the audit's output; the interpreter and machine
    are recorded beside the digest, not in it, so a fresh clone on another Python finds the
    kept result its own (issue 51)."""
    import claims.inputs.audit_digest as module

    root = _checkout(tmp_path)
    before = audit_digest(root)
    (root / KEPT_AUDIT).parent.mkdir(parents=True, exist_ok=True)
    (root / KEPT_AUDIT).write_text("{}", "utf-8")
    assert audit_digest(root) == before
    monkeypatch.setattr(module.sys, "version_info", (3, 99, 0))
    monkeypatch.setattr(module.platform, "machine", lambda: "aarch64")
    assert audit_digest(root) == before
    assert platform_of() == {"python": "3.99.0", "machine": "aarch64"}
    # A file beside it in claims/audit/ is still an input.
    (root / "claims" / "audit" / "kept.py").write_text("x", "utf-8")
    assert audit_digest(root) != before
