"""Rendering a full run's report stays fast: under 2 s for ~200 claims with their plots.

Measured in a fresh interpreter, so importing jinja2 and matplotlib (most of
the cost) counts, as it does at the end of a pytest run or in the CLI. The
budget is on CPU time of that process: wall time on a shared two-core machine
measures the neighbours as much as the renderer.
"""

from __future__ import annotations

import json
import subprocess
import sys

BUDGET_CPU_S = 2.0

SCRIPT = """
import json, sys, time
evidence = json.load(open(sys.argv[1], encoding="utf-8"))
wall, cpu = time.perf_counter(), time.process_time()
from claims.report import render_html
html = render_html(evidence)
print(json.dumps({"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                  "chars": len(html), "svgs": html.count("<svg")}))
"""


def test_full_report_renders_within_budget(make_evidence, tmp_path):
    evidence = make_evidence(extra_claims=190)
    drawable = [
        chart
        for claim in evidence["claims"]
        if claim["id"] != "D2-BAD-CHART"
        for k in claim["checks"]
        for chart in k["charts"]
    ]
    # A full run plots a dozen or so charts: add some to the bulk claims' checks.
    bulk = [k for claim in evidence["claims"] if "-BULK-" in claim["id"] for k in claim["checks"]]
    for index, check in enumerate(bulk[:10]):
        check["charts"] = [drawable[index % len(drawable)]]
    assert len(evidence["claims"]) >= 200
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps(evidence), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    print(f"render: {result}")
    assert result["svgs"] == 2 * (len(drawable) + 10)  # each plot in Figures and beside its claim
    assert result["cpu_s"] < BUDGET_CPU_S, result
