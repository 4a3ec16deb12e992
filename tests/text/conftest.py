"""A made-up pair of documents for the accounting tests: two posts sharing one seed (a
feed), the first with a second seed holding a copy of part of its text."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.catalog.loader import Catalog

FEED = """\
Feed header
Post Two: numbers
Week 2 of 32, posted 2026-07-19.
Two plus two is 4.0 and the port is 11434.
Run: ollama run phi4 --num-ctx 4096
Recorded: 42 tokens in 1.5 s.
Post Three: more numbers
It costs 7 GB and takes 12 s.
"""
COPY = """\
Post Two: numbers (copy)
Two plus two is 4.0 and
the port is 11434.
"""
CATALOG = {
    "T2": """\
[document]
id = "T2"
title = "Post Two: numbers"
seeds = ["feed.txt", "copy.txt"]
sections = ["Numbers"]

[[claim]]
id = "T2-SUM"
section = "Numbers"
statement = "Two plus two is printed as 4.0."
tiers = ["offline"]
stated = [{ name = "sum", value = "4.0" }]
""",
    "T3": """\
[document]
id = "T3"
title = "Post Three: more numbers"
seeds = ["feed.txt"]
sections = ["Numbers"]

[[claim]]
id = "T3-COST"
section = "Numbers"
statement = "It costs 7 GB."
tiers = ["offline"]
stated = [{ name = "cost", value = "7", unit = "GB" }]
""",
}
ANCHORS = {
    "T2": """\
[[anchor]]
claim = "T2-SUM"
figure = "sum"
seed = "feed.txt"
line = 4
before = "Two plus two is "
text = "4.0"
""",
    "T3": """\
[[anchor]]
claim = "T3-COST"
figure = "cost"
seed = "feed.txt"
line = 8
before = "It costs "
text = "7"
""",
}
RECORDED = {"tokens": 42}
# A claim of T3 the catalog holds but no test can judge, stating the "12" of its line 8.
UNTESTABLE_CLAIM = """\
[[claim]]
id = "T3-TIME"
section = "Numbers"
statement = "It takes 12 s."
tiers = ["offline"]
testable = false
untestable_reason = "A made-up duration no machine here could time."
stated = [{ name = "time", value = "12", unit = "s" }]
"""
UNTESTABLE_ANCHOR = """\
[[anchor]]
claim = "T3-TIME"
figure = "time"
seed = "feed.txt"
line = 8
before = "takes "
text = "12"
"""
RECORDED_ANCHORS = {"anchors": {"tokens": {"seed": "feed.txt", "line": 6,
                                           "before": "Recorded: "}}}


@dataclass
class Toy:
    catalog: Catalog
    catalog_dir: Path
    seeds: Path
    root: Path

    def ledger(self, doc: str, text: str) -> None:
        """Append [[ledger]] tables to ``doc``'s anchors file."""
        path = self.catalog_dir / f"{doc}.anchors.toml"
        path.write_text(path.read_text("utf-8") + "\n" + text, "utf-8")

    def claim(self, doc: str, claim: str, anchor: str) -> None:
        """Add a [[claim]] to ``doc``'s catalog file and an [[anchor]] before its ledger,
        and reload the catalog."""
        toml = self.catalog_dir / f"{doc}.toml"
        toml.write_text(toml.read_text("utf-8") + "\n" + claim, "utf-8")
        anchors = self.catalog_dir / f"{doc}.anchors.toml"
        anchors.write_text(anchor + "\n" + anchors.read_text("utf-8"), "utf-8")
        self.catalog = load_catalog(sorted(self.catalog_dir.glob("T?.toml")))


@pytest.fixture
def toy(tmp_path: Path) -> Toy:
    catalog_dir = tmp_path / "catalog"
    seeds = tmp_path / "seeds"
    root = tmp_path / "checkout"
    for d in (catalog_dir, seeds, root / "fixtures" / "recorded"):
        d.mkdir(parents=True)
    for doc, text in CATALOG.items():
        (catalog_dir / f"{doc}.toml").write_text(text, "utf-8")
        (catalog_dir / f"{doc}.anchors.toml").write_text(ANCHORS[doc], "utf-8")
    (seeds / "feed.txt").write_text(FEED, "utf-8")
    (seeds / "copy.txt").write_text(COPY, "utf-8")
    rec = root / "fixtures" / "recorded"
    (rec / "T2.json").write_text(json.dumps(RECORDED), "utf-8")
    (rec / "T2.anchors.json").write_text(json.dumps(RECORDED_ANCHORS), "utf-8")
    # What the (made-up) claim tests read: the one transcribed value (claims.text.reads).
    (rec / "READ.json").write_text(json.dumps({"T2": ["tokens"]}), "utf-8")
    catalog = load_catalog(sorted(catalog_dir.glob("T?.toml")))
    return Toy(catalog, catalog_dir, seeds, root)
