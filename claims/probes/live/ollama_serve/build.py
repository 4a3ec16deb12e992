"""Which llama.cpp build an Ollama server's runner is: read from its log or the runner binary.

Ollama 0.31 and later run models in llama.cpp's ``llama-server``, shipped beside the
``ollama`` binary (``<prefix>/lib/ollama/llama-server`` for ``<prefix>/bin/ollama``).
/api/version names only Ollama's own version, so the runner's build is read from what
llama.cpp prints, which differs between releases (fixtures/ollama-*/README.md):

* the runner's start-up line in the server log, on every model load:
  ``common_params_print_info: build 9888 (cb295bf) with GNU …`` (0.31.2) and
  ``… build 10488 (9d77fa1) …`` (0.32.15);
* ``llama-server --version``: ``version: 9888 (cb295bf)`` (0.31.2) and
  ``version: 0.1.2-dev (build 10488, commit 9d77fa1)`` (0.32.15); the second form is
  also what 0.32.15 logs when ``ollama create`` quantizes;
* ``llama_print_build_info: build = 9888 (cb295bf)``, what 0.31.2 logs then.

A runner start line is what ran, so it wins over the others; of several, the last.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.probes.errors import ProbeError
from claims.probes.machine.tools import run_tool

__all__ = ["RunnerBuild", "parse_runner_build", "runner_binary", "runner_version"]

_HEX = r"(?P<commit>[0-9a-f]{6,40})"
# Each form with the name of where it comes from; tried in this order.
_FORMS = (
    ("runner start line",
     re.compile(rf"common_params_print_info: build (?P<build>\d+) \({_HEX}\)")),
    ("llama-server --version", re.compile(rf"^version: (?P<build>\d+) \({_HEX}\)", re.M)),
    ("llama-server --version",
     re.compile(rf"^version: \S+ \(build (?P<build>\d+), commit {_HEX}\)", re.M)),
    ("build info line", re.compile(rf"llama_print_build_info: build = (?P<build>\d+) \({_HEX}\)")),
)
# Build numbers are five digits at most for years to come; a longer run of digits is junk.
_MAX_BUILD = 10**7


@dataclass(frozen=True)
class RunnerBuild:
    """A llama.cpp build: its number (the ``bNNNN`` of its release tag) and commit."""

    build: int
    commit: str
    source: str  # where it was read: "runner start line", "llama-server --version", ...

    @property
    def label(self) -> str:
        """As llama.cpp tags its releases: ``b10488 (9d77fa1)``."""
        return f"b{self.build} ({self.commit})"

    def to_json(self) -> dict[str, Any]:
        return {"build": self.build, "commit": self.commit, "label": self.label,
                "source": self.source}


def parse_runner_build(text: str) -> RunnerBuild | None:
    """The runner's llama.cpp build in a server log or ``--version`` output; None if absent."""
    for source, pattern in _FORMS:
        found = [m for m in pattern.finditer(text) if int(m.group("build")) < _MAX_BUILD]
        if found:
            last = found[-1]
            return RunnerBuild(int(last.group("build")), last.group("commit"), source)
    return None


def runner_binary(ollama: Path) -> Path | None:
    """The ``llama-server`` an ``ollama`` binary runs, where Ollama looks for it; None if absent."""
    for lib in (ollama.parent.parent / "lib" / "ollama", ollama.parent / "lib" / "ollama"):
        candidate = lib / "llama-server"
        if candidate.is_file():
            return candidate
    return None


def runner_version(ollama: Path, *, timeout: float = 10.0) -> RunnerBuild | None:
    """The build ``llama-server --version`` reports for the runner beside ``ollama``.

    None when there is no runner there, it fails, or it prints no build: this is a
    fact about the server, never a reason to stop a run.
    """

    binary = runner_binary(ollama)
    if binary is None:
        return None
    try:
        run = run_tool([str(binary), "--version"], timeout=timeout, check=False)
    except ProbeError:
        return None
    return parse_runner_build(run.stdout + "\n" + run.stderr)
