"""The HTML evidence report, rendered from evidence.json alone.

One self-contained file: styles, scripts and plots are inline, nothing is
fetched. ``render_html`` takes the evidence document (as written by the plugin
or read with :func:`claims.evidence.load_evidence`) and returns the page.
"""

from claims.report.html import render_html

__all__ = ["render_html"]
