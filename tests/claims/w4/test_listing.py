"""W4-INDEX-IS-PAYLOAD decided offline with Week 3's records of the same revision.

Week 4 reads the index's total_size; Week 3 prints that index (fixtures/hub's
transcription of model.safetensors.index.json) and its lab saved the Hub's
listing with every file's size in bytes (fixtures/lab, Week 3 results.json).
The shards' files are then compared with the tensor bytes the index totals.
The live tier reads each shard's header instead; offline only the two shards
together can be compared (the lab records no per-shard payload).
"""

from __future__ import annotations

import pytest

from claims.probes.files import hf_repo
from claims.probes.files.hf_repo.safetensors import HEADER_LENGTH_PREFIX
from claims.testing import lab

pytestmark = pytest.mark.offline

@pytest.mark.claim("W4-INDEX-IS-PAYLOAD", source="recorded")
def test_shards_exceed_index_total(check, qwen_snapshot) -> None:
    total = hf_repo.index_total_size(qwen_snapshot.index(),
                                     source="snapshot:model.safetensors.index.json")
    check.fact("index", "Week 3's printed model.safetensors.index.json (seed 002 line 712), "
               "fixtures/hub")
    check.against("total_size", total, unit="B")
    results = lab.results("W3")
    listing = hf_repo.listing_from_record(results["files"], repo_id=results["repository"],
                                          revision=results["revision"],
                                          where="lab W3 results.json")
    check.fact("shard sizes", f"{lab.PROVENANCE}: week-03-model-files/results.json files")
    check.measure("lab's safetensors_total_bytes (index total_size at that revision)",
                  results["safetensors_total_bytes"], unit="B",
                  holds=results["safetensors_total_bytes"] == total,
                  expected=f"{total:,} B, the printed index's")
    shards = listing.shards
    check.observe("shard files", {s.name: s.size for s in shards}, unit="B")
    over = hf_repo.shard_overheads(listing, total_payload=total)["all shards"]
    check.observe("shard files beyond total_size (headers of both shards)", over, unit="B")
    check.against("shard files larger than total_size",
                  bool(shards) and over > HEADER_LENGTH_PREFIX * len(shards),
                  note=f"{over:,} B beyond it over {len(shards)} shards: more than "
                  f"{HEADER_LENGTH_PREFIX} B each (length prefix + JSON header)")
