"""What the ollama CLI prints, read back: the commands ``ollama --help`` lists, a table's
row by its header, and ``ollama ps``'s UNTIL.

``ollama ps`` prints when each loaded model expires as a humanised time
(Ollama's ``format.HumanTime``: whole minutes, rounded down, below an hour:
"4 minutes from now" is 4 to 5 minutes left; "About a minute" 1 to 2; "Forever"
for a pinned model). :func:`until_minutes` turns that label into the interval of
minutes left, the unit a keep-alive is stated in.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass

from claims.figures import Interval
from claims.probes.errors import InputError
from claims.probes.machine.tools import run_tool

__all__ = ["HELP_TIMEOUT_S", "CliHelp", "cli_help", "listed_commands", "table_row",
           "until_minutes"]

# ollama --help answers at once; a CLI that takes longer is not answering.
HELP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class CliHelp:
    """What ``ollama --help`` printed (stdout, then stderr) and the commands it lists."""

    executable: str
    text: str
    commands: tuple[str, ...]


def listed_commands(text: str) -> list[str]:
    """The first word of each line under "Available Commands:" (up to "Flags:"), in order.

    Without that heading every line's first word is taken: what the CLI printed is
    then shown as it is, and the claim's commands are not found in it."""
    section = text.split("Available Commands:", 1)[-1].split("Flags:", 1)[0]
    return [line.split()[0] for line in section.splitlines() if line.strip()]


def cli_help(timeout: float = HELP_TIMEOUT_S) -> CliHelp | None:
    """``ollama --help`` from the ``ollama`` on PATH (None when there is none).

    Its exit status is not judged: the listing is the measurement."""
    exe = shutil.which("ollama")
    if exe is None:
        return None
    run = run_tool([exe, "--help"], timeout=timeout, check=False)
    text = run.stdout + run.stderr
    return CliHelp(exe, text, tuple(listed_commands(text)))

_MINUTES = re.compile(r"(\d+) minutes from now\Z")
_SECONDS = re.compile(r"(\d+) seconds? from now\Z")


def table_row(header: str, line: str) -> dict[str, str]:
    """One row of an ollama CLI table (columns separated by two or more spaces)."""
    names = re.split(r"\s{2,}", header.strip())
    cells = re.split(r"\s{2,}", line.strip())
    if len(names) != len(cells):
        raise InputError(f"{len(cells)} cells under {len(names)} columns", field=line[:80])
    return dict(zip(names, cells, strict=True))


def until_minutes(label: str) -> Interval:
    """Minutes left before a model unloads, from ``ollama ps``'s UNTIL label."""
    text = " ".join(label.split())
    if m := _MINUTES.match(text):
        n = int(m.group(1))
        return Interval(float(n), float(n + 1))
    if text == "About a minute from now":
        return Interval(1.0, 2.0)
    if m := _SECONDS.match(text):
        return Interval(int(m.group(1)) / 60, (int(m.group(1)) + 1) / 60)
    if text == "Less than a second from now":
        return Interval(0.0, 1 / 60)
    raise InputError(f"not an UNTIL label of ollama ps: {label!r}")
