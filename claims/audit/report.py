"""The audit's result: on the terminal, and kept as JSON for the HTML report."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from claims.catalog import Catalog
from claims.evidence import write_atomic
from claims.terminal import safe

__all__ = ["catalog_digest", "load_summary", "print_audit", "write_audit"]

# The audit result file is ours, but it is read back like any other input: bounded.
MAX_AUDIT_BYTES = 16 * 1024 * 1024


def write_audit(path: Path, result: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(result, indent=1, ensure_ascii=False) + "\n")


def print_audit(result: dict[str, Any]) -> None:
    for fig in result["figures"]:
        if fig["sensitive"]:
            mark = "sensitive"
            detail = f"{fig['before']} -> {fig['after']} ({fig['how']}: {fig['perturbed']})"
        elif fig["reason"]:
            mark, detail = "cannot change", fig["reason"]
        else:
            mark = "NOT SENSITIVE"
            detail = f"stayed {fig['after']} ({fig['how']}: {fig['perturbed']})"
        print(safe(f"{fig['claim']:<24} {fig['figure'][:28]:<28} {mark:<14} {detail}"))
        for slip in fig.get("slips") or []:
            if not slip["caught"]:
                print(safe(f"{'':<24} {'':<28} {slip['kind'] + ' slip':<14} "
                           f"{slip['slipped']}: stayed {slip['after']} ({slip['why']})"))
    # What was perturbed, by kind, before the summary lines (scripts/certify-offline.sh
    # shows the last four: the slips, the summary, the explained, the transcriptions).
    perturbed = result.get("perturbed") or {}
    if perturbed:
        shown = ", ".join(f"{n} {h}" for h, n in perturbed.items())
        print(safe(f"stated figures perturbed: {shown}"))
    slip_kinds = result.get("slips") or {}
    if slip_kinds:
        print("figures slipped: " + ", ".join(
            f"{k['caught']} of {k['cases']} {kind} slips caught" for kind, k in slip_kinds.items()
        ))
    data = result.get("recorded_data") or {}
    for survivor in data.get("survivors") or []:
        print(safe(f"recorded value {survivor['datum']} ({survivor['slip']}: "
                   f"{survivor['changed']}) moved no claim: {survivor['why']}"))
    if data:
        print(f"recorded data changed: {data['caught']} of {data['values']} values a claim "
              "test reads moved a reading claim's verdict")
    tr = result["transcriptions"]
    kinds = tr.get("by_kind") or {}
    if kinds:
        print("transcribed values changed: " + ", ".join(
            f"{k['caught']} of {k['mutations']} {kind} caught" for kind, k in kinds.items()
        ))
    print(safe(result["summary"]))
    explained = result["explained"]
    print(f"{explained} cannot change a verdict, each with its reason; "
          f"{len(result['defects'])} defect(s)")
    if "skipped" in tr:
        print(safe(f"transcribed values: not audited against the documents ({tr['skipped']}; "
                   "they are optional: give --claims-documents DIR to audit the transcriptions)"))
    else:
        print(
            f"transcribed values: {tr['caught']} of {tr['mutations']} changed digits or letters "
            f"caught in {tr['values']} values; {len(tr['survivors'])} survived"
        )


def catalog_digest(catalog: Catalog) -> str:
    """Names the catalog an audit ran on, so a report never shows an audit of another one."""
    text = json.dumps([c.to_json() for c in catalog], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_summary(path: Path, catalog: Catalog) -> dict[str, Any] | None:
    """What a report shows of the audit kept at ``path``; None when there is none.

    An audit of another catalog is marked ``stale`` (its numbers are not this
    catalog's), and an unreadable file is reported as such, never trusted.
    """
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_AUDIT_BYTES + 1)
    except OSError:
        return None
    try:
        data = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_AUDIT_BYTES else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("figures"), list):
        return {"problem": f"{path.name} is not an audit result"}
    figures = [f for f in data["figures"] if isinstance(f, dict)]
    insensitive = [
        {k: f.get(k) for k in ("claim", "figure", "stated", "reason")}
        for f in figures
        if not f.get("sensitive")
    ]
    found = data.get("transcriptions")
    tr: dict[str, Any] = found if isinstance(found, dict) else {}
    return {
        "finished": data.get("finished"),
        "stale": data.get("catalog") != catalog_digest(catalog),
        "partial": bool(data.get("partial")),
        "total": len(figures),
        "sensitive": sum(bool(f.get("sensitive")) for f in figures),
        "insensitive": insensitive,
        "transcriptions": {
            k: tr.get(k)
            for k in ("values", "mutations", "caught", "skipped", "by_kind")
            if k in tr
        },
    }
