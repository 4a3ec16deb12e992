"""The plugin's option table (claims.plugin.options.OPTIONS) is the one declaration of the
suite's options: docs/options.md names each one, neither the README nor a page of docs/
names another, the CLI takes the ones it shares from it, and the evidence's settings
record (claims.records.Options) holds what the settings read from them write.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

from claims import cli
from claims.plugin.options import (
    OPTIONS,
    README_BEGIN,
    README_END,
    REMOVED,
    RENAMED,
    Settings,
    markdown_table,
)
from claims.records import Options

ROOT = Path(__file__).resolve().parents[2]
# An option of the suite as prose writes it: --claims-…, --ollama-…, --claim, --no-claims-….
OPTION_NAME = re.compile(r"--(?:no-claims|claims|ollama)(?:-[a-z0-9]+)+|--claim\b")
# What --ollama-serve adds to the settings record (claims.plugin.serve, a plugin of its own).
ADDED_BY_SERVE = {"ollama_serve", "user_ollama_host", "user_models_dir"}


PAGE = ROOT / "docs" / "options.md"


def _names(*pages: Path) -> set[str]:
    return {name for page in pages for name in OPTION_NAME.findall(page.read_text("utf-8"))}


def _readme_names() -> set[str]:
    """The options the README and the pages of docs/ name."""
    return _names(ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))


def test_the_option_pages_table_is_generated_from_the_table_and_fresh():
    text = PAGE.read_text("utf-8")
    block = text.split(README_BEGIN, 1)[1].split(README_END, 1)[0]
    assert block.strip() == markdown_table(), "stale: run python scripts/options-table.py"


def test_the_option_page_names_every_visible_option():
    visible = {spec.flag for spec in OPTIONS if not spec.hidden}
    assert visible - _names(PAGE) == set()


def test_the_readme_names_no_option_the_table_lacks():
    declared = {spec.flag for spec in OPTIONS} | set(RENAMED) | set(REMOVED)
    assert _readme_names() - declared == set()


def test_the_check_of_the_readme_finds_an_undeclared_option():
    text = "run with --claims-frobnicate DIR, --ollama-host URL or --claim ID; `--claims-…`"
    assert OPTION_NAME.findall(text) == ["--claims-frobnicate", "--ollama-host", "--claim"]


def test_the_cli_takes_the_options_it_shares_from_the_table():
    audit = next(a for a in cli.build_parser()._subparsers._group_actions[0].choices.values()
                 if a.prog.endswith(" audit"))
    flags = {s for action in audit._actions for s in action.option_strings}
    shared = {spec.flag for spec in OPTIONS} & flags
    assert shared == {"--claim", "--claims-documents"}


def _settings() -> Settings:
    values: dict[str, object] = {}
    for f in dataclasses.fields(Settings):
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            values[f.name] = ()
    return Settings(**values)  # type: ignore[arg-type]


def test_the_settings_record_holds_what_the_settings_write():
    written = set(_settings().to_json())
    assert set(typing.get_type_hints(Options)) == written | ADDED_BY_SERVE
