"""Running command-line tools: one call with a timeout, its output kept as text.

The machine probes read what tools print (``nvidia-smi``, ``nvcc``,
``lscpu``, ``free``, ``uname``): :func:`run_tool` runs one with a timeout and
returns a :class:`ToolRun` holding argv, exit status and output, whose
:meth:`ToolRun.transcript` is what a terminal would have shown and goes into
the evidence as it is.

Output is decoded leniently (a stray byte does not lose the rest) and capped
at :data:`MAX_OUTPUT_CHARS`: what these tools print is a few kilobytes, so the
cap only bites on a misbehaving tool, and parsers refuse text above it.

Errors: a tool that does not exist or cannot be executed is
:class:`~claims.probes.errors.PrerequisiteMissing`; one that fails, or hangs
past its timeout, is a :class:`ToolFailed`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from claims.probes.errors import PrerequisiteMissing, ProbeError

__all__ = ["MAX_OUTPUT_CHARS", "ToolFailed", "ToolRun", "run_tool"]

# Tool output worth parsing is a few kilobytes; a cap keeps a misbehaving tool
# (or a hostile file handed to a parser) from costing unbounded memory.
MAX_OUTPUT_CHARS = 2_000_000


class ToolFailed(ProbeError):
    """A tool ran but failed: non-zero exit, or no answer within its timeout."""


@dataclass(frozen=True)
class ToolRun:
    """One finished tool invocation: argv, exit status and output (text)."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def transcript(self) -> str:
        """What a terminal would have shown: the command, then its output."""
        shown = " ".join(self.argv)
        parts = [f"$ {shown}", self.stdout.rstrip("\n")]
        if self.stderr.strip():
            parts.append(self.stderr.rstrip("\n"))
        if self.returncode:
            parts.append(f"[exit status {self.returncode}]")
        return "\n".join(p for p in parts if p)


def run_tool(argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None,
             check: bool = True) -> ToolRun:
    """Run a command with a timeout (seconds); output is decoded leniently and capped.

    Raises :class:`PrerequisiteMissing` when the executable does not exist and
    :class:`ToolFailed` on a timeout, or on a non-zero exit when ``check``.
    """
    try:
        proc = subprocess.run(
            list(argv),
            capture_output=True,
            timeout=timeout,
            check=False,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise PrerequisiteMissing(f"{argv[0]}: no such program") from None
    except PermissionError:
        raise PrerequisiteMissing(f"{argv[0]}: not executable") from None
    except subprocess.TimeoutExpired:
        raise ToolFailed(f"{' '.join(argv)}: no answer within {timeout:g} s") from None
    except OSError as exc:
        raise ToolFailed(f"{' '.join(argv)}: cannot run ({exc.strerror})") from None
    out = proc.stdout.decode("utf-8", errors="replace")[:MAX_OUTPUT_CHARS]
    err = proc.stderr.decode("utf-8", errors="replace")[:MAX_OUTPUT_CHARS]
    run = ToolRun(tuple(argv), proc.returncode, out, err)
    if check and proc.returncode != 0:
        first = (err.strip() or out.strip()).splitlines()[:1]
        why = f": {first[0]}" if first else ""
        raise ToolFailed(f"{' '.join(argv)} exited with status {proc.returncode}{why}")
    return run
