"""The report shows the documents in the series' order: Week 5, the lab folder, after Week 4
and before the undated masterclass (the order is the catalog's: by publication date)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from claims.catalog import load_catalog
from claims.report.view import build_view


def test_week5_takes_its_place_in_the_series(make_evidence: Callable[..., dict[str, Any]]
                                             ) -> None:
    catalog = load_catalog()
    evidence: Any = make_evidence()
    evidence["documents"] = [d.to_json() for d in catalog.documents]
    shown = [d["id"] for d in build_view(evidence)["documents"]]
    assert shown[: len(catalog.documents)] == [d.id for d in catalog.documents]
    assert shown.index("W5") == shown.index("W4") + 1
    published = {d.id: d.published for d in catalog.documents}
    assert published["W4"] is not None and published["W5"] is not None
    assert published["W4"] < published["W5"] and published["MC"] is None
