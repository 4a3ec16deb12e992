"""Evidence: what one run measured, per claim, as ``evidence.json``.

The file follows the contract in ``claims/schema/evidence.schema.json`` (a copy
of the project's shared schema). It lists every catalog claim, checked or not,
so coverage is visible; each claim carries its verdict, the reason, and the
checks behind it with their measurements and evidence source.

Writes are atomic (temporary file in the same folder, then ``os.replace``), and
the plugin rewrites the file as tests finish, so an interrupted run still leaves
valid evidence of what finished, marked ``complete: false``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from claims.catalog import Catalog
from claims.verdicts import claim_verdict, summarize

SCHEMA_ID = "claims-evidence/1"

__all__ = [
    "SCHEMA_ID",
    "EvidenceError",
    "EvidenceLog",
    "load_evidence",
    "now_iso",
    "schema",
    "validate",
    "write_atomic",
]


class EvidenceError(ValueError):
    """An evidence file is unreadable or does not follow the schema."""


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("claims.schema").joinpath("evidence.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def validate(doc: Mapping[str, Any]) -> list[str]:
    """Schema violations of an evidence document, as readable lines (empty if valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    errors = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        errors.append(f"{where}: {err.message}")
    return errors


# A whole run's evidence is under a megabyte (attachments are capped per check);
# the cap only stops a wrong path (/dev/zero, a model blob) from filling memory.
MAX_EVIDENCE_BYTES = 64 * 1024 * 1024


def load_evidence(path: Path | str) -> dict[str, Any]:
    """Read and validate an evidence file; EvidenceError names the file and problem."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_EVIDENCE_BYTES + 1)
    except FileNotFoundError:
        raise EvidenceError(f"{path}: no such file") from None
    except OSError as exc:
        raise EvidenceError(f"{path}: cannot read ({exc.strerror})") from None
    if len(raw) > MAX_EVIDENCE_BYTES:
        raise EvidenceError(
            f"{path}: larger than {MAX_EVIDENCE_BYTES // (1024 * 1024)} MiB, not an evidence file"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EvidenceError(f"{path}: not UTF-8 text") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EvidenceError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise EvidenceError(f"{path}: not evidence (JSON nested too deeply)") from None
    if not isinstance(doc, dict):
        raise EvidenceError(f"{path}: top level is not an object")
    problems = validate(doc)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise EvidenceError(f"{path}: not claims evidence: {problems[0]}{more}")
    return doc


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` so that readers see either the old or the new file, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    # mkstemp makes the file private (0600); a report is meant to be read, so
    # give it the permissions an ordinary write would have under this umask.
    mask = os.umask(0)
    os.umask(mask)
    os.fchmod(fd, 0o666 & ~mask)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


class EvidenceLog:
    """Collects check records during a run and renders the evidence document."""

    def __init__(self, catalog: Catalog, run: dict[str, Any]) -> None:
        self.catalog = catalog
        self.run = dict(run)
        self.checks: dict[str, list[dict[str, Any]]] = {c.id: [] for c in catalog}
        self.unknown: list[dict[str, Any]] = []
        self.facts: dict[str, Any] = {}

    def add(self, claim_ids: Iterable[str], record: Mapping[str, Any]) -> None:
        for cid in claim_ids:
            rec = dict(record)
            # A check may serve several claims; keep only the measurements that belong here.
            rec["measurements"] = [
                m for m in record.get("measurements", []) if m.get("claim") in (None, cid)
            ]
            if cid in self.checks:
                self.checks[cid].append(rec)
            else:
                self.unknown.append({"claim": cid, **rec})
        self.facts.update(record.get("facts") or {})

    def document(self, *, complete: bool, finished: str | None = None) -> dict[str, Any]:
        claims: list[dict[str, Any]] = []
        options = self.run.get("options")
        certification = isinstance(options, dict) and options.get("require_live") is True
        for doc in self.catalog.documents:
            for claim in doc.claims:
                checks = self.checks[claim.id]
                verdict, reason = claim_verdict(
                    claim.testable, claim.untestable_reason, checks, certification=certification
                )
                entry = claim.to_json()
                entry.update(
                    {
                        "document_title": doc.title,
                        "verdict": verdict,
                        "reason": reason,
                        "checks": checks,
                    }
                )
                if claim.erratum and verdict == "known-erratum":
                    entry["reason"] = claim.erratum.explanation
                claims.append(entry)
        run = dict(self.run)
        run["finished"] = finished or now_iso()
        run["complete"] = complete
        run["facts"] = dict(self.facts)
        if "ollama_version" in self.facts and isinstance(run.get("machine"), dict):
            # The ollama tier records the server it measured (check.fact); the
            # machine fingerprint shows it beside OS, GPU and driver.
            run["machine"] = {
                **run["machine"],
                "ollama": {
                    "version": self.facts["ollama_version"],
                    "host": self.facts.get("ollama_host"),
                },
            }
        out: dict[str, Any] = {
            "schema": SCHEMA_ID,
            "run": run,
            "documents": [d.to_json() for d in self.catalog.documents],
            "claims": claims,
            "summary": summarize(claims),
        }
        if self.unknown:
            out["unknown_claim_checks"] = self.unknown
        return out

    def write(self, path: Path, *, complete: bool) -> dict[str, Any]:
        doc = self.document(complete=complete)
        write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=False) + "\n")
        return doc
