"""The suite's options are named for it, beside the other plugins a user may have.

rename-options: keep-file (this file spells the old option names on purpose).

Generic names were renamed (claims.plugin.options.RENAMED): the old spellings still
work for one release, with a deprecation warning, except ``--profile``, which
pytest-profiling defines too (argparse refuses the second definition), so it is gone.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from claims.plugin.options import REMOVED, RENAMED

# Plugins a user may well have beside the suite, by the module pytest loads for each.
OTHER_PLUGINS = {
    "pytest-profiling": "pytest_profiling",
    "pytest-benchmark": "pytest_benchmark",
    "pytest-html": "pytest_html",
    "pytest-xdist": "xdist",
    "pytest-timeout": "pytest_timeout",
}


def test_every_renamed_option_carries_the_suites_name() -> None:
    for old, new in {**RENAMED, **REMOVED}.items():
        assert new.startswith(("--claims-", "--ollama-")), (old, new)
    assert "--profile" not in RENAMED  # not even as an alias: pytest-profiling owns it


@pytest.mark.slow
def test_no_clash_with_the_usual_plugins_installed_together(tmp_path: Path) -> None:
    missing = [name for name, module in OTHER_PLUGINS.items()
               if importlib.util.find_spec(module) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (pip install -e '.[dev]' has them)")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    for option in ("--claims-profile", "--claims-evidence", "--profile", "--html",
                   "--timeout", "--benchmark-only", "--numprocesses"):
        assert option in out, option


def test_an_old_spelling_still_works_with_a_deprecation_warning(claims_pytester) -> None:
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("T1-SUM")
        def test_sum(check, claims_settings):
            assert claims_settings.require_live is False
            assert claims_settings.allow_unload is True
            check.measure("sum", 2 + 2, holds=True, expected="4")
        """
    )
    result = claims_pytester.run("--allow-unload", "-W", "default")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*--allow-unload is deprecated*write --ollama-allow-unload*"]
    )


class _Recorder:
    """The option names the plugin registers (pytest's parser, minus pytest)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def getgroup(self, *args: object, **kwargs: object) -> _Recorder:
        return self

    def addoption(self, *names: str, **kwargs: object) -> None:
        self.names.update(names)


def test_profile_is_no_longer_an_option_of_the_suite() -> None:
    from claims.plugin.options import pytest_addoption

    recorder = _Recorder()
    pytest_addoption(recorder)  # type: ignore[arg-type]  (--ollama-serve's too: one table)
    assert "--profile" not in recorder.names and "--claims-profile" in recorder.names
    # Every other option is either named for the suite or a hidden old spelling.
    for name in recorder.names - set(RENAMED):
        assert name.startswith(("--claims-", "--ollama-", "--no-claims-")) or name == "--claim"
