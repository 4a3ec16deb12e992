"""pytest's temporary folders written one way, so two runs' evidence differs only where a run did.

A check that built a store or a file under ``tmp_path`` names it in its facts, its
message or an attachment: ``/tmp/pytest-of-root/pytest-124/ollama-store0``, whose
number grows run by run (and gains ``popen-gw0`` under xdist). In the check record
and in the skip reason pytest prints, that prefix is written ``<pytest-tmp>``; what
follows it (the test's own folder and file names) is kept. A ``--basetemp`` the user
chose is left as it is (it does not move).
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

__all__ = ["PLACEHOLDER", "stable", "stable_text"]

PLACEHOLDER = "<pytest-tmp>"
# <the system's temporary folder>/pytest-of-<user>/pytest-<N>[/popen-gw<N>]
_BASETEMP = re.compile(r"(?:/[^\s'\"/]+)*/pytest-of-[^\s'\"/]+/pytest-\d+(?:/popen-gw\d+)?")
_MAX_DEPTH = 32

T = TypeVar("T")


def stable_text(text: str) -> str:
    """``text`` with each pytest temporary base folder written as :data:`PLACEHOLDER`."""
    return _BASETEMP.sub(PLACEHOLDER, text) if "pytest-of-" in text else text


def stable(value: T, depth: int = 0) -> T:
    """``value`` (JSON-like: dicts, lists, text) with :func:`stable_text` applied to every
    text in it, keys included; a new object where anything changed."""
    out: Any = value
    if isinstance(value, str):
        out = stable_text(value)
    elif depth > _MAX_DEPTH:
        return value
    elif isinstance(value, dict):
        out = {stable_text(k) if isinstance(k, str) else k: stable(v, depth + 1)
               for k, v in value.items()}
    elif isinstance(value, list):
        out = [stable(v, depth + 1) for v in value]
    elif isinstance(value, tuple):
        out = tuple(stable(v, depth + 1) for v in value)
    return out  # type: ignore[no-any-return]
