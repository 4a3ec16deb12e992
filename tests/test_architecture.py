"""docs/architecture.md, held: layers, no cycles, no hidden imports, small modules.

* The import contract in pyproject.toml (``[tool.importlinter]``: layers, and no cycle
  among the modules or packages of ``claims/`` at any depth, type-only imports
  included) holds, and breaks when a back-import, a cycle or a lazy back-import is
  planted in a copy of the tree.
* No module imports a ``claims`` module inside a function, except the few on a
  start-up path (:data:`START_UP`); so a lazy import cannot hide an arrow.
* No module of ``claims/`` or ``tests/`` is over 800 lines.

The temporary lists name the branch whose merge empties them; an entry that is no
longer needed fails, so they cannot outlive their reason.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.extras import import_or_skip

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800
LINT_TIMEOUT_S = 600

# Modules on the start-up path of every pytest run in the environment (the plugin is
# an installed pytest11 entry point and must cost nothing where the suite is not in use:
# tests/plugin/test_inert.py) or of every `claims` command: each defers the rest of the
# suite until it is used.
START_UP = {
    "claims/plugin/__init__.py": "the pytest11 entry point: hooks load their modules on use",
    "claims/plugin/serve.py": "a plugin of its own, loaded with the entry point",
    "claims/plugin/ollama_fixtures.py": "the ollama tier's fixtures, loaded with the entry "
    "point: each loads the Ollama client (httpx) on use",
    "claims/plugin/session.py": "loaded with the fixtures; loads the catalog on activation",
    "claims/plugin/options.py": "the options, registered with the entry point; reads the "
    "catalog's loader only for --claims-catalog",
    "claims/profiles.py": "the options' profile choices; detection loads the machine probes",
    "claims/tiers.py": "the markers' tier table; each detector loads its probes (httpx...)",
    "claims/cli.py": "each command loads what it needs",
}
# Lazy imports of claims modules that other branches are removing (docs/architecture.md,
# "Known exceptions"): the lead empties this at merge.
TEMPORARY_LAZY: dict[str, str] = {}
# Modules over MAX_LINES that other branches are splitting: the lead empties this at merge.
TEMPORARY_LONG: dict[str, str] = {}


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the ``claims`` package under ``root``, with root's pyproject."""
    import_or_skip("importlinter", "dev")
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
         "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root, env=env, capture_output=True, text=True, timeout=LINT_TIMEOUT_S,
    )


def test_the_import_contract_holds():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def _tree_copy(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(ROOT / "claims", root / "claims",
                    ignore=shutil.ignore_patterns("__pycache__", "templates", "*.json", "*.toml"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


PLANTS = {
    # A type-only import up the layers: the records importing the check.
    "type-only back-import": (
        "claims/records.py",
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from claims.check import Check\n",
        "claims.records is not allowed to import claims.check",
    ),
    # A lazy import up the layers, inside a function: a probe reaching into the plugin.
    "lazy back-import": (
        "claims/probes/errors.py",
        "\n\ndef _planted() -> object:\n    from claims.plugin import keys\n\n    return keys\n",
        "claims.probes is not allowed to import claims.plugin",
    ),
    # A cycle inside one layer: two probe packages importing each other.
    "cycle": (
        "claims/probes/machine/tools.py",
        "\nfrom claims.probes.live import loopback as _planted\n",
        "No cycles are allowed in claims.probes",
    ),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_import_breaks_the_contract(tmp_path: Path, plant: str):
    root = _tree_copy(tmp_path)
    assert _lint_imports(root).returncode == 0, "the copy must pass before the plant"
    module, code, message = PLANTS[plant]
    path = root / module
    path.write_text(path.read_text("utf-8") + code, "utf-8")

    result = _lint_imports(root)

    assert result.returncode != 0, result.stdout[-4000:]
    assert message in result.stdout, result.stdout[-4000:]


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py")
                  if "__pycache__" not in p.parts)


def _lazy_claims_imports(path: Path) -> list[str]:
    """``line: module`` for each import of a claims module inside a function of ``path``."""
    tree = ast.parse(path.read_text("utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.level == 0:
                names = [inner.module or ""]
            elif isinstance(inner, ast.ImportFrom):  # relative: always the suite's own
                names = ["." * inner.level + (inner.module or "")]
            elif isinstance(inner, ast.Import):
                names = [alias.name for alias in inner.names]
            else:
                continue
            found += [f"{inner.lineno}: {name}" for name in names
                      if name.startswith((".", "claims"))]
    return found


def test_no_claims_module_is_imported_inside_a_function_off_the_start_up_paths():
    allowed = START_UP.keys() | TEMPORARY_LAZY.keys()
    hidden = {
        rel: lazy for p in _modules("claims")
        if (rel := str(p.relative_to(ROOT))) not in allowed and (lazy := _lazy_claims_imports(p))
    }
    assert not hidden, f"claims modules imported inside functions (import at the top): {hidden}"


def test_the_temporary_lazy_imports_are_still_needed():
    stale = [rel for rel in TEMPORARY_LAZY if not _lazy_claims_imports(ROOT / rel)]
    assert not stale, f"no lazy import left: remove from TEMPORARY_LAZY: {stale}"


def test_the_check_of_lazy_imports_finds_one(tmp_path: Path):
    planted = tmp_path / "m.py"
    planted.write_text("import os\n\n\ndef f():\n    import json\n"
                       "    from claims.check import Check\n    return Check\n", "utf-8")
    assert _lazy_claims_imports(planted) == ["6: claims.check"]


def _lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(1 for _ in fh)


def test_no_module_is_over_800_lines():
    long = {
        rel: n for p in _modules("claims", "tests")
        if (rel := str(p.relative_to(ROOT))) not in TEMPORARY_LONG and (n := _lines(p)) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them by subject): {long}"


def test_the_temporary_long_modules_are_still_long():
    stale = [rel for rel in TEMPORARY_LONG
             if not (ROOT / rel).is_file() or _lines(ROOT / rel) <= MAX_LINES]
    assert not stale, f"split already: remove from TEMPORARY_LONG: {stale}"
