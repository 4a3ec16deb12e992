"""noxfile.py's interpreter discovery: each supported minor version runs on the oldest
patch release found (where patch-level features are missing), across every PATH entry,
and a version with no interpreter is reported absent, never silently replaced."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.extras import import_or_skip

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,  # the discovery runs each interpreter it finds
    # Each test imports the noxfile afresh, and nox's session registry is global.
    pytest.mark.filterwarnings("ignore:The session 'matrix' has already been registered"),
]


def _load(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """noxfile.py, freshly imported (its discovery runs at import, as under nox)."""
    import_or_skip("nox", "dev")
    monkeypatch.setenv("NOX_QUIET_DISCOVERY", "1")
    spec = importlib.util.spec_from_file_location("claims_noxfile", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def noxfile(monkeypatch) -> ModuleType:
    return _load(monkeypatch)


def _fake_python(folder: Path, name: str, version: str) -> Path:
    """An interpreter that answers the discovery's question as ``version`` would."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / name
    major, minor, patch = version.split(".")
    exe.write_text(f'#!/bin/sh\necho "{major} {minor} {patch}"\necho "$0"\n', encoding="utf-8")
    exe.chmod(0o755)
    return exe


def test_the_oldest_patch_is_chosen_across_path_entries(noxfile, monkeypatch, tmp_path):
    newer = _fake_python(tmp_path / "shims dir", "python3.97", "3.97.7")
    older = _fake_python(tmp_path / "system ä", "python3.97", "3.97.2")
    monkeypatch.setenv("PATH", f"{newer.parent}:{older.parent}:/usr/bin:/bin")
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no pyenv"))
    monkeypatch.delenv("CLAIMS_PYTHON_3_97", raising=False)
    assert noxfile._oldest("3.97") == (str(older), "3.97.2")


def test_pyenv_versions_are_found_and_broken_interpreters_skipped(noxfile, monkeypatch, tmp_path):
    pyenv = tmp_path / "pyenv root"
    found = _fake_python(pyenv / "versions" / "3.97.1" / "bin", "python3.97", "3.97.1")
    broken = pyenv / "versions" / "3.97.0" / "bin" / "python3.97"
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    broken.chmod(0o755)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("PYENV_ROOT", str(pyenv))
    assert noxfile._oldest("3.97") == (str(found), "3.97.1")


def test_a_named_interpreter_is_the_only_one_tried(noxfile, monkeypatch, tmp_path):
    named = _fake_python(tmp_path / "mine", "python", "3.97.9")
    _fake_python(tmp_path / "path", "python3.97", "3.97.0")
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    monkeypatch.setenv("CLAIMS_PYTHON_3_97", str(named))
    assert noxfile._oldest("3.97") == (str(named), "3.97.9")


def test_an_interpreter_of_another_version_does_not_count(noxfile, monkeypatch, tmp_path):
    _fake_python(tmp_path / "bin", "python3.97", "3.96.0")  # a misnamed link
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no pyenv"))
    monkeypatch.delenv("CLAIMS_PYTHON_3_97", raising=False)
    assert noxfile._oldest("3.97") is None


def test_an_absent_version_is_handed_to_nox_as_a_bare_number(monkeypatch, tmp_path):
    # nox then reports it missing (a skip that names it, or a failure under
    # --error-on-missing-interpreters, its default where CI is set), never a pass.
    monkeypatch.setenv("CLAIMS_PYTHON_3_13", str(tmp_path / "no such python"))
    module = _load(monkeypatch)
    params = {p.id: p.args for p in module.matrix.parametrize}
    assert module.FOUND["3.13"] is None
    assert params["3.13"] == ("3.13",)


def test_this_interpreter_is_found_for_its_own_version(noxfile):
    minor = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if minor not in noxfile.SUPPORTED:
        pytest.skip(f"Python {minor} is not one the matrix supports")
    assert noxfile.FOUND[minor] is not None
    assert tuple(map(int, noxfile.FOUND[minor][1].split("."))) <= sys.version_info[:3]
