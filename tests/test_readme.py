"""README.md's layout: every module and package of the source tree is named in it.

The layout is where a reader looks for what a module holds; one added without a
line there (as audit/, cli, evidence and six others once were) fails this test.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layout() -> set[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    return set(re.findall(r"[A-Za-z_][\w-]*(?:\.py)?/?", block))


def _named(path: Path) -> tuple[str, ...]:
    # A module may be written with or without .py, a package with or without its slash.
    stem = path.stem if path.is_file() else path.name
    return (path.name, stem, f"{stem}/")


def test_the_layout_names_every_module_and_package_of_claims():
    named = _layout()
    paths = [
        p for p in (ROOT / "claims").rglob("*")
        if "__pycache__" not in p.parts and "templates" not in p.parts
        and (p.suffix == ".py" or (p.is_dir() and any(p.glob("*.py"))))
        and p.name != "__init__.py"
        # A probe package's own modules are listed in its docstring, not here.
        and not any(part in {"gguf_file", "ollama_store", "hf_repo", "ollama_api",
                             "ollama_serve", "engine"} for part in p.relative_to(ROOT).parts[:-1])
    ]
    paths += [ROOT / "claims" / "schema"]
    missing = sorted(str(p.relative_to(ROOT)) for p in paths if not set(_named(p)) & named)
    assert not missing, f"README.md's layout does not name: {', '.join(missing)}"

