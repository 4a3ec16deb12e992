"""scripts/evidence-schema.py: rewrites the evidence schema from the records; --check says stale."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from claims.contract import COMMAND, render

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "evidence-schema.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("evidence_schema_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_check_fails_on_a_stale_file_and_writing_makes_it_fresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    target = tmp_path / "evidence.schema.json"
    target.write_text(render().replace('"minItems": 2', '"minItems": 3'), "utf-8")
    monkeypatch.setattr(script, "SCHEMA_PATH", target)
    assert script.main(["--check"]) == 1
    assert COMMAND in capsys.readouterr().out
    assert script.main([]) == 0
    assert target.read_text("utf-8") == render()
    assert script.main(["--check"]) == 0
