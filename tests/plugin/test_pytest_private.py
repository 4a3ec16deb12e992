"""claims.plugin.pytest_private: the one use of pytest's private API, version-guarded.

The package itself uses public pytest API only; this module is the exception, for the
pytest versions it is tested with (the spaced path options are tested end to end in
test_entry_point.py). Outside that range a user gets a clear error, never a silent
misconfiguration.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from claims.plugin import pytest_private

PACKAGE = Path(__file__).resolve().parents[2] / "claims"


def test_the_installed_pytest_is_in_the_tested_range() -> None:
    assert pytest_private.supported(), (pytest.__version__, pytest_private.TESTED)


def test_nothing_else_in_the_package_touches_pytests_private_api() -> None:
    private = re.compile(r"_pytest|config\._")
    offenders = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "pytest_private.py"
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if private.search(line)
    ]
    assert offenders == []


def test_the_version_range_matches_what_pyproject_pins() -> None:
    pyproject = (PACKAGE.parent / "pyproject.toml").read_text("utf-8")
    (low, high) = pytest_private.TESTED
    assert f'"pytest>={low[0]}.{low[1]},<{high[0]}"' in pyproject


def test_outside_the_range_a_spaced_path_option_is_a_clear_usage_error(
    monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester
) -> None:
    monkeypatch.setattr(pytest_private, "TESTED", ((1, 0), (1, 1)))
    with pytest.raises(pytest_private.Unsupported, match="outside the versions"):
        pytest_private.run_unlogged(None, None)  # type: ignore[arg-type]
    pytester.makepyfile("def test_nothing():\n    pass\n")
    store = pytester.mkdir("models")
    result = pytester.runpytest("-p", "claims.plugin", "--ollama-models-dir", str(store))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*outside the versions*write the option as --option=PATH*"])


def test_the_shim_is_not_run_without_a_spaced_path_option() -> None:
    """An ordinary run never reaches pytest's private API at all."""
    proc = subprocess.run(
        [sys.executable, "-c", "import claims.plugin, sys; "
         "print('claims.plugin.pytest_private' in sys.modules)"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.stdout.strip() == "False", proc.stderr
