"""The lab's notes read as data (claims.probes.files.lab_notes), and bad notes refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from claims.probes.errors import InputError
from claims.probes.files.lab_notes import (
    gpu_idle_line,
    kernel_release,
    learn_items,
    read_roadmap,
    roadmap_pages,
    stated_head_counts,
    summary_table,
)


def _week(folder: Path, n: int, phase: str) -> None:
    (folder / f"week-{n:02d}.md").write_text(f"# Week {n}\n{phase}\n", "utf-8")


def test_roadmap_phases_and_cuda_start(tmp_path: Path) -> None:
    for n, p in ((1, 1), (2, 1), (3, 2)):
        _week(tmp_path, n, f"**Phase {p}: x**")
    (tmp_path / "cuda-track.md").write_text("## Level 1 — User (start ~Week 2)\n", "utf-8")
    roadmap = read_roadmap(tmp_path)
    assert roadmap.weeks == 3 and roadmap.phase_weeks() == {1: (1, 2), 2: (3, 3)}
    assert roadmap.cuda_track_start == 2


def test_roadmap_titles_and_the_first_week_titled(tmp_path: Path) -> None:
    for n, title in ((1, "Environment setup"), (2, "Your first model"), (3, "First model, again")):
        (tmp_path / f"week-{n:02d}.md").write_text(f"# Week {n}: {title}\n**Phase 1: x**\n")
    roadmap = read_roadmap(tmp_path)
    assert roadmap.titles[2] == "# Week 2: Your first model"
    assert roadmap.first_week_titled("FIRST MODEL") == 2  # case folded, the earliest week
    assert roadmap.first_week_titled("tokenization") is None


def test_roadmap_refuses_a_week_of_two_phases(tmp_path: Path) -> None:
    _week(tmp_path, 1, "**Phase 1: x**\n**Phase 2: y**")
    with pytest.raises(InputError, match="names 2 phases"):
        read_roadmap(tmp_path)
    with pytest.raises(InputError, match=r"no week-NN\.md"):
        read_roadmap(tmp_path / "missing")


def test_system_report_lines(tmp_path: Path) -> None:
    report = tmp_path / "system-report.md"
    report.write_text("$ uname -a\nLinux host 6.1.0-x ... aarch64\n$ nvidia-smi\n"
                      "GPU 0: NVIDIA GB10   35C   P8   4W   Memory-Usage: Not Supported"
                      "   0% util\n",
                      "utf-8")
    line = gpu_idle_line(report)
    assert (line.name, line.temperature_c, line.perf_state, line.power_w,
            line.utilization_pct) == ("NVIDIA GB10", 35, "P8", 4.0, 0)
    assert kernel_release(report) == "6.1.0-x"
    report.write_text("nothing here\n", "utf-8")
    with pytest.raises(InputError, match="nvidia-smi"):
        gpu_idle_line(report)
    with pytest.raises(InputError, match="uname"):
        kernel_release(report)


def test_labelled_outputs_last_wins(tmp_path: Path) -> None:
    from claims.probes.files.lab_notes import labelled_outputs

    note = tmp_path / "note.md"
    note.write_text("$ echo x\ndevice: CPU\nGPU layers: 0/41\n$ again\ndevice: CUDA0 (GB10)\n",
                    "utf-8")
    found = labelled_outputs(note)
    assert found["device"] == "CUDA0 (GB10)" and found["GPU layers"] == "0/41"
    assert not any(k.startswith("$") for k in found)


def test_inventory_runs_and_one_line_function(tmp_path: Path) -> None:
    from claims.probes.files.lab_notes import inventory_runs, shell_function_one_line

    script = tmp_path / "inventory.sh"
    script.write_text('run() {\n  echo "=== $1 ==="\n  # a comment\n  ssh h "$2"\n}\n\n'
                      "run \"uname\"   'uname -a'\nrun \"gpu\" 'nvidia-smi'\n", "utf-8")
    assert inventory_runs(script) == [("uname", "uname -a"), ("gpu", "nvidia-smi")]
    assert shell_function_one_line(script, "run") == 'run() { echo "=== $1 ==="; ssh h "$2"; }'
    with pytest.raises(InputError, match="no function"):
        shell_function_one_line(script, "other")


def test_roadmap_pages_and_their_learn_lists(tmp_path: Path) -> None:
    (tmp_path / "week-02.md").write_text(
        "# Week 2\n\n## Learn\n\n- How `num_hidden_layers` stacks\n- Norms\n\n"
        "## Hands-on\n\n- not learnt\n", "utf-8")
    (tmp_path / "week-01.md").write_text("# Week 1\nno list here\n", "utf-8")
    (tmp_path / "cuda-track.md").write_text("- not a week\n", "utf-8")
    pages = roadmap_pages(tmp_path)
    assert list(pages) == [1, 2]
    assert learn_items(pages[2]) == ["How num_hidden_layers stacks", "Norms"]
    assert learn_items(pages[1]) == []


def test_roadmap_pages_refuses_a_folder_without_weeks(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no week-NN\.md"):
        roadmap_pages(tmp_path)


def test_stated_head_counts_across_a_line_break() -> None:
    page = ("use the model's 16 query heads and\n2 key/value heads; "
            "later 32 query heads and 8 key/value heads")
    assert stated_head_counts(page) == [(16, 2), (32, 8)]
    assert stated_head_counts("16 query heads, 2 KV heads") == []


def test_summary_table_rows(tmp_path: Path) -> None:
    report = tmp_path / "system-report.md"
    report.write_text("| Component | Value |\n| --------- | ----- |\n| Driver | 580.1 |\n"
                      "| GPU       | NVIDIA X (y) |\n\ntext | with a bar\n", "utf-8")
    assert summary_table(report) == {"Driver": "580.1", "GPU": "NVIDIA X (y)"}
    report.write_text("no table\n", "utf-8")
    with pytest.raises(InputError, match="summary table"):
        summary_table(report)
