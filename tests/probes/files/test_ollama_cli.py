"""What the ollama CLI prints, read back (claims.probes.files.ollama_cli)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from claims.figures import Interval
from claims.probes.errors import InputError
from claims.probes.files.ollama_cli import cli_help, listed_commands, table_row, until_minutes

HELP = Path(__file__).resolve().parents[3] / "fixtures" / "ollama-0.31.2" / "cli" / "help.txt"


def test_until_labels() -> None:
    assert until_minutes("4 minutes from now") == Interval(4.0, 5.0)
    assert until_minutes("About a minute from now") == Interval(1.0, 2.0)
    assert until_minutes("30 seconds from now") == Interval(0.5, 31 / 60)
    with pytest.raises(InputError, match="UNTIL"):
        until_minutes("Forever")


def test_table_row() -> None:
    row = table_row("NAME   ID    UNTIL", "phi4:latest   ac89   4 minutes from now")
    assert row["UNTIL"] == "4 minutes from now"
    with pytest.raises(InputError):
        table_row("NAME   ID", "only-one-cell")


def test_the_commands_of_a_real_help_text_in_its_order() -> None:
    commands = listed_commands(HELP.read_text("utf-8"))
    assert commands[:2] == ["serve", "create"]
    assert "tag" not in commands and "cp" in commands and "help" in commands
    assert "-h," not in commands  # the Flags: section is not a command


def _ollama_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    tool = tmp_path / "bin" / "ollama"
    tool.parent.mkdir()
    tool.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tool.parent))


def test_cli_help_runs_the_ollama_on_path(tmp_path, monkeypatch) -> None:
    # Quoted: the checkout's path may hold spaces and non-ASCII letters.
    _ollama_on_path(tmp_path, monkeypatch,
                    f"while read -r l; do echo \"$l\"; done < {shlex.quote(str(HELP))}")
    shown = cli_help()
    assert shown is not None and shown.executable == str(tmp_path / "bin" / "ollama")
    assert list(shown.commands) == listed_commands(HELP.read_text("utf-8"))


def test_cli_help_keeps_what_a_failing_cli_printed(tmp_path, monkeypatch) -> None:
    _ollama_on_path(tmp_path, monkeypatch, "echo 'Error: unknown flag' >&2; exit 1")
    shown = cli_help()
    assert shown is not None and "Error: unknown flag" in shown.text


def test_no_ollama_on_path_is_none(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert cli_help() is None
