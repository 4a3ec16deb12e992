"""Blocks a document prints again, proposed as copy entries (claims.text.copies)."""

from __future__ import annotations

from claims.text.copies import copied_blocks
from claims.text.measure import account
from tests.text.conftest import Toy


def test_a_rewrapped_copy_is_found_line_aligned_and_its_entry_checks(toy: Toy) -> None:
    acc = account(toy.catalog, toy.seeds, toy.root, catalog_dir=toy.catalog_dir)
    sources = [acc.sources[s] for s in acc.documents[0].sources]
    copies = copied_blocks(sources, "T2")
    assert [(c.source.key, c.first, c.last, c.of.key, c.of_first, c.of_last)
            for c in copies] == [("copy.txt", 2, 3, "feed.txt", 4, 4)]
    # The proposal, written as the script writes it, passes the ledger's own check.
    toy.ledger("T2", '[[ledger]]\nseed = "copy.txt"\nlines = [2, 3]\nkind = "copy"\n'
               'reason = "the same text as seed feed.txt line 4, accounted for there"\n'
               'of = { seed = "feed.txt", lines = [4, 4] }\n')
    after = account(toy.catalog, toy.seeds, toy.root, catalog_dir=toy.catalog_dir)
    assert {f.status for f in after.figures if f.at.source == "copy.txt" and f.at.line > 1} \
        == {"excluded"}


def test_a_block_is_not_a_copy_of_itself_nor_of_a_later_place(toy: Toy) -> None:
    feed = toy.seeds / "feed.txt"
    line = "Recorded: 42 tokens in 1.5 s and again, the same words printed twice here."
    feed.write_text(feed.read_text("utf-8").replace("Post Three", f"{line}\n{line}\nPost Three"),
                    "utf-8")
    acc = account(toy.catalog, toy.seeds, toy.root, catalog_dir=toy.catalog_dir)
    sources = [acc.sources[s] for s in acc.documents[0].sources]
    copies = [(c.source.key, c.first, c.last, c.of_first, c.of_last)
              for c in copied_blocks(sources, "T2") if c.source.key == "feed.txt"]
    assert copies == [("feed.txt", 8, 8, 7, 7)]
