"""Render the evidence document into one self-contained HTML page (jinja2).

Autoescaping is on for every template, so claim text, measured values, reasons
and raw HTTP exchanges from the evidence are shown as text, never as markup;
the only markup inserted unescaped is the SVG that :mod:`claims.report.plots`
produced with matplotlib, whose text matplotlib escapes itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jinja2

from claims.report.view import build_view

__all__ = ["environment", "render_html"]

_ENV: jinja2.Environment | None = None


def environment() -> jinja2.Environment:
    """The shared template environment (report and diff pages)."""
    global _ENV
    if _ENV is None:
        _ENV = jinja2.Environment(
            loader=jinja2.PackageLoader("claims.report", "templates"),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
            undefined=jinja2.StrictUndefined,
        )
    return _ENV


def render_html(evidence: Mapping[str, Any]) -> str:
    """The report page for one evidence document."""
    template = environment().get_template("report.html.j2")
    return template.render(**build_view(evidence)).lstrip()
