"""``claims compare``: machines and their runs, claim rows in order, history, bad files, export.

Fleets here are made from the report tests' synthetic evidence, changed the way
another machine or a later run would change it (host name, GPU, driver, a
verdict, a measured figure), and written to files so the command reads them as
a user's files. The fleet built from the suite's own real runs is in
test_compare_fleet.py.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from claims.cli import main
from claims.evidence_fleet import FleetLoader
from claims.report.compare import (
    PAGE_RUNS,
    compare_files,
    format_compare_text,
    render_compare_html,
    tolerance_width,
    write_tidy,
)
from claims.report.compare.load import claim_parts, run_of
from claims.report.compare.tidy import run_tidy_text, tidy_rows, tidy_text


def _claim(doc: dict[str, Any], cid: str) -> dict[str, Any]:
    return next(c for c in doc["claims"] if c["id"] == cid)


def _refute(doc: dict[str, Any], cid: str) -> None:
    """The claim refuted as a run would record it: its checks too (the loader refuses a
    claim verdict its checks contradict)."""
    claim = _claim(doc, cid)
    claim["verdict"] = "refuted"
    for check in claim["checks"]:
        check["verdict"] = "refuted"


def _kv(doc: dict[str, Any]) -> dict[str, Any]:
    """D2-KV's main figure (bytes per token), with an accepted range of 600 B."""
    m = _claim(doc, "D2-KV")["checks"][0]["measurements"][0]
    m["expected_interval"] = {"lo": 98004.0, "hi": 98604.0}
    m["tolerance"] = "±300 (set for the test)"
    return m


def machine_run(
    base: dict[str, Any],
    *,
    host: str,
    gpu: str = "NVIDIA GB10",
    driver: str = "580.159.03",
    started: str = "2026-11-29T08:00:00+00:00",
) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    run = doc["run"]
    run["machine"]["hostname"] = host
    run["machine"]["gpu"]["devices"][0]["name"] = gpu
    run["machine"]["gpu"]["devices"][0]["driver_version"] = driver
    run["machine"]["gpu"]["driver_version"] = driver
    run["started"] = started
    _kv(doc)
    return doc


def write(tmp_path: Path, name: str, doc: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return path


@pytest.fixture
def fleet(tmp_path, make_evidence) -> list[Path]:
    """Three machines; lab-a ran twice (a driver upgrade, then a regression)."""
    base = make_evidence()
    a1 = machine_run(base, host="lab-a", started="2026-11-20T08:00:00+00:00")
    a2 = machine_run(base, host="lab-a", driver="580.95.05", started="2026-11-27T08:00:00+00:00")
    _refute(a2, "D1-ERRATUM")  # known-erratum -> refuted: diff's regression
    _refute(a2, "D2-MATMUL")  # reproduced -> refuted: a regression
    b = machine_run(base, host="lab-b", gpu="NVIDIA H100 80GB HBM3", driver="570.124.06",
                    started="2026-11-25T08:00:00+00:00")
    _kv(b)["measured"] = 99304  # 1,000 B from lab-a's: beyond the 600 B range
    c = machine_run(base, host="lab-c", gpu="NVIDIA H100 80GB HBM3", driver="570.124.06",
                    started="2026-11-26T08:00:00+00:00")
    _kv(c)["measured"] = 98504
    # Given out of time order: the columns are put in order, not the arguments.
    return [write(tmp_path, n, d) for n, d in (("a2.json", a2), ("b.json", b), ("a1.json", a1),
                                                 ("c.json", c))]


def test_runs_of_a_machine_are_grouped_in_time_order(fleet):
    result, _ = compare_files(fleet)
    assert [m.title for m in result.machines] == [
        "lab-a · NVIDIA GB10", "lab-b · NVIDIA H100 80GB HBM3", "lab-c · NVIDIA H100 80GB HBM3"]
    assert [Path(r.path).name for r in result.runs] == ["a1.json", "a2.json", "b.json", "c.json"]
    assert [r.label for r in result.runs] == ["M1.1", "M1.2", "M2.1", "M3.1"]
    first, second = result.runs[0], result.runs[1]
    assert "driver 580.159.03" in first.header and "lab-a" in first.header
    assert "Ollama 0.12.3" in first.header  # the ollama tier's server, from tier_status
    assert second.header == ["driver 580.95.05"]  # a later run says what changed


def test_an_ollama_runner_build_is_named_where_the_evidence_has_one(fleet, tmp_path):
    doc = json.loads(fleet[2].read_text())
    doc["run"]["facts"]["ollama_runner"] = "cuda_v13 (build 7a1b2c)"
    result, _ = compare_files([write(tmp_path, "r.json", doc), fleet[1]])
    assert "runner cuda_v13 (build 7a1b2c)" in result.runs[0].header
    assert "(runner cuda_v13 (build 7a1b2c))" in render_compare_html(result)


def test_disagreement_first_then_spread_then_the_rest(fleet):
    result, _ = compare_files(fleet)
    groups = {c["id"]: c["group"] for c in result.claims}
    # lab-a's latest word on D2-MATMUL is refuted; lab-b and lab-c reproduced it.
    assert groups["D2-MATMUL"] == "disagree"
    row = next(c for c in result.claims if c["id"] == "D2-MATMUL")
    assert row["words"] == {"M1": "refuted", "M2": "reproduced", "M3": "reproduced"}
    assert row["simulated_words"] == []
    # refuted (lab-a) and known-erratum (lab-b, lab-c) both say "does not hold": no disagreement.
    assert groups["D1-ERRATUM"] == "rest"
    assert groups["D2-KV"] == "spread"
    assert [c for c, g in groups.items() if g == "disagree"] == ["D2-MATMUL"]
    kv = next(c for c in result.claims if c["id"] == "D2-KV")["stats"]
    assert (kv["min"], kv["median"], kv["max"]) == (98304, 98504, 99304)
    assert kv["tolerance"] == 600 and kv["unit"] == "B" and kv["machines"] == 3

    page = render_compare_html(result)
    ids = re.findall(r'<tr id="c-([^"]+)" data-claim="[^"]+" data-group="(\w+)"', page)
    order = [g for _, g in ids]
    assert order == sorted(order, key=["disagree", "spread", "rest"].index)
    assert ids[0] == ("D2-MATMUL", "disagree") and ids[1] == ("D2-KV", "spread")
    assert 'data-min="98304.0" data-median="98504.0" data-max="99304.0"' in page
    assert "98,304 / 98,504 / 99,304" in page
    # The rest is folded.
    assert re.search(r'<section id="rest">\s*<h2>The rest</h2>\s*<details><summary>', page)


def test_history_says_what_changed_in_diffs_words(fleet):
    result, _ = compare_files(fleet)
    assert len(result.history) == 1
    step = result.history[0]
    assert (step["machine"], step["from_run"], step["to_run"]) == ("M1", 1, 2)
    assert step["identical"] is False
    kinds = {c["claim"]: c["kind"] for c in step["verdict_changes"]}
    assert kinds == {"D1-ERRATUM": "regression", "D2-MATMUL": "regression"}
    assert {"field": "NVIDIA driver", "a": "580.159.03", "b": "580.95.05"} in step[
        "machine_differences"]
    text = format_compare_text(result)
    assert "2 regression(s)" in text and "! D2-MATMUL" in text
    page = render_compare_html(result)
    assert "580.159.03</span> → <span class=\"mono\">580.95.05" in page


def test_a_rerun_that_changed_nothing_reads_identical(fleet, tmp_path):
    again = json.loads(fleet[2].read_text())  # a1, run again a day later
    again["run"]["started"] = "2026-11-21T08:00:00+00:00"
    result, _ = compare_files([fleet[2], write(tmp_path, "a1-again.json", again)])
    (step,) = result.history
    assert step["identical"] is True and step["verdict_changes"] == []
    assert "identical (same verdicts, figures, machine and options" in render_compare_html(result)


def test_fail_on_disagreement_exits_1_and_without_it_0(fleet, tmp_path, capsys):
    out = tmp_path / "compare.html"
    args = ["compare", *map(str, fleet), "-o", str(out)]
    assert main(args) == 0
    assert main([*args, "--fail-on-disagreement"]) == 1
    assert out.exists()
    agreeing = [str(p) for p in fleet if p.name != "a2.json"]
    assert main(["compare", *agreeing, "-o", str(out), "--fail-on-disagreement"]) == 0
    assert "verdicts that differ between machines: 0" in capsys.readouterr().out


def test_bad_files_are_named_and_skipped_and_the_page_is_kept(fleet, tmp_path, capsys,
                                                             make_evidence):
    older = make_evidence()
    older["schema"] = "claims-evidence/0"
    older["run"]["suite"]["version"] = "0.0.9"
    bad = {
        "older.json": write(tmp_path, "older.json", older),
        "broken.json": write(tmp_path, "broken.json", '{"schema": '),
        "list.json": write(tmp_path, "list.json", "[1, 2]"),
    }
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    out = tmp_path / "compare.html"
    code = main(["compare", *map(str, fleet), *map(str, bad.values()), str(fifo), str(empty),
                 str(tmp_path / "missing.json"), "-o", str(out)])
    assert code == 0  # four good runs: skipping is said, it does not fail the comparison
    err = capsys.readouterr().err
    reasons = dict(re.findall(r"skipped (\S+): (.*)", err))
    assert "written as schema 'claims-evidence/0' by suite version 0.0.9" in reasons[
        str(bad["older.json"])]
    assert "not JSON" in reasons[str(bad["broken.json"])]
    assert "top level is not an object" in reasons[str(bad["list.json"])]
    assert reasons[str(fifo)] == "not a regular file"
    assert reasons[str(empty)] == "a folder with no .json file in it"
    assert reasons[str(tmp_path / "missing.json")] == "no such file"
    page = out.read_text(encoding="utf-8")
    assert '<section id="skipped">' in page and "claims-evidence/0" in page
    assert page.count('<tr class="fails"><td class="mono"') == 6


def test_fewer_than_two_readable_runs_exit_2_with_the_page_written(fleet, tmp_path, capsys):
    out = tmp_path / "compare.html"
    code = main(["compare", str(fleet[0]), str(write(tmp_path, "x.json", "nope")),
                 "-o", str(out)])
    assert code == 2
    assert "fewer than two runs could be read" in capsys.readouterr().err
    assert "Fewer than two runs could be read" in out.read_text(encoding="utf-8")


def test_a_folder_is_read_and_a_file_named_twice_is_one_run(fleet, tmp_path):
    (tmp_path / "notes.txt").write_text("not evidence")
    result, _ = compare_files([tmp_path, fleet[0]])
    assert len(result.runs) == 4 and not result.skipped


def test_evidence_text_is_escaped_and_the_page_fetches_nothing(fleet, tmp_path, audit):
    doc = json.loads(fleet[1].read_text())
    doc["run"]["machine"]["hostname"] = '<img src=x onerror=alert(1)>\u202e'
    doc["run"]["suite"]["version"] = "</th><script>alert(2)</script>"
    hostile = write(tmp_path, "hostile.json", doc)
    result, _ = compare_files([*fleet, hostile])
    page = render_compare_html(result)
    assert "<img src=x" not in page and "<script>alert" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;\\u202e" in page
    found = audit(page)
    assert found.problems == []
    assert len(found.scripts) == 1  # the page's own, allowed by its hash in the policy
    assert "\u202e" not in format_compare_text(result)


def test_tidy_table_has_a_row_per_run_claim_and_measurement(fleet, tmp_path):
    _, tidy = compare_files(fleet, csv_out=True, json_out=True)
    csv_path, json_path = tmp_path / "t.csv", tmp_path / "t.json"
    write_tidy(tidy, csv_path=csv_path, json_path=json_path)
    with csv_path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    records = json.loads(json_path.read_text(encoding="utf-8"))
    expected = 0
    for path in fleet:
        doc = json.loads(path.read_text())
        expected += sum(len(k["measurements"]) for c in doc["claims"] for k in c["checks"])
    assert len(rows) == len(records) == expected
    assert [int(r["run"]) for r in rows] == sorted(int(r["run"]) for r in rows)
    kv = {(r["run"], r["host"]): r for r in records
          if r["claim"] == "D2-KV" and r["measurement"] == "bytes per token"}
    assert kv[(3, "lab-b")]["measured_number"] == 99304
    assert kv[(3, "lab-b")]["unit"] == "B" and kv[(3, "lab-b")]["source"] == "live"
    assert (kv[(3, "lab-b")]["accepted_lo"], kv[(3, "lab-b")]["accepted_hi"]) == (98004, 98604)
    csv_kv = [r for r in rows if r["claim"] == "D2-KV" and r["host"] == "lab-b"]
    assert csv_kv[0]["measured_number"] == "99304.0" and csv_kv[0]["run"] == "3"
    assert set(rows[0]) == set(records[0])
    # A cell a spreadsheet would evaluate stays text; a negative number stays a number.
    from claims.report.compare.tidy import csv_cell

    assert csv_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and csv_cell("-3.5") == "-3.5"


def test_many_runs_are_paged_by_the_script(make_evidence, tmp_path):
    base = make_evidence()
    paths = [
        write(tmp_path, f"r{i}.json", machine_run(
            base, host=f"lab-{i % 5}", started=f"2026-11-{1 + i:02d}T08:00:00+00:00"))
        for i in range(PAGE_RUNS + 5)
    ]
    result, _ = compare_files(paths)
    page = render_compare_html(result)
    # Page 2 shows runs 13 to 17: a row's children 15 to 26 (claim and figure come first).
    assert ('#fleet[data-page="1"] .grid tr > .run:nth-child(-n+14), '
            '#fleet[data-page="1"] .grid tr > .run:nth-child(n+27) { display: none; }') in page
    assert '#fleet[data-page="2"]' not in page
    assert 'id="pager" data-size="12" hidden' in page


@pytest.mark.parametrize(
    ("measurement", "width"),
    [
        ({"expected_interval": {"lo": 1.0, "hi": 1.5}, "tolerance": "±9"}, 0.5),
        ({"tolerance": "±0.05 (printed precision)"}, 0.1),
        ({"tolerance": "exact"}, None),
        ({"tolerance": None}, None),
    ],
)
def test_tolerance_width_is_the_accepted_range(measurement, width):
    assert tolerance_width(measurement) == width


def test_evidence_of_an_older_suite_is_read_with_what_it_lacks_said(fleet, tmp_path,
                                                                    make_evidence):
    # Before run.suite, run.pytest and tier_status were recorded, and before "compared".
    older = machine_run(make_evidence(), host="lab-old", started="2026-10-01T08:00:00+00:00")
    for key in ("suite", "pytest", "tier_status", "facts"):
        older["run"].pop(key)
    for claim in older["claims"]:
        for check in claim["checks"]:
            for m in check["measurements"]:
                m.pop("compared", None)
    path = write(tmp_path, "older.json", older)
    result, _ = compare_files([*fleet, path])
    assert not result.skipped
    run = next(r for r in result.runs if r.fields["host"] == "lab-old")
    assert run.fields["suite"] == "not recorded (older suite)"
    assert "suite not recorded (older suite)" in run.header
    assert "not recorded (older suite)" in render_compare_html(result)


def test_a_rows_claim_part_made_once_reads_as_the_whole_row_made_afresh(fleet, tmp_path):
    # run_tidy_text joins the run's cells to each claim's, serialised once per distinct
    # record; a host a spreadsheet would evaluate, with a quote and a newline, in both.
    odd = json.loads(fleet[1].read_text())
    odd["run"]["machine"]["hostname"] = '=cmd,"x"\nlab'
    loader = FleetLoader()
    for path in [*fleet, write(tmp_path, "odd.json", odd)]:
        doc, entries = loader.load(path)
        run = run_of(doc, path, claim_parts(entries))
        for want_csv, want_json in ((True, True), (True, False), (False, True)):
            assert run_tidy_text(doc, run, entries, want_csv=want_csv, want_json=want_json) == (
                tidy_text(tidy_rows(doc, run), want_csv=want_csv, want_json=want_json))
    assert loader.reused > 0
