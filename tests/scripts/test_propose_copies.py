"""scripts/propose-copies.py: its proposals are ledger entries the ledger accepts."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.text.ledger import LEDGER_HEADER
from claims.text.measure import account
from tests.checkout import copy_catalog

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")


@pytest.mark.skipif(not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, "
                    "the folder of the seeds")
def test_w2s_copies_are_proposed_and_each_passes_the_ledger_check(tmp_path: Path) -> None:
    # W2's ledger is written, so propose on a copy of the catalog whose W2 ledger is not.
    catalog_dir = copy_catalog(tmp_path)
    path = catalog_dir / "W2.anchors.toml"
    text = path.read_text("utf-8")
    path.write_text(text[:text.index(LEDGER_HEADER)], "utf-8")
    proc = subprocess.run(
        [sys.executable, "scripts/propose-copies.py", "--claims-documents", str(DOCUMENTS),
         "--catalog-dir", str(catalog_dir), "W2"], cwd=ROOT, capture_output=True, text=True,
        timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    entries = tomllib.loads(proc.stdout)["ledger"]
    # The two other copies of the post (seeds 001 and 002) are proposed, not only repeats.
    assert {e["seed"] for e in entries} >= {"001_9a78a547d9ff624e.txt",
                                            "002_7d36a8153c2e8741.txt"}
    docs = Path(str(DOCUMENTS))
    before = account(load_catalog(), docs, ROOT, ["W2"], catalog_dir=catalog_dir)
    path.write_text(path.read_text("utf-8") + "\n" + proc.stdout, "utf-8")
    after = account(load_catalog(), docs, ROOT, ["W2"], catalog_dir=catalog_dir)
    assert after.documents[0].count("excluded") > before.documents[0].count("excluded")
    assert after.documents[0].count("judged") == before.documents[0].count("judged")
