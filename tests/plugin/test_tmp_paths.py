"""claims.plugin.tmp_paths: pytest's numbered temporary folders recorded one way."""

from __future__ import annotations

from claims.plugin.tmp_paths import PLACEHOLDER, stable, stable_text


def test_the_numbered_base_folder_is_written_one_way():
    for base in ("/tmp/pytest-of-root/pytest-114", "/tmp/pytest-of-root/pytest-6/popen-gw1",
                 "/var/folders/q/T/pytest-of-ann/pytest-3"):
        text = f"no phi4 in the store at {base}/ollama-store0 (no manifest)"
        want = f"no phi4 in the store at {PLACEHOLDER}/ollama-store0 (no manifest)"
        assert stable_text(text) == want
    # A --basetemp the user chose does not move run to run: kept.
    assert stable_text("/srv/basetemp/ollama-store0") == "/srv/basetemp/ollama-store0"


def test_every_text_of_a_record_keys_included():
    base = "/tmp/pytest-of-u/pytest-9"
    record = {"facts": {"store": f"{base}/s"}, "m": [("a", base)], "n": 3, f"{base}/k": True}
    assert stable(record) == {"facts": {"store": f"{PLACEHOLDER}/s"}, "m": [("a", PLACEHOLDER)],
                              "n": 3, f"{PLACEHOLDER}/k": True}
