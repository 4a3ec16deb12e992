"""The HTML evidence report and the comparison of two runs, from evidence.json alone.

* :func:`render_html` - one self-contained page per run (styles, script and
  plots inline; nothing is fetched): what ran, on what machine, the verdicts per
  document, every claim with its stated and measured figures, and plots.
* :mod:`claims.report.diff` - ``diff_evidence``, ``format_diff_text`` and
  ``render_diff_html`` for ``python -m claims diff A.json B.json``.

Modules: ``view`` prepares what a page shows, ``plots`` draws charts with
matplotlib, ``machine`` reads the machine fingerprint, ``hints`` says how to run
what was not run, ``html`` and ``templates/`` lay the page out (jinja2).
"""

from claims.report.html import render_html

__all__ = ["render_html"]
