"""The audit's result: on the terminal, and kept as JSON for the HTML report.

The kept result names the checkout it was made on (``digest``,
:func:`claims.inputs.audit_digest.audit_digest`): ``claims audit`` reuses it only on
that checkout (:func:`current_audit`), and the report shows it as this checkout's
only then; otherwise it says no audit matches and names the one it found.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from claims.catalog import Catalog
from claims.evidence import write_atomic
from claims.inputs.audit_digest import KEPT_AUDIT, audit_digest, platform_of, short
from claims.terminal import safe

__all__ = [
    "catalog_digest",
    "current_audit",
    "load_summary",
    "print_audit",
    "ran_on",
    "read_audit",
    "reused_line",
    "write_audit",
]

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
            f"{k['caught']} of {k['cases']} {kind} slips caught"
            + (f" ({k['by_anchor']} by the anchor)" if k.get("by_anchor") else "")
            for kind, k in slip_kinds.items()
        ))
    words = result.get("words") or {}
    for kind, label in (("statements", "statement"), ("explanations", "explanation")):
        for survivor in (words.get(kind) or {}).get("survivors") or []:
            print(safe(f"{survivor['claim']:<24} {label} slip {survivor['slip']!r}: the "
                       f"wording check did not object ({survivor.get('why')})"))
    if words:
        print("catalog words slipped: " + ", ".join(
            f"{words[kind]['caught']} of {words[kind]['cases']} {label} caught"
            + (f" ({words[kind]['untestable']} more in untestable claims, which nothing judges)"
               if words[kind].get("untestable") else "")
            for kind, label in (("statements", "statements' relation words"),
                                ("explanations", "explanations' numbers"))
            if kind in words))
    data = result.get("recorded_data") or {}
    for survivor in data.get("survivors") or []:
        print(safe(f"recorded value {survivor['datum']} ({survivor['slip']}: "
                   f"{survivor['changed']}) moved no claim: {survivor['why']}"))
    if data:
        kinds = data.get("by_kind") or {}
        shown = ", ".join(f"{k['caught']} of {k['cases']} {kind}" for kind, k in kinds.items())
        print(f"recorded data changed: {data['caught']} of {data.get('slips', data['values'])} "
              f"slips in {data['values']} values a claim test reads moved a reading claim's "
              f"verdict" + (f" ({shown})" if shown else ""))
    for stale in (result.get("read_record") or {}).get("stale") or []:
        # The kept record of what the claim tests read (claims.text.reads) disagrees.
        print(safe(f"read record stale: {stale} (run scripts/record-reads.py)"))
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


def read_audit(path: Path) -> dict[str, Any] | str | None:
    """The audit result kept at ``path``: the result, a problem (it is not one), or None
    (there is none). Our own file, but read back like any other input: bounded, checked."""
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
        return f"{path.name} is not an audit result"
    return data


def current_audit(
    path: Path, digest: str, documents: str | None, claims: list[str] | None
) -> dict[str, Any] | None:
    """The result kept at ``path`` when it is the answer an audit would give now: made on
    a checkout of this ``digest``, with the same documents (or none) and of the same
    claims (None: all of them); else None."""
    kept = read_audit(path)
    if not isinstance(kept, dict):
        return None
    same = (
        kept.get("digest") == digest
        and kept.get("documents") == documents
        and (sorted(claims) if claims else None) == kept.get("selected")
        and isinstance(kept.get("defects"), list)
        and isinstance(kept.get("transcriptions"), dict)
        and isinstance(kept.get("summary"), str)
    )
    return kept if same else None


def ran_on(kept: dict[str, Any]) -> str:
    """Where an audit ran, as its result records it ("Python 3.11.7 on x86_64"), and a
    plain note when that is not this interpreter and machine."""
    python, machine = kept.get("python"), kept.get("machine")
    if not isinstance(python, str) or not isinstance(machine, str):
        return "on an interpreter and machine it did not record"
    here = platform_of()
    note = "" if (python, machine) == (here["python"], here["machine"]) else (
        f", not this one (Python {here['python']} on {here['machine']})")
    return f"on Python {python} ({machine}){note}"


def reused_line(kept: dict[str, Any], *, with_sources: bool = False) -> str:
    """What the terminal says of a kept audit reused instead of rerun."""
    where = f"kept with the sources ({KEPT_AUDIT})" if with_sources else "kept"
    return safe(
        f"audit: reused the result {where}, made {kept.get('finished')} "
        f"{ran_on(kept)} on sources of digest {short(kept.get('digest'))}, which this "
        "checkout's are: nothing it reads has changed; `python -m claims audit --force` "
        "reruns it"
    )


def load_summary(path: Path, root: Path) -> dict[str, Any] | None:
    """What a report shows of the audit kept at ``path``; None when there is none.

    An audit of another checkout than the one at ``root`` is marked ``stale``: its
    numbers are not this checkout's, and the report says so instead of showing them as
    current. An unreadable file is reported as such, never trusted.
    """
    data = read_audit(path)
    if data is None:
        return None
    if isinstance(data, str):
        return {"problem": data}
    figures = [f for f in data["figures"] if isinstance(f, dict)]
    insensitive = [
        {k: f.get(k) for k in ("claim", "figure", "stated", "reason")}
        for f in figures
        if not f.get("sensitive")
    ]
    found = data.get("transcriptions")
    tr: dict[str, Any] = found if isinstance(found, dict) else {}
    kept = data.get("digest")
    return {
        "finished": data.get("finished"),
        "digest": kept if isinstance(kept, str) else None,
        "ran_on": ran_on(data),
        "stale": kept != audit_digest(root),
        "partial": bool(data.get("partial")),
        "total": len(figures),
        "sensitive": sum(bool(f.get("sensitive")) for f in figures),
        "insensitive": insensitive,
        "slips": data.get("slips") if isinstance(data.get("slips"), dict) else {},
        "transcriptions": {
            k: tr.get(k)
            for k in ("values", "mutations", "caught", "skipped", "by_kind")
            if k in tr
        },
    }
