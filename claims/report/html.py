"""Render the evidence document into one self-contained HTML page (jinja2)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import jinja2

from claims.verdicts import DESCRIPTIONS, PRIORITY, VERDICTS, check_verdict

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("claims.report", "templates"),
    autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
)


def _gib(n: Any) -> str:
    try:
        return f"{int(n) / 1024**3:.1f} GiB"
    except (TypeError, ValueError):
        return "unknown"


_ENV.filters["gib"] = _gib
_ENV.globals["check_verdict"] = check_verdict


def _grouped(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Documents in series order, their sections in document order, claims inside."""
    docs = {d["id"]: d for d in doc.get("documents", [])}
    out = []
    for doc_id, meta in docs.items():
        claims = [c for c in doc["claims"] if c["document"] == doc_id]
        sections = []
        for name in meta.get("sections", []):
            inside = [c for c in claims if c["section"] == name]
            if inside:
                sections.append({"name": name, "claims": inside})
        counts = Counter(c["verdict"] for c in claims)
        out.append({"meta": meta, "sections": sections, "counts": counts, "total": len(claims)})
    return out


def render_html(evidence: dict[str, Any]) -> str:
    """The report page for one evidence document."""
    template = _ENV.get_template("report.html.j2")
    return template.render(
        ev=evidence,
        run=evidence["run"],
        machine=evidence["run"]["machine"],
        groups=_grouped(evidence),
        verdicts=VERDICTS,
        order=PRIORITY + ("untestable",),
        descriptions=DESCRIPTIONS,
        totals=evidence["summary"]["by_verdict"],
    )
