"""claims.audit.data: which recorded values a test reads, and one of them changed."""

from __future__ import annotations

from pathlib import Path

from claims.audit.data import (
    COLUMN_UNIT,
    LAST_DIGIT,
    Reads,
    changed_value,
    column_unit,
    last_digit,
    reading,
    replaced,
    slips_of,
    value_at,
)
from claims.catalog import load_catalog
from claims.text import transcribed

ROOT = Path(__file__).resolve().parents[2]


def test_the_values_a_test_reads_are_noted_under_its_name() -> None:
    reads = Reads()
    with reading(reads):
        reads.current = "t1"
        data = transcribed.recorded_data(ROOT, "W2", load_catalog())
        _ = data["generate_reply"]["eval_duration"]
        loads = [row["load_ms"] for row in data["benchmark"]["rows"]]
        reads.current = "t2"
        assert "absent" not in data and loads
    assert ("W2", "generate_reply.eval_duration") in reads.by_test["t1"]
    assert ("W2", "benchmark.rows[4].load_ms") in reads.by_test["t1"]
    assert ("W2", "generate_reply.eval_count") not in reads.by_test["t1"]
    assert "t2" not in reads.by_test
    assert transcribed.FILTERS == []  # nothing is noted outside the audit


def test_an_item_indexed_is_that_item_read_and_a_file_opened_is_noted(tmp_path: Path) -> None:
    reads = Reads()
    path = tmp_path / "output.txt"
    path.write_text("x86_64\n", "utf-8")
    with reading(reads):
        reads.current = "t1"
        data = transcribed.recorded_data(ROOT, "W1", load_catalog())
        _ = data["control_machine_lines"][0]
        _ = path.read_text("utf-8")
    reads.current = "t2"
    path.read_text("utf-8")  # after the run: not noted
    assert ("W1", "control_machine_lines[0]") in reads.by_test["t1"]
    assert ("W1", "control_machine_lines[1]") not in reads.by_test["t1"]
    assert str(path) in reads.files_by_test["t1"]
    assert "t2" not in reads.files_by_test


def test_one_value_is_changed_for_the_rerun_only() -> None:
    catalog = load_catalog()
    with replaced(("W3", "file_sizes.config.json"), "999"):
        changed = transcribed.recorded_data(ROOT, "W3", catalog)
        other = transcribed.recorded_data(ROOT, "W2", catalog)
    # A key holding a dot is one key, not a path.
    assert value_at(changed, "file_sizes.config.json") == "999"
    assert other == transcribed.recorded_data(ROOT, "W2", catalog)
    assert value_at(transcribed.recorded_data(ROOT, "W3", catalog), "file_sizes.config.json") == (
        "661"
    )


def test_the_slip_made_is_the_decimal_point_else_a_digit_else_a_letter() -> None:
    assert changed_value("104.1") == ("10x", "1041")
    assert changed_value(89) == ("10x", 890)
    kind, text = changed_value("phi4") or ("", "")
    assert kind in ("10x", "digit +1") and text != "phi4"
    letter = changed_value("stop")
    assert letter is not None and letter[0] == "letter" and letter[1] != "stop"
    assert changed_value(True) is None


def test_each_value_is_slipped_coarsely_in_its_last_digit_and_in_its_columns_unit() -> None:
    kinds = slips_of("benchmark.rows[4].ttft_ms", "174.3")
    assert kinds[:2] == [("10x", "1743"), (LAST_DIGIT, "174.4")]
    # A column recorded in seconds where the document printed milliseconds, and so on for
    # every other time unit: the number as it reads in that unit.
    column = [v for k, v in kinds if k == COLUMN_UNIT]
    assert "0.1743" in column and "174300" in column and len(column) == 5
    assert last_digit(3817895000) == 3817895001 and last_digit("phi4") == "phi5"
    assert last_digit("stop") is None and last_digit(True) is None
    # A row's unit field is the column's unit: recorded as each other byte unit.
    row_unit = [v for k, v in slips_of("ollama_list.rows[0].unit", "MB") if k == COLUMN_UNIT]
    assert row_unit == ["B", "KB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"]


def test_a_columns_unit_is_read_from_its_key_through_the_unit_table() -> None:
    assert column_unit("benchmark.cpu_ms") == "ms"
    assert column_unit("benchmark.gpu_tf32_tflops") == "TFLOP/s"
    assert column_unit("tokens_per_second_example.bandwidth_gb_s") == "GB/s"
    assert column_unit("quant_table.rows[0].size_8b_gb") == "GB"
    assert column_unit("x.efficiency_percent") == "%"
    assert column_unit("generate_reply.eval_duration") is None
    assert column_unit("x.parameters_billion") is None  # billions of what: not one unit
