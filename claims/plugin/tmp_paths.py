"""pytest's temporary folders written one way, so two runs' evidence differs only where a run did.

A check that built a store or a file under ``tmp_path`` names it in its facts, its
message or an attachment: ``/tmp/pytest-of-root/pytest-124/ollama-store0``, whose
number grows run by run (and gains ``popen-gw0`` under xdist). In the check record
and in the skip reason pytest prints, this session's base folder
(:func:`claims.plugin.pytest_private.basetemp`) is written ``<pytest-tmp>``; what
follows it (the test's own folder and file names) is kept, and so is any other
session's folder (a project a pytester run made, whose paths are real to its tests).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

__all__ = ["PLACEHOLDER", "stable", "stable_text"]

PLACEHOLDER = "<pytest-tmp>"
_MAX_DEPTH = 32

T = TypeVar("T")


def stable_text(text: str, base: str) -> str:
    """``text`` with the folder ``base`` written as :data:`PLACEHOLDER`."""
    return text.replace(base, PLACEHOLDER) if base and base in text else text


def stable(value: T, base: Path | str | None, depth: int = 0) -> T:
    """``value`` (JSON-like: dicts, lists, text) with :func:`stable_text` applied to every
    text in it, keys included; a new object where anything changed. ``base`` None: as is."""
    if base is None:
        return value
    root = str(base)
    out: Any = value
    if isinstance(value, str):
        out = stable_text(value, root)
    elif depth > _MAX_DEPTH:
        return value
    elif isinstance(value, dict):
        out = {stable_text(k, root) if isinstance(k, str) else k: stable(v, root, depth + 1)
               for k, v in value.items()}
    elif isinstance(value, list):
        out = [stable(v, root, depth + 1) for v in value]
    elif isinstance(value, tuple):
        out = tuple(stable(v, root, depth + 1) for v in value)
    return out  # type: ignore[no-any-return]
