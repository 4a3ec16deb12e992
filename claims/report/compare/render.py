"""``claims compare`` shown: the terminal summary and the fleet page (HTML)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from claims.report.compare.machines import Comparison, Machine, format_number
from claims.report.diff import BAD, CONFIRMED
from claims.report.html import content_security_policy, environment
from claims.report.plots import MEASURED, REFERENCE
from claims.report.view import ORDER, SOURCES
from claims.terminal import safe
from claims.verdicts import DESCRIPTIONS, VERDICTS

# Runs shown side by side at once; more are paged (the page's script switches pages).
PAGE_RUNS = 12


# --- terminal -------------------------------------------------------------------
def format_compare_text(result: Comparison) -> str:
    """A terminal summary; every field from the evidence goes through claims.terminal.safe."""
    lines = [
        f"{len(result.runs)} run(s) on {len(result.machines)} machine(s); "
        f"{len(result.skipped)} file(s) skipped"
    ]
    for m in result.machines:
        lines.append(f"  {m.name}: {safe(m.title)} ({len(m.runs)} run(s))")
    for s in result.skipped:
        lines.append(f"  skipped {safe(s.path)}: {safe(s.reason)}")
    dis = result.disagreements
    lines.append(f"verdicts that differ between machines: {len(dis)}")
    for c in dis:
        words = ", ".join(
            f"{k} {v}" + (" (simulated)" if k in c["simulated_words"] else "")
            for k, v in c["words"].items()
        )
        lines.append(f"  ! {safe(c['id'])}: {safe(words)}")
    spread = [c for c in result.claims if c["group"] == "spread"]
    lines.append(f"figures that spread beyond their tolerance: {len(spread)}")
    for c in spread:
        s = c["stats"]
        lines.append(
            f"    {safe(c['id'])} {safe(s['name'])}: {s['text']['min']} to {s['text']['max']}"
            f" {safe(s['unit'])} (tolerance {format_number(s['tolerance'])})"
        )
    changes = sum(len(h["verdict_changes"]) for h in result.history)
    regressions = sum(
        1 for h in result.history for c in h["verdict_changes"] if c["kind"] == "regression"
    )
    lines.append(
        f"history: {len(result.history)} step(s) between runs of a machine, "
        f"{changes} verdict change(s), {regressions} regression(s)"
    )
    return "\n".join(lines) + "\n"


# --- HTML -----------------------------------------------------------------------
def strip_plot(row: Mapping[str, Any], machines: Sequence[Machine]) -> Markup | None:
    """A small SVG: each run's figure per machine (a dot), the document's figure as a line.

    Hand-drawn rather than through matplotlib: a fleet page has one per claim,
    and a few hundred bytes each keep a page of 200 runs light. Every text in
    it is escaped.
    """
    stats = row.get("stats")
    points = row.get("points") or []
    if not stats or not points:
        return None
    values = [float(p["value"]) for p in points]
    extra = [float(x) for x in (stats.get("stated"),) if x is not None]
    if stats.get("accepted"):
        extra.extend(float(x) for x in stats["accepted"])
    lo, hi = min(values + extra), max(values + extra)
    if hi == lo:
        lo, hi = lo - (abs(lo) or 1) * 0.05, hi + (abs(hi) or 1) * 0.05
    log = lo > 0 and hi / lo > 1000

    def scale(x: float) -> float:
        if log:
            return (math.log10(x) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        return (x - lo) / (hi - lo)

    shown = [m for m in machines if any(p["machine"] == m.number for p in points)]
    left, width, step = 34.0, 200.0, 12.0
    height = step * len(shown) + 22.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="strip" width="{left + width + 8:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {left + width + 8:.0f} {height:.0f}" role="img">',
        f"<title>{escape(stats['name'])}: each machine's runs; the line is the document's "
        "figure</title>",
    ]
    accepted = stats.get("accepted")
    if accepted:
        x0, x1 = left + width * scale(accepted[0]), left + width * scale(accepted[1])
        parts.append(
            f'<rect x="{x0:.1f}" y="2" width="{max(x1 - x0, 1.0):.1f}" height="{height - 18:.1f}" '
            'fill="#fbe3e1"><title>accepted range of the stated figure</title></rect>'
        )
    if stats.get("stated") is not None:
        x = left + width * scale(stats["stated"])
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="1" y2="{height - 15:.1f}" stroke="{REFERENCE}" '
            f'stroke-width="1.5" stroke-dasharray="3 2"><title>the document: '
            f"{escape(format_number(stats['stated']))} {escape(stats['unit'])}</title></line>"
        )
    for i, m in enumerate(shown):
        y = 8 + i * step
        parts.append(
            f'<text x="{left - 4:.0f}" y="{y + 3.5:.1f}" text-anchor="end" font-size="9" '
            f'fill="#5b6770">{escape(m.name)}</text>'
            f'<line x1="{left}" x2="{left + width}" y1="{y}" y2="{y}" stroke="#eef1f3"/>'
        )
        for p in (p for p in points if p["machine"] == m.number):
            x = left + width * scale(p["value"])
            fill = MEASURED if p.get("latest") else "#fff"
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y}" r="3.2" fill="{fill}" stroke="{MEASURED}" '
                f'stroke-width="1.2"><title>{escape(m.name)} run {p["run"]}: '
                f"{escape(p['display'])}</title></circle>"
            )
    axis_y = height - 6
    parts.append(
        f'<text x="{left}" y="{axis_y:.0f}" font-size="8.5" fill="#5b6770">'
        f"{escape(format_number(lo))}</text>"
        f'<text x="{left + width}" y="{axis_y:.0f}" font-size="8.5" fill="#5b6770" '
        f'text-anchor="end">{escape(format_number(hi))}{" (log)" if log else ""}</text>'
    )
    parts.append("</svg>")  # no ids inside: two plots on a page cannot clash
    return Markup("".join(parts))


def _pages(count: int) -> list[tuple[int, int, int]]:
    """(page, last child before it, first child after it) of the run columns, for the CSS.

    A row's children are the claim, the figure, then one cell per run: page p
    shows children 12p+3 to 12p+14 (with PAGE_RUNS 12), by position alone, so
    no cell carries a class for its page.
    """
    return [
        (p, PAGE_RUNS * p + 2, PAGE_RUNS * (p + 1) + 3)
        for p in range((count + PAGE_RUNS - 1) // PAGE_RUNS)
    ]


def _script() -> str:
    loader = environment().loader
    assert loader is not None
    source, _, _ = loader.get_source(environment(), "compare.js.j2")
    return source


def render_compare_html(result: Comparison) -> str:
    """The fleet page (self-contained, CSP-strict; evidence text escaped by the template)."""
    groups = {
        g: [c for c in result.claims if c["group"] == g] for g in ("disagree", "spread", "rest")
    }
    # The rest: claims some run checked first, then what no run checked.
    groups["rest"].sort(key=lambda c: not c["checked_somewhere"])
    plots = {
        c["id"]: strip_plot(c, result.machines) for c in result.claims if c["stats"]
    }
    script = _script()
    template = environment().get_template("compare.html.j2")
    return template.render(
        result=result,
        groups=groups,
        plots=plots,
        pages=_pages(len(result.runs)),
        page_runs=PAGE_RUNS,
        firsts={m.runs[0].column for m in result.machines},
        order=ORDER,
        verdicts=VERDICTS,
        descriptions=DESCRIPTIONS,
        sources=SOURCES,
        bad=BAD,
        confirmed=CONFIRMED,
        percent=lambda x: "n/a" if x is None else f"{x * 100:+.1f}%",
        script=script,
        csp=content_security_policy(script),
    ).lstrip()


