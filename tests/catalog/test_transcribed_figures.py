"""Catalog figures that restate a transcribed table say what the transcription says.

The catalog states what the document states; where a document's table is also
transcribed (fixtures/recorded/, anchored to where the post prints it), the two
records of the same printed figure must agree cell by cell.
"""

from __future__ import annotations

import json
from pathlib import Path

from claims.catalog import load_catalog

RECORDED = Path(__file__).resolve().parents[2] / "fixtures" / "recorded"


def test_the_kv_table_cells_are_the_catalogs_figures():
    table = json.loads((RECORDED / "MC.json").read_text("utf-8"))["kv_table"]
    claim = load_catalog().get("MC-KV-TABLE")
    for row in table["rows"]:
        fig = claim.figure(f"KV at {row['num_ctx']}")
        assert (fig.text, fig.unit) == (row["kv"], row["unit"]), row
    shape = {"layers": "layers", "KV heads": "kv_heads", "head dim": "head_dim"}
    for name, key in shape.items():
        assert claim.figure(name).text == table[key]
