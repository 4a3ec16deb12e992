"""What pytest-xdist hands its workers must be UTF-8: checked before any worker starts.

xdist sends the command line's options and arguments to each worker through
execnet, which refuses a string that is not UTF-8 encodable. A path whose name is
not valid UTF-8 (Linux allows any bytes; Python keeps them as surrogate escapes)
given as ``--ollama-models-dir`` ended the run with execnet's ``DumpError``
(INTERNALERROR, no test run). Without ``-n`` such a path works; with it, it is a
usage error naming the option and the path (its odd bytes shown as escapes), and
what to do instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from claims.terminal import safe

__all__ = ["check_worker_arguments"]


def _distributed(config: pytest.Config) -> bool:
    option = config.option
    if hasattr(config, "workerinput"):
        return False  # a worker: it already received them
    spread = getattr(option, "numprocesses", None) or getattr(option, "tx", None)
    return bool(spread) and getattr(option, "dist", "no") != "no"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(text: str) -> str:
    return safe(os.fsencode(text).decode("utf-8", "backslashreplace"))


def check_worker_arguments(config: pytest.Config) -> None:
    """A usage error for an option value or argument xdist could not send to its workers."""
    if not _distributed(config):
        return
    for dest, value in sorted(vars(config.option).items()):
        for text in _strings(value):
            if not _encodable(text):
                flag = "--" + dest.replace("_", "-")
                raise pytest.UsageError(
                    f"{flag} {_shown(text)}: the name is not valid UTF-8, and pytest-xdist "
                    "(-n) can only hand UTF-8 text to its workers; run without -n, or name "
                    "it through a link whose name is UTF-8"
                )
    for text in _strings(list(config.args)):
        if not _encodable(text):
            raise pytest.UsageError(
                f"the argument {_shown(text)} is not valid UTF-8, and pytest-xdist (-n) can "
                "only hand UTF-8 text to its workers; run without -n, or rename it"
            )
