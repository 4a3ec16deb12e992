"""claims.plugin.tmp_paths: this session's numbered temporary folder recorded one way."""

from __future__ import annotations

from claims.plugin.pytest_private import basetemp
from claims.plugin.tmp_paths import PLACEHOLDER, stable, stable_text


def test_the_sessions_base_folder_is_written_one_way():
    base = "/tmp/pytest-of-root/pytest-114/popen-gw1"
    text = f"no phi4 in the store at {base}/ollama-store0 (no manifest)"
    want = f"no phi4 in the store at {PLACEHOLDER}/ollama-store0 (no manifest)"
    assert stable_text(text, base) == want
    # Another session's folder (a pytester project) is real to its tests: kept.
    other = "/tmp/pytest-of-root/pytest-9/test_x0/models"
    assert stable_text(other, base) == other


def test_every_text_of_a_record_keys_included():
    base = "/tmp/pytest-of-u/pytest-9"
    record = {"facts": {"store": f"{base}/s"}, "m": [("a", base)], "n": 3, f"{base}/k": True}
    assert stable(record, base) == {"facts": {"store": f"{PLACEHOLDER}/s"},
                                    "m": [("a", PLACEHOLDER)], "n": 3, f"{PLACEHOLDER}/k": True}
    assert stable(record, None) is record


def test_the_base_folder_is_this_sessions(pytestconfig, tmp_path):
    base = basetemp(pytestconfig)
    assert base is not None and tmp_path.is_relative_to(base)
