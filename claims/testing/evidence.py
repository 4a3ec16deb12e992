"""Evidence documents for tests of the evidence, the report and the CLI."""

from __future__ import annotations

import json

from claims.catalog import Catalog, load_catalog
from claims.evidence import EvidenceLog
from claims.profiles import GENERIC
from claims.records import Evidence, Run
from claims.tiers import OFFLINE

__all__ = ["empty_evidence", "minimal_run"]


def minimal_run(markexpr: str = OFFLINE.name, *, complete: bool = False) -> Run:
    """The smallest run record the evidence schema accepts (a made-up machine)."""
    return {
        "started": "2026-11-29T08:00:00+00:00",
        "finished": "2026-11-29T08:00:01+00:00",
        "markexpr": markexpr,
        "profile": GENERIC.name,
        "complete": complete,
        "options": {},
        "machine": {"os": "x", "arch": "x86_64", "cpu": "c", "memory_bytes": 1, "python": "3.11"},
    }


def empty_evidence(catalog: Catalog | None = None, markexpr: str = OFFLINE.name) -> Evidence:
    """A complete evidence document in which no test ran: every claim listed, none checked.

    Round-tripped through JSON, so it is exactly what a reader of the file sees.
    """
    log = EvidenceLog(catalog or load_catalog(), minimal_run(markexpr, complete=True))
    doc: Evidence = json.loads(json.dumps(log.document(complete=True)))
    return doc
