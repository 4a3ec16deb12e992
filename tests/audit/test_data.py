"""claims.audit.data: which recorded values a test reads, and one of them changed."""

from __future__ import annotations

from pathlib import Path

from claims.audit.data import Reads, changed_value, reading, replaced, value_at
from claims.catalog import load_catalog
from claims.inputs import transcribed

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
