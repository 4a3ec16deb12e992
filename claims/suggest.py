""""Did you mean ...?" for a misspelt claim id, tier, document or option value.

Pure text, no imports from the suite: the CLI, the plugin and the audit all call it.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Iterable

__all__ = ["choice", "did_you_mean"]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` naming the closest known word, or ``""`` when none is close.

    Case is ignored for the match and kept in the answer (``w1-arc`` -> ``W1-ARCH``).
    """
    by_folded: dict[str, str] = {}
    for name in known:
        by_folded.setdefault(name.casefold(), name)
    close = difflib.get_close_matches(word.casefold(), list(by_folded), n=1, cutoff=0.6)
    if not close:
        return ""
    return f" (did you mean {by_folded[close[0]]!r}?)"


def choice(known: Iterable[str], what: str) -> Callable[[str], str]:
    """An argparse ``type=`` that accepts one of ``known`` and refuses the rest with a
    suggestion and the list (argparse's own ``choices`` error has no suggestion before
    Python 3.14)."""
    names = tuple(known)

    def check(value: str) -> str:
        if value in names:
            return value
        raise argparse.ArgumentTypeError(
            f"unknown {what} {value!r}{did_you_mean(value, names)}; "
            f"one of: {', '.join(names)}"
        )

    check.__name__ = what  # argparse names the type in some messages
    return check
