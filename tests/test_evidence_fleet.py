"""claims.evidence_fleet: the fleet loader agrees with the strict loader, file for file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claims.catalog import load_catalog
from claims.evidence import EvidenceError, EvidenceLog, load_evidence
from claims.evidence_fleet import FleetLoader
from claims.testing.evidence import minimal_run
from claims.testing.hostile import evidence_variant

CLAIMS_KEPT = 8


def _base() -> dict[str, Any]:
    """A small valid document: a few catalog claims, two of them checked with figures."""
    catalog = load_catalog()
    log = EvidenceLog(catalog, minimal_run(complete=True))
    testable = [c.id for c in catalog if c.testable][:2]
    for n, cid in enumerate(testable):
        log.add([cid], {
            "nodeid": f"tests/t.py::test_{n}", "outcome": "passed", "verdict": "reproduced",
            "source": "live",
            "measurements": [{"name": "m", "measured": 1.5 + n, "holds": True, "unit": "s"}],
            "attachments": [{"label": "out", "kind": "text", "content": "ok"}],
        })
    doc: dict[str, Any] = json.loads(json.dumps(log.document(complete=True)))
    keep = set(testable)
    doc["claims"] = [c for c in doc["claims"] if c["id"] in keep] + [
        c for c in doc["claims"] if c["id"] not in keep][: CLAIMS_KEPT - len(keep)]
    return doc


BASE = _base()
# One loader for every example: its cache holds what earlier examples checked, as a
# compare over a fleet's files does.
LOADER = FleetLoader()


def _claim_edit(doc: dict[str, Any], index: int, edit: str) -> str:
    """``doc``'s text with one claim edited (some edits are tokens json.dumps cannot write)."""
    claim = doc["claims"][index % len(doc["claims"])]
    checks = claim["checks"]
    swaps: dict[str, str] = {}
    if edit == "verdict":  # contradicted by its checks (or its catalog testability)
        claim["verdict"] = "refuted" if claim["verdict"] != "refuted" else "reproduced"
    elif edit == "verdict-and-checks":  # refuted all the way down: consistent again
        claim["verdict"] = "refuted"
        for check in checks:
            check["verdict"] = "refuted"
        if not checks:
            claim["verdict"] = "not-run"
    elif edit in ("measured", "nan", "huge", "bigint") and checks:
        tokens = {"measured": "2.75", "nan": "NaN", "huge": "1e999", "bigint": "7" * 5000}
        checks[0]["measurements"][0]["measured"] = "__VALUE__"
        swaps['"__VALUE__"'] = tokens[edit]
    elif edit == "duplicate-key":
        claim["__DUP__"] = "again"
        swaps['"__DUP__"'] = '"statement"'
    elif edit == "surrogate":
        claim["reason"] = "__SUR__"
        swaps['"__SUR__"'] = '"half \\ud83d"'
    elif edit == "deep":
        nested: Any = "x"
        for _ in range(60):
            nested = [nested]
        claim["reason"] = nested
    elif edit == "long-attachment" and checks:
        checks[0]["attachments"] = [{"label": "log", "kind": "text", "content": "y" * 70_000}]
    elif edit == "bad-id":
        claim["id"] += "\n"
    elif edit == "no-statement":
        del claim["statement"]
    elif edit == "extra-field":
        claim["extra"] = 1
    text = json.dumps(doc)
    for placeholder, token in swaps.items():
        text = text.replace(placeholder, token)
    return text


EDITS = ("verdict", "verdict-and-checks", "measured", "nan", "huge", "bigint",
         "duplicate-key", "surrogate", "deep", "long-attachment", "bad-id", "no-statement",
         "extra-field")
HOSTILE = ("nan-measured", "infinity-in-facts", "digits-5000", "attachments-7",
           "verdict-contradicts-checks")
JSONISH = st.text(alphabet='{}[]",:\\ \n0123456789.eE+-NaIfinrutslx\ufeff\u00e9', max_size=6)


@st.composite
def variants(draw: st.DrawFn) -> str:
    """The base document's text after one mutation (most still valid, many not)."""
    doc = json.loads(json.dumps(BASE))
    kind = draw(st.sampled_from(("same", "indent", "duplicate-claim", "edit", "edits",
                                 "bytes", "hostile", "reordered")))
    if kind == "same":
        return json.dumps(doc)
    if kind == "indent":
        return json.dumps(doc, indent=draw(st.sampled_from((1, 2, "\t"))))
    if kind == "duplicate-claim":
        i = draw(st.integers(0, CLAIMS_KEPT - 1))
        doc["claims"].insert(draw(st.integers(0, CLAIMS_KEPT)), doc["claims"][i])
        return json.dumps(doc)
    if kind == "edit":
        return _claim_edit(doc, draw(st.integers(0, CLAIMS_KEPT - 1)), draw(st.sampled_from(EDITS)))
    if kind == "edits":  # two claims edited, in either order of their problems
        doc = json.loads(_claim_edit(doc, draw(st.integers(0, 7)),
                                     draw(st.sampled_from(("verdict", "measured", "bad-id")))))
        return _claim_edit(doc, draw(st.integers(0, 7)), draw(st.sampled_from(EDITS)))
    if kind == "hostile":
        return evidence_variant(doc, draw(st.sampled_from(HOSTILE)))
    if kind == "reordered":  # top-level keys in another order, one perhaps twice
        keys = list(doc)
        order = draw(st.permutations(keys))
        text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(doc[k])}" for k in order)
        if draw(st.booleans()):
            again = draw(st.sampled_from(keys))
            text += f", {json.dumps(again)}: {json.dumps(doc[again])}"
        return text + "}"
    text = json.dumps(doc, indent=draw(st.sampled_from((None, 1))))
    at = draw(st.integers(0, len(text)))
    cut = draw(st.integers(0, 4))
    return text[:at] + draw(JSONISH) + text[at + cut:]


def _outcome(load: Any, path: Path) -> tuple[str, str]:
    try:
        doc = load(path)
    except EvidenceError as exc:
        return "refused", str(exc)
    return "accepted", json.dumps(doc, ensure_ascii=False)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=variants())
def test_the_fleet_loader_accepts_and_refuses_as_the_strict_loader_does(tmp_path, text):
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    strict = _outcome(load_evidence, path)
    fleet = _outcome(lambda p: LOADER.load(p)[0], path)
    assert fleet == strict


def test_a_fleet_of_equal_records_is_checked_once_per_record(tmp_path):
    texts = [_claim_edit(json.loads(json.dumps(BASE)), 0, "measured"), json.dumps(BASE),
             json.dumps(BASE, indent=1)]
    loader = FleetLoader()
    for n in range(9):
        path = tmp_path / f"run-{n}.json"
        path.write_text(texts[n % 3], encoding="utf-8")
        doc, entries = loader.load(path)
        assert doc == load_evidence(path)
        assert [e.claim for e in entries] == doc["claims"]
    # Every file read on the fast path; each distinct record text checked once: the base's
    # records, the edited one, and the indented file's (other text, so checked anew).
    assert loader.strict_files == 0
    assert loader.checked == CLAIMS_KEPT + 1 + CLAIMS_KEPT
    assert loader.reused == 9 * CLAIMS_KEPT - loader.checked


def test_records_shared_between_files_are_one_object(tmp_path):
    loader = FleetLoader()
    docs = []
    for n, text in enumerate((json.dumps(BASE), json.dumps(BASE))):
        path = tmp_path / f"run-{n}.json"
        path.write_text(text, encoding="utf-8")
        docs.append(loader.load(path)[0])
    assert all(a is b for a, b in zip(docs[0]["claims"], docs[1]["claims"], strict=True))


def test_a_refused_file_is_refused_in_the_strict_loaders_words(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(evidence_variant(BASE, "verdict-contradicts-checks"), encoding="utf-8")
    loader = FleetLoader()
    with pytest.raises(EvidenceError, match="inconsistent evidence") as info:
        loader.load(path)
    assert str(path) in str(info.value)
    assert loader.strict_files == 1


def test_the_cache_is_bounded_and_still_right_after_dropping(tmp_path):
    loader = FleetLoader(max_cached_chars=2_000)
    for n in range(6):
        path = tmp_path / f"run-{n}.json"
        doc = json.loads(json.dumps(BASE))
        doc["claims"][0]["checks"][0]["measurements"][0]["measured"] = 1.0 + n
        path.write_text(json.dumps(doc), encoding="utf-8")
        assert loader.load(path)[0] == load_evidence(path)
    assert loader._chars <= 2_000 or len(loader._claims_seen) + len(loader._values_seen) <= 1
