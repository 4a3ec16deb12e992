"""Processes on this machine, read from /proc: a server's children and their command lines.

Ollama runs inference in a child process (0.31: llama.cpp's ``llama-server``,
started with ``--port N --host 127.0.0.1``; older versions re-run ``ollama runner``);
finding it by parent pid is how the runner-isolation check knows which process to
kill and how the runner-transport claim finds the user's server's runner. Linux only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ChildProcess", "Runner", "children", "flag_value", "runner_form", "runners"]

PROC = Path("/proc")


@dataclass(frozen=True)
class ChildProcess:
    """One child of a process: its pid and its command line (argv)."""

    pid: int
    argv: tuple[str, ...]

    @property
    def name(self) -> str:
        return Path(self.argv[0]).name if self.argv else ""


def _ppid(stat: str) -> int | None:
    # /proc/PID/stat is "pid (comm) state ppid ..."; comm may hold spaces and
    # parentheses, so split after the last ")".
    rest = stat.rsplit(")", 1)[-1].split()
    if len(rest) < 2 or not rest[1].isdigit():
        return None
    return int(rest[1])


@dataclass(frozen=True)
class Runner:
    """An Ollama runner process: its pid, its parent's, which kind, its command line."""

    pid: int
    ppid: int | None
    form: str
    argv: tuple[str, ...]


def _live_processes(proc: Path) -> list[tuple[int, int | None, tuple[str, ...]]]:
    """(pid, parent pid, argv) of every live process readable in ``proc`` (zombies left out)."""
    found: list[tuple[int, int | None, tuple[str, ...]]] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text("utf-8", "replace")
            if stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]:
                continue
            raw = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue  # it ended while we looked
        argv = tuple(a.decode("utf-8", "replace") for a in raw.split(b"\0") if a)
        found.append((int(entry.name), _ppid(stat), argv))
    return sorted(found)


def children(pid: int, proc: Path = PROC) -> list[ChildProcess]:
    """The live direct children of ``pid`` (zombies left out), by ascending pid."""
    return [ChildProcess(p, argv) for p, ppid, argv in _live_processes(proc) if ppid == pid]


def runner_form(argv: tuple[str, ...] | list[str]) -> str | None:
    """Which kind of Ollama runner a command line starts, or None if it is not one.

    Older Ollama re-runs its own binary as ``ollama runner --model ... --port N``;
    Ollama 0.31 starts llama.cpp's ``llama-server --model ... --port N --host
    127.0.0.1`` (the server log's "starting llama-server" line).
    """
    if len(argv) > 1 and argv[0].rsplit("/", 1)[-1] == "ollama" and argv[1] == "runner":
        return "ollama runner"
    if argv and argv[0].rsplit("/", 1)[-1] == "llama-server":
        return "llama-server"
    return None


def runners(proc: Path = PROC) -> list[Runner]:
    """Every Ollama runner process readable here, whoever its parent (by ascending pid)."""
    found = []
    for pid, ppid, argv in _live_processes(proc):
        form = runner_form(argv)
        if form is not None:
            found.append(Runner(pid, ppid, form, argv))
    return found


def flag_value(argv: tuple[str, ...], flag: str) -> str | None:
    """The value after ``flag`` in a command line (``--port 44537`` -> "44537")."""
    for i, arg in enumerate(argv[:-1]):
        if arg == flag:
            return argv[i + 1]
    return None
