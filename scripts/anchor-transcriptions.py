"""Propose anchors for transcribed values that have none (fixtures/recorded/<DOC>.anchors.json).

Usage: .venv/bin/python scripts/anchor-transcriptions.py [DOC ...]

Existing anchors are kept as they are; a new value is anchored where the seed
prints it nearest after the previous value's place (the values of one object
come from one passage). Review every proposal against the post before
committing: the anchor says where the document prints the value.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from claims.audit.transcribed import (
    SEED_FILES,
    anchored,
    anchors_path,
    propose,
    section_start,
    seeds_of,
    transcribed_values,
)

ROOT = Path(__file__).resolve().parents[1]


def main(docs: list[str]) -> int:
    status = 0
    for doc in docs or list(SEED_FILES):
        seeds = seeds_of(ROOT, doc)
        if seeds is None:
            print(f"{doc}: seeds not found", file=sys.stderr)
            return 2
        path = anchors_path(ROOT, doc)
        old = json.loads(path.read_text("utf-8"))["anchors"] if path.is_file() else {}
        by_name = {s.name: s for s in seeds}
        anchors: dict[str, dict[str, object]] = {}
        near: tuple[str, int] | None = None
        data = json.loads((ROOT / "fixtures" / "recorded" / f"{doc}.json").read_text("utf-8"))
        top = None
        for key, value in transcribed_values(ROOT, doc):
            head = key.split(".", 1)[0].split("[", 1)[0]
            if head != top:  # a new object: start from the passage its _seed note names
                top = head
                item = data.get(head)
                start = section_start(seeds, item.get("_seed") if isinstance(item, dict) else None)
                near = start or near
            anchor = old.get(key)
            if anchor is not None and anchored(by_name[anchor["seed"]], anchor, value):
                anchors[key] = anchor
                continue
            proposal = propose(seeds, value, near)
            if proposal is None:
                print(f"{doc} {key}: {value!r} is printed nowhere in the seed", file=sys.stderr)
                status = 1
                continue
            near = (str(proposal["seed"]), int(str(proposal.pop("_at"))))
            anchors[key] = proposal
        doc_out = {
            "_about": "Where the document prints each transcribed value of "
            f"{doc}.json: seed file, line (1-based) and the text just before the value "
            "(whitespace collapsed). Checked by tests/fixtures/test_transcription.py; "
            "proposed by scripts/anchor-transcriptions.py and reviewed by hand.",
            "anchors": anchors,
        }
        path.write_text(json.dumps(doc_out, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"{doc}: {len(anchors)} anchors -> {path.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
