"""What a ``-m`` expression selects, read by pytest's own parser.

Two questions the plugin asks of the expression before the run starts: whether
it is a certification's (claims tests chosen by tier, :func:`selects_only_marked`)
and whether it asks for a tier that must be chosen by name (the hub tier reaches
huggingface.co, so only ``-m hub`` and the like start it: :func:`names_tier`).
Both are answered by evaluating pytest's compiled expression
(:func:`claims.plugin.pytest_private.mark_expression`) on combinations of the
marker names it mentions, never by reading its words.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from claims.plugin import pytest_private
from claims.tiers import TIERS

__all__ = ["MOST_NAMES", "names_tier", "selects_only_marked"]

# Marker names an expression may mention and still be read: every combination of them is
# tried (2**16 tiny evaluations at most); past it, the answer is no.
MOST_NAMES = 16


def _kept(expression: pytest_private.MarkExpression) -> Iterator[frozenset[str]]:
    """The non-empty sets of the expression's own marker names that it keeps a test with."""
    names = sorted(expression.names)
    for size in range(1, len(names) + 1):
        for chosen in combinations(names, size):
            if expression.selects(chosen):
                yield frozenset(chosen)


def selects_only_marked(markexpr: str) -> bool:
    """Whether ``-m markexpr`` can keep a tier's test and never keeps a test with no marker.

    An unmarked test must be left out, and some combination of the markers it names,
    a tier among them, must be kept (``-m slow`` names no tier; ``-m "offline(x=1)"``
    keeps no test marked plainly ``offline``). Raises
    :class:`~claims.plugin.pytest_private.BadExpression` where pytest would refuse the
    expression.
    """
    if not markexpr:
        return False  # no -m at all: the whole suite
    expression = pytest_private.mark_expression(markexpr)
    tiers = set(TIERS.names())
    if expression.selects(()) or not tiers & expression.names or len(
        expression.names
    ) > MOST_NAMES:
        return False
    return any(tiers & kept for kept in _kept(expression))


def names_tier(markexpr: str, tier: str) -> bool:
    """Whether ``-m markexpr`` names ``tier`` and keeps a test of that tier alone.

    ``-m hub`` and ``-m "hub and not slow"`` do; ``-m "offline and not (hub)"``,
    ``-m "offline or not hub"`` and ``-m "not offline"`` (which names no hub) do not.
    Raises :class:`~claims.plugin.pytest_private.BadExpression` where pytest would
    refuse the expression.
    """
    if not markexpr:
        return False
    expression = pytest_private.mark_expression(markexpr)
    if tier not in expression.names or len(expression.names) > MOST_NAMES:
        return False
    others = set(TIERS.names()) - {tier}
    return any(tier in kept and not others & kept for kept in _kept(expression))
