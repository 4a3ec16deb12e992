"""W1 claims decided by the lab's own notes (fixtures/lab): the roadmap's week files and
the Week 1 system report the inventory script wrote on the Spark."""

from __future__ import annotations

import pytest

from claims.probes.files.lab_notes import gpu_idle_line, kernel_release, read_roadmap
from claims.testing import lab

pytestmark = pytest.mark.offline

REPORT = "week-01-environment/system-report.md"


@pytest.mark.claim("W1-ROADMAP", source="recorded")
def test_roadmap_weeks_and_phases(check) -> None:
    roadmap = read_roadmap(lab.lab_dir() / "roadmap")
    check.fact("lab roadmap", f"{lab.PROVENANCE}: roadmap/week-NN.md, roadmap/cuda-track.md")
    check.against("weeks", roadmap.weeks, note="week-NN.md files, each naming its phase")
    spans = roadmap.phase_weeks()
    check.against("phases", len(spans))
    for phase, (first, last) in sorted(spans.items()):
        weeks = [w for w, p in roadmap.phase_of_week.items() if p == phase]
        check.measure(f"phase {phase} weeks contiguous", weeks, holds=weeks == list(
            range(first, last + 1)), expected=f"weeks {first} to {last} without a gap")
        check.against(f"phase {phase} weeks", first, note=f"first week {first}")
        check.against(f"phase {phase} weeks", last, note=f"last week {last}")
    check.against("CUDA track start week", roadmap.cuda_track_start,
                  note="cuda-track.md: Level 1 starts around that week")
    check.attach("roadmap titles", roadmap.titles, kind="json")
    check.against("week", roadmap.first_week_titled("environment"),
                  note="the week whose title names the environment, the post's subject")
    week = round(check.premise("week"))
    check.against("phase of week 1", roadmap.phase_of_week.get(week), note=f"week-{week:02d}.md")
    check.against("first model week", roadmap.first_week_titled("first model"),
                  note="the first week whose title names running a first model")



@pytest.mark.claim("W1-KERNEL", source="recorded")
def test_kernel_release(check) -> None:
    report = lab.lab_dir() / REPORT
    check.fact("lab system report", f"{lab.PROVENANCE}: {REPORT}")
    check.against("kernel release", kernel_release(report), note="the report's uname -a line")


@pytest.mark.claim("W1-SMI-IDLE", source="recorded")
def test_idle_gpu_line(check) -> None:
    line = gpu_idle_line(lab.lab_dir() / REPORT)
    check.fact("lab system report", f"{lab.PROVENANCE}: {REPORT} (nvidia-smi, trimmed)")
    check.observe("GPU", line.name)
    check.against("temperature", line.temperature_c, unit="C")
    check.against("performance state", line.perf_state)
    check.against("power draw", line.power_w, unit="W")
    check.against("utilisation", line.utilization_pct, unit="%")
    check.not_judged("power cap", "the lab's report trims nvidia-smi's power cap column")


@pytest.mark.claim("W1-INVENTORY-SCRIPT", source="recorded")
def test_printed_inventory_script_is_the_labs(check) -> None:
    from claims.probes.files.lab_notes import inventory_runs, shell_function_one_line

    script = lab.lab_dir() / "week-01-environment/inventory.sh"
    check.fact("lab script", f"{lab.PROVENANCE}: week-01-environment/inventory.sh")
    runs = inventory_runs(script)
    check.against("steps", [label for label, _ in runs], note="the lab's run lines, in order")
    check.observe("the lab's commands", dict(runs))
    check.against("run helper", shell_function_one_line(script, "run"),
                  note="the lab's run() on one line")
