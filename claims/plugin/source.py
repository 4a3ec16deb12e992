"""The evidence source a claim test declares on its ``claim`` marker.

``@pytest.mark.claim("W2-DIGEST-FILENAME", source="recorded")`` says the test
reads what the document printed; without ``source`` a test on a live tier is
"live" and any other "fixture". The source is read here, when the check is
created and before any fixture or the test body runs, because it decides how
the check's figures are judged (:mod:`claims.check`).
"""

from __future__ import annotations

from typing import cast

import pytest

from claims.check import SOURCES, Source

__all__ = ["declared_source"]


def declared_source(item: pytest.Item, *, live: bool) -> Source:
    """The source the item's claim markers declare, else the tier's default.

    Fails the test (a usage error, not a verdict) for an unknown source, an
    unknown keyword, or claim markers that declare different sources.
    """
    declared: dict[str, None] = {}
    for mark in item.iter_markers("claim"):
        extra = sorted(set(mark.kwargs) - {"source"})
        if extra:
            pytest.fail(f"@pytest.mark.claim takes only source=, not {', '.join(extra)}",
                        pytrace=False)
        if "source" in mark.kwargs:
            declared.setdefault(mark.kwargs["source"], None)
    if len(declared) > 1:
        shown = ", ".join(map(repr, declared))
        pytest.fail(f"the claim markers declare different sources: {shown}", pytrace=False)
    value = next(iter(declared), "live" if live else "fixture")
    if value not in SOURCES:
        pytest.fail(f"@pytest.mark.claim(source={value!r}): the source is one of "
                    f"{', '.join(SOURCES)}", pytrace=False)
    return cast(Source, value)
