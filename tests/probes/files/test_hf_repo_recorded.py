"""A listing built from a recorded file list (claims.probes.files.hf_repo.recorded_listing)."""

from __future__ import annotations

import pytest

from claims.probes.errors import InputError
from claims.probes.files.hf_repo import code_files, listing_from_record, shard_overheads

ROWS = [
    {"name": "config.json", "size_bytes": 661},
    {"name": "model-00001-of-00002.safetensors", "size_bytes": 1000},
    {"name": "model-00002-of-00002.safetensors", "size_bytes": 600},
]


def test_code_files_finds_python_and_native() -> None:
    assert code_files(["a.json", "modeling_x.py", "x.so", "README.md"]) == ["modeling_x.py", "x.so"]
    assert code_files(["python.txt"]) == []


def test_shard_overheads_total_and_per_shard() -> None:
    listing = listing_from_record(ROWS, repo_id="o/n", revision=None)
    assert shard_overheads(listing, total_payload=1500) == {"all shards": 100}
    per = shard_overheads(listing, {"model-00001-of-00002.safetensors": 960})
    assert per == {"model-00001-of-00002.safetensors": 40}
    with pytest.raises(InputError):
        shard_overheads(listing)


@pytest.mark.parametrize("row", [{"size_bytes": 1}, {"name": "x", "size_bytes": -1},
                                 {"name": "x", "size_bytes": True}])
def test_bad_rows_name_the_field(row) -> None:
    with pytest.raises(InputError, match="files\\[0\\]"):
        listing_from_record([row], repo_id="o/n", revision=None, where="r.json")
