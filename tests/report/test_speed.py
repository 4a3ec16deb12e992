"""Rendering scales with the evidence: a ratio benchmark, measured side by side.

No absolute time budget (a shared two-core machine measures its neighbours as
much as the renderer): the report for four times the claims is rendered in
the same process, alternating with the smaller one, and the ratio of their
best CPU times is checked generously. Linear rendering gives a ratio of at
most 4 (less, since the plots and templates cost the same in both); a
renderer that walks every claim for every claim approaches 16.
"""

from __future__ import annotations

import time

import pytest

from claims.report import render_html

# Subprocesses or timings: left out of the quick loop (tests/README.md).
# Timed side by side: run apart from other tests (scripts/test.sh runs `alone` last).
pytestmark = [pytest.mark.slow, pytest.mark.alone]

SMALL, LARGE = 100, 400
ROUNDS = 3
# Generous: halfway between linear (4) and quadratic (16) scaling.
MAX_RATIO = 8.0


def _best_cpu_s(evidence: dict, rounds: int = 1) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        render_html(evidence)
        best = min(best, time.process_time() - start)
    return best


def test_report_rendering_scales_linearly_with_the_claims(make_evidence):
    small, large = make_evidence(extra_claims=SMALL), make_evidence(extra_claims=LARGE)
    render_html(small)  # warm-up: imports, template compilation, matplotlib's font cache
    times = {"small": float("inf"), "large": float("inf")}
    for _ in range(ROUNDS):  # alternate, so a busy moment hits both sides
        times["small"] = min(times["small"], _best_cpu_s(small))
        times["large"] = min(times["large"], _best_cpu_s(large))
    ratio = times["large"] / times["small"]
    print(f"render: {SMALL} extra claims {times['small']:.3f} s, {LARGE}: "
          f"{times['large']:.3f} s, ratio {ratio:.2f} (linear <= {LARGE / SMALL:.0f})")
    assert ratio < MAX_RATIO, times


def test_each_plot_is_drawn_once_per_placement(make_evidence):
    evidence = make_evidence(extra_claims=40)
    drawable = [
        chart
        for claim in evidence["claims"]
        if claim["id"] != "D2-BAD-CHART"
        for k in claim["checks"]
        for chart in k["charts"]
    ]
    bulk = [k for claim in evidence["claims"] if "-BULK-" in claim["id"] for k in claim["checks"]]
    for index, check in enumerate(bulk[:10]):
        check["charts"] = [drawable[index % len(drawable)]]
    html = render_html(evidence)
    assert html.count("<svg") == 2 * (len(drawable) + 10)  # in Figures and beside its claim
