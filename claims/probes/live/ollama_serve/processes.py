"""Processes on this machine, read from /proc: a server's children and their command lines.

Ollama runs inference in a child process (0.31: llama.cpp's ``llama-server``,
started with ``--port N --host 127.0.0.1``); finding it by parent pid is how
the runner-isolation check knows which process to kill. Linux only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ChildProcess", "children", "flag_value"]

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


def children(pid: int, proc: Path = PROC) -> list[ChildProcess]:
    """The live direct children of ``pid`` (zombies left out), by ascending pid."""
    found: list[ChildProcess] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if _ppid(stat) != pid or stat.rsplit(")", 1)[-1].split()[0] == "Z":
                continue
            raw = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue  # it ended while we looked
        argv = tuple(a.decode("utf-8", "replace") for a in raw.split(b"\0") if a)
        found.append(ChildProcess(int(entry.name), argv))
    return sorted(found, key=lambda c: c.pid)


def flag_value(argv: tuple[str, ...], flag: str) -> str | None:
    """The value after ``flag`` in a command line (``--port 44537`` -> "44537")."""
    for i, arg in enumerate(argv[:-1]):
        if arg == flag:
            return argv[i + 1]
    return None
