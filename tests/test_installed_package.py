"""Nothing in the installed package reaches into a checkout of the suite.

Installed, ``claims/`` sits in site-packages: a path built from a module's own
location up to its parent and back down (``parents[2] / "fixtures"``) then
points at whatever lies beside site-packages. The package finds its own data
inside itself and is told where a checkout's fixtures/ and tests/ are.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "claims"
# A module's own location, up and back down into a checkout's folders.
REACHES_OUT = re.compile(
    r"""(parents\[\d+\]|\.parent\.parent|\.\.)\W*(/|joinpath\()\s*["'](fixtures|tests|scripts)\b"""
)


def test_the_pattern_finds_a_path_into_the_checkout():
    for line in ('ROOT = Path(__file__).resolve().parents[2] / "fixtures"',
                 'Path(__file__).resolve().parents[1] / "tests"',
                 "here.parent.parent / 'scripts' / 'x.sh'"):
        assert REACHES_OUT.search(line), line
    assert not REACHES_OUT.search('Path(__file__).parent / "templates"')


def test_no_module_builds_a_path_into_the_checkout():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if REACHES_OUT.search(line)
    ]
    assert not found, "\n".join(found)


# Run in a copy of the package with nothing beside it, as installed: import every module,
# then list each module-level path that points beside the package instead of into it.
PROBE = r"""
import importlib, json, os, pathlib, pkgutil, sys
site = pathlib.Path(sys.argv[1]).resolve()
package = site / "claims"
import claims
outside, skipped = [], []
for info in pkgutil.walk_packages(claims.__path__, "claims."):
    if info.name.endswith("__main__"):  # the CLI itself: importing it runs it
        continue
    try:
        module = importlib.import_module(info.name)
    except ModuleNotFoundError as exc:  # an optional dependency (llama_cpp, torch...)
        if (exc.name or "").startswith("claims"):
            raise
        skipped.append(info.name)
        continue
    for key, value in vars(module).items():
        if isinstance(value, (str, os.PathLike)) and str(value).startswith(str(site)):
            path = pathlib.Path(value).resolve()
            if not path.is_relative_to(package):
                outside.append(f"{info.name}.{key} = {path}")
from claims.claim_tests import default_tests_dir
from claims.testing import recordings
from claims.testing.fake_nvidia_smi import machine_dir
errors = []
for call in (recordings.fixtures_dir, machine_dir):
    try:
        errors.append(f"{call.__name__} returned {call()}")
    except recordings.RecordingsNotFound as exc:
        errors.append(f"RecordingsNotFound: {exc}")
print(json.dumps({"outside": outside, "skipped": skipped, "tests_dir": str(default_tests_dir()),
                  "errors": errors}))
"""


@pytest.mark.slow
def test_an_installed_copy_finds_nothing_beside_itself(tmp_path):
    site = tmp_path / "site-packages"
    shutil.copytree(PACKAGE, site / "claims", ignore=shutil.ignore_patterns("__pycache__"))
    # What an old path beside the package would have found: the bait must stay unread.
    for bait in ("fixtures/system/gb10", "fixtures/recorded", "tests/claims"):
        (site / bait).mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAIMS_FIXTURES", "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.run([sys.executable, "-c", PROBE, str(site)], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["outside"] == []
    # ./tests of the working directory is looked for, never the folder beside the package.
    assert found["tests_dir"] == "None"
    # The doubles say what they need instead of reading whatever lies beside them.
    assert len(found["errors"]) == 2
    for error in found["errors"]:
        assert error.startswith("RecordingsNotFound: ") and "set $CLAIMS_FIXTURES" in error
