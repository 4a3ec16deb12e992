"""README.md, the front page, and the layout page behind it.

The README is what a newcomer reads first: it stays at most :data:`README_BYTES`
and every link in it leads somewhere (a file of the checkout, and a heading of it
where the link names one). The rest lives in docs/.

docs/layout.md is where a reader looks for what a module holds: every module and
package of the source tree is named there, at its place (under its package's line:
claims/records.py is not named by catalog/records.py). One added without a line
there (as audit/, cli, evidence and six others once were) fails this test.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LAYOUT = ROOT / "docs" / "layout.md"

# The front page's budget (issue 44): what a newcomer needs first, the rest in docs/.
README_BYTES = 12 * 1024

# An inline link or image: [text](target) or ![alt](target); a target has no spaces.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_the_readme_fits_its_budget():
    size = len(README.read_bytes())
    assert size <= README_BYTES, (
        f"README.md is {size:,} bytes, over {README_BYTES:,}: move detail into a page of docs/"
    )


def _anchors(page: Path) -> set[str]:
    """The fragments GitHub gives a Markdown page's headings."""
    found: set[str] = set()
    in_code = False
    for line in page.read_text("utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
        found.add(slug)
    return found


def broken_links(page: Path) -> list[str]:
    """Each relative link of ``page`` whose file, or heading in it, does not exist."""
    broken: list[str] = []
    for target in LINK.findall(page.read_text("utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            broken.append(f"{target} (the front page links into the checkout only)")
            continue
        path, _, fragment = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif fragment and (dest.suffix != ".md" or fragment not in _anchors(dest)):
            broken.append(f"{target} (no heading #{fragment} in {dest.name})")
    return broken


def test_every_link_of_the_readme_resolves():
    assert LINK.findall(README.read_text("utf-8"))  # the front page links its docs
    assert broken_links(README) == []


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Set-up, and how\n", "utf-8")
    page = tmp_path / "README.md"
    page.write_text(
        "[ok](docs/a.md#set-up-and-how) [gone](docs/b.md) [bad](docs/a.md#nothing)\n"
        "![pic](docs/a.png) [web](https://example.org)\n",
        "utf-8",
    )
    assert [b.split(" ")[0] for b in broken_links(page)] == [
        "docs/b.md", "docs/a.md#nothing", "docs/a.png", "https://example.org"]


# The layout's name column: an entry's names start there, indented two spaces a level;
# a line starting further right continues the description above it.
DESCRIPTION_COLUMN = 24
NAME = re.compile(r"[A-Za-z_][\w-]*(?:\.py)?/?")


def _layout() -> set[str]:
    """The paths the layout names, each as its folders and name ("claims/plugin/writer.py").

    An entry's place is its indentation under the package lines above it; the words
    of a package's description name its modules too (probes/ lists its packages'
    modules in prose).
    """
    text = LAYOUT.read_text("utf-8")
    block = text.split("```", 2)[1]
    named: set[str] = set()
    parents: list[str] = []  # the package lines above, one per level
    package: str | None = None  # the entry whose description is being read, if a package
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip():
            continue
        if indent < DESCRIPTION_COLUMN:
            names_part, _, description = line.strip().partition("  ")
            del parents[indent // 2:]
            names = [n.strip() for n in names_part.split(",")]
            named.update("/".join([*parents, n]).rstrip("/") for n in names)
            package = names[0] if names[0].endswith("/") else None
            if package is not None:
                parents.append(package.rstrip("/"))
        else:
            description = line
        if package is not None:
            named.update("/".join([*parents, n]).rstrip("/") for n in NAME.findall(description))
    return named


def _named(path: Path) -> tuple[str, ...]:
    # A module may be written with or without .py.
    rel = path.relative_to(ROOT)
    return (str(rel), str(rel.with_suffix("")))


def test_the_layout_names_every_module_and_package_of_claims() -> None:
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
    missing = sorted(str(p.relative_to(ROOT)) for p in paths
                     if not set(_named(p)) & named and not _documented_probe(p))
    assert not missing, f"docs/layout.md does not name: {', '.join(missing)}"


def _documented_probe(path: Path) -> bool:
    """A module of a probe area (claims/probes/<area>/<module>.py) may be named by its own
    docstring instead: a new document's probe is one file, not a file and a layout line."""
    parts = path.relative_to(ROOT / "claims").parts
    if len(parts) != 3 or parts[0] != "probes" or path.suffix != ".py":
        return False
    docstring = ast.get_docstring(ast.parse(path.read_text("utf-8")))
    return bool(docstring and docstring.strip())


def test_a_probe_module_is_named_by_its_docstring_when_not_by_the_layout() -> None:
    """The exemption is precise: a probe area's module with a docstring, nothing else."""
    area = ROOT / "claims" / "probes" / "machine"
    documented = next(p for p in sorted(area.glob("*.py")) if p.name != "__init__.py")
    assert _documented_probe(documented)
    assert not _documented_probe(ROOT / "claims" / "catalog" / "loader.py")
    assert not _documented_probe(ROOT / "claims" / "probes" / "errors.py")


def test_every_link_of_the_docs_pages_resolves():
    # The pages the README sends a reader to send them on; a page moved or renamed
    # leaves no dead link behind.
    broken = {page.name: found for page in sorted((ROOT / "docs").glob("*.md"))
              if (found := [b for b in broken_links(page) if "front page" not in b])}
    assert broken == {}
