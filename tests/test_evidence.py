"""claims.evidence: schema contract, atomic writes, reading with clear errors."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.evidence import (
    EvidenceError,
    EvidenceLog,
    load_evidence,
    schema,
    validate,
    write_atomic,
)
from claims.testing.evidence import minimal_run


def test_the_schema_is_the_packages_own_and_its_additions_are_optional():
    """The contract is claims/schema/evidence.schema.json, shipped with the package: no
    copy outside the checkout is read. Provenance, pytest's counts and the run's inputs
    are optional, so evidence from before they existed still validates."""
    import claims

    bundled = Path(claims.__file__).parent / "schema" / "evidence.schema.json"
    assert schema() == json.loads(bundled.read_text("utf-8"))
    required = schema()["$defs"]["Run"]["required"]
    assert not {"suite", "pytest", "inputs"} & set(required)


def test_empty_log_is_valid_evidence_listing_every_claim():
    catalog = load_catalog()
    log = EvidenceLog(catalog, minimal_run())
    doc = log.document(complete=True)
    assert validate(doc) == []
    assert len(doc["claims"]) == len(catalog)
    assert doc["run"]["complete"] is True


def test_checks_are_split_per_claim():
    catalog = load_catalog()
    a, b = [c.id for c in catalog if c.testable][:2]
    log = EvidenceLog(catalog, minimal_run())
    log.add(
        [a, b],
        {
            "nodeid": "t",
            "outcome": "passed",
            "verdict": "reproduced",
            "source": "live",
            "measurements": [
                {"name": "x", "claim": a, "measured": 1, "holds": True},
                {"name": "y", "claim": b, "measured": 2, "holds": True},
            ],
        },
    )
    doc = log.document(complete=True)
    by_id = {c["id"]: c for c in doc["claims"]}
    assert [m["name"] for m in by_id[a]["checks"][0]["measurements"]] == ["x"]
    assert [m["name"] for m in by_id[b]["checks"][0]["measurements"]] == ["y"]
    assert by_id[a]["verdict"] == "reproduced"


def test_validation_names_the_field():
    doc = EvidenceLog(load_catalog(), minimal_run()).document(complete=True)
    doc["claims"][0]["verdict"] = "sort-of"
    problems = validate(doc)
    assert problems and problems[0].startswith("claims/0/verdict")


def _written(tmp_path, spoil):
    doc = json.loads(json.dumps(EvidenceLog(load_catalog(), minimal_run()).document(complete=True)))
    doc["claims"][0]["checks"] = [{"nodeid": "t", "outcome": "passed", "verdict": "consistent",
                                   "source": "fixture", "measurements": []}]
    doc["claims"][0]["verdict"] = "consistent"
    spoil(doc)
    path = tmp_path / "e.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_field_of_the_wrong_kind_is_refused_where_it_is(tmp_path):
    """What the report iterates is typed by the schema: attachments that are a number
    are refused on loading, named, instead of failing inside the page."""
    path = _written(tmp_path, lambda d: d["claims"][0]["checks"][0].update(attachments=7))
    with pytest.raises(EvidenceError, match="claims/0/checks/0/attachments: 7 is not of type"):
        load_evidence(path)
    assert load_evidence(_written(tmp_path, lambda d: None))["claims"][0]["checks"][0]


@pytest.mark.parametrize("key", ["untestable_reason", "document_title", "profile", "stated",
                                 "erratum", "note", "reason"])
def test_a_claim_without_an_optional_key_loads(tmp_path, key):
    """The schema leaves these keys out of ``required``: a file without them is evidence,
    loaded, never a KeyError in the verdict check (the fleet fuzz test found it on 3.13)."""
    doc = load_evidence(_written(tmp_path, lambda d: [c.pop(key, None) for c in d["claims"]]))
    assert all(key not in c for c in doc["claims"])


def test_a_claim_id_with_a_trailing_newline_is_refused(tmp_path):
    # The schema's pattern ends in "$", which Python's re lets match before a newline.
    def spoil(doc):
        doc["claims"][0]["id"] += "\n"

    with pytest.raises(EvidenceError, match=r"claims\[0\]\.id .* is not a claim id"):
        load_evidence(_written(tmp_path, spoil))


def test_atomic_write_leaves_no_temporary_files(tmp_path):
    target = tmp_path / "out" / "evidence.json"
    write_atomic(target, "one")
    write_atomic(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["evidence.json"]
    # Readable like any file the user writes, not private like mkstemp's default.
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        (b"\xff\xfe", "not UTF-8"),
        (b"{", "not JSON"),
        (b"[]", "top level is not an object"),
        (b'{"schema": "claims-evidence/1"}', "not claims evidence"),
    ],
)
def test_load_evidence_errors_name_the_file(tmp_path, content, message):
    path = tmp_path / "e.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(EvidenceError, match=message) as info:
        load_evidence(path)
    assert str(path) in str(info.value)


# --- hostile text and numbers where they enter the evidence --------------------------
def _one_check_log(record_extra: dict[str, object]) -> tuple[EvidenceLog, str]:
    catalog = load_catalog()
    cid = next(c.id for c in catalog if c.testable)
    log = EvidenceLog(catalog, minimal_run())
    record: dict[str, object] = {
        "nodeid": "tests/t.py::test_x",
        "outcome": "passed",
        "verdict": "reproduced",
        "source": "live",
        "measurements": [],
    }
    record.update(record_extra)
    log.add([cid], record)
    return log, cid


def test_an_unpaired_surrogate_from_a_server_is_replaced_not_fatal(tmp_path):
    reply = "hi \ud83d there"  # what json.loads makes of a server's "hi \\ud83d there"
    log, cid = _one_check_log(
        {
            "message": reply,
            "attachments": [{"label": reply, "kind": "text", "content": reply}],
            "facts": {"server \udc00 key": reply},
            "measurements": [{"name": "reply", "measured": reply, "holds": True}],
        }
    )
    path = tmp_path / "evidence.json"
    log.write(path, complete=True)  # used to raise UnicodeEncodeError: the run lost its evidence
    doc = load_evidence(path)
    check = next(c for c in doc["claims"] if c["id"] == cid)["checks"][0]
    assert check["message"] == "hi \ufffd there"
    assert check["attachments"][0]["content"] == "hi \ufffd there"
    assert check["measurements"][0]["measured"] == "hi \ufffd there"
    assert doc["run"]["facts"] == {"server \ufffd key": "hi \ufffd there"}
    assert next(c for c in doc["claims"] if c["id"] == cid)["verdict"] == "reproduced"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "nan", "-inf", [1.0, float("nan")]])
def test_a_non_finite_measurement_is_an_error_of_the_probe(tmp_path, value):
    log, cid = _one_check_log(
        {"measurements": [{"name": "tokens/s", "measured": value, "unit": "s", "holds": True}]}
    )
    path = tmp_path / "evidence.json"
    log.write(path, complete=True)
    text = path.read_text("utf-8")
    json.loads(text, parse_constant=lambda token: pytest.fail(f"non-JSON token {token}"))
    claim = next(c for c in json.loads(text)["claims"] if c["id"] == cid)
    assert claim["verdict"] == "error"
    assert "non-finite measurement of tokens/s" in claim["reason"]
    m = claim["checks"][0]["measurements"][0]
    assert m["holds"] is False and m["non_finite"] is True


def test_non_finite_numbers_elsewhere_are_written_as_text_not_tokens(tmp_path):
    log, _ = _one_check_log({"facts": {"ratio": float("inf")}, "duration_s": float("nan")})
    path = tmp_path / "evidence.json"
    log.write(path, complete=True)
    doc = json.loads(path.read_text("utf-8"), parse_constant=lambda t: pytest.fail(t))
    assert doc["run"]["facts"]["ratio"] == "inf"


def test_nesting_is_cut_when_written_and_refused_when_loaded(tmp_path):
    from claims.evidence import MAX_DEPTH

    deep: object = "bottom"
    for _ in range(900):
        deep = {"x": deep}
    log, _ = _one_check_log({"facts": {"deep": deep}})
    path = tmp_path / "evidence.json"
    log.write(path, complete=True)
    assert "nested more than" in path.read_text("utf-8")
    load_evidence(path)  # what the suite writes loads
    for levels in (400, 900):
        doc = json.loads(path.read_text("utf-8"))
        nest: object = 1
        for _ in range(levels):
            nest = [nest]
        doc["run"]["facts"]["deep"] = nest
        path.write_text(json.dumps(doc), encoding="utf-8")
        with pytest.raises(EvidenceError, match=f"nested more than {MAX_DEPTH} levels") as info:
            load_evidence(path)
        assert str(path) in str(info.value)


def test_a_huge_file_is_refused_and_a_long_attachment_cut_at_load(tmp_path):
    from claims.evidence import MAX_EVIDENCE_BYTES, MAX_LOADED_ATTACHMENT_CHARS

    log, cid = _one_check_log(
        {"attachments": [{"label": "big", "kind": "text", "content": "x" * 200_000}]}
    )
    path = tmp_path / "evidence.json"
    log.write(path, complete=True)
    doc = load_evidence(path)
    att = next(c for c in doc["claims"] if c["id"] == cid)["checks"][0]["attachments"][0]
    assert len(att["content"]) < MAX_LOADED_ATTACHMENT_CHARS + 200
    assert "cut when loaded: 200,000 characters" in att["content"] and att["truncated"]
    raw = json.loads(path.read_text("utf-8"))
    raw["claims"][0]["statement"] = "y" * (MAX_EVIDENCE_BYTES + 1)
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(EvidenceError, match="larger than 16 MiB") as info:
        load_evidence(path)
    assert str(path) in str(info.value)


@pytest.mark.slow
def test_provenance_names_version_commit_and_catalog_hash():
    from claims.evidence import catalog_sha256

    catalog = load_catalog()
    doc = EvidenceLog(catalog, minimal_run()).document(complete=True)
    suite = doc["run"]["suite"]
    assert suite["catalog_sha256"] == catalog_sha256(catalog)
    assert len(suite["catalog_sha256"]) == 64
    assert suite["version"]  # installed (editable) in every environment the tests run in
    repo = Path(__file__).resolve().parents[1]
    if (repo / ".git").exists():
        head = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        assert suite["git_commit"] == head
    assert validate(doc) == []


def test_catalog_hash_changes_with_a_figure(tmp_path):
    from claims.evidence import catalog_sha256

    catalog = load_catalog()
    source = Path(__file__).resolve().parents[1] / "claims" / "catalog"
    # the documents' catalogs, not their figures' anchors (claims/catalog/*.anchors.toml)
    files = sorted(p for p in source.glob("*.toml") if not p.name.endswith(".anchors.toml"))
    copies = []
    for f in files:
        copy = tmp_path / f.name
        copy.write_text(f.read_text("utf-8"), encoding="utf-8")
        copies.append(copy)
    assert catalog_sha256(load_catalog(copies)) == catalog_sha256(catalog)
    text = copies[0].read_text("utf-8")
    changed = text.replace("statement = \"", "statement = \"(edited) ", 1)
    assert changed != text
    copies[0].write_text(changed, encoding="utf-8")
    assert catalog_sha256(load_catalog(copies)) != catalog_sha256(catalog)


# --- hostile evidence files (issue 22, items 4, 6 and 8) -----------------------------
def _written_evidence(tmp_path) -> dict[str, object]:
    log, _ = _one_check_log({"measurements": [{"name": "m", "measured": 1.0, "holds": True}]})
    return log.write(tmp_path / "base.json", complete=True)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("nan-measured", "NaN is not a JSON number"),
        ("infinity-in-facts", "-Infinity is not a JSON number"),
        ("digits-5000", "not JSON .*digits"),
        ("attachments-7", "not claims evidence: .*attachments"),
        ("verdict-contradicts-checks",
         "inconsistent evidence: claim '.*' has verdict 'reproduced', but its checks' "
         "verdicts \\(refuted\\) give 'refuted'"),
    ],
)
def test_a_hostile_evidence_file_is_refused_naming_the_file(tmp_path, case, message):
    from claims.testing.hostile import evidence_variant

    path = tmp_path / f"{case}.json"
    path.write_text(evidence_variant(_written_evidence(tmp_path), case), "utf-8")
    with pytest.raises(EvidenceError, match=message) as info:
        load_evidence(path)
    assert str(path) in str(info.value)


def test_the_unedited_evidence_loads(tmp_path):
    load_evidence(tmp_path / "base.json") if _written_evidence(tmp_path) else None


def test_a_fifo_is_refused_at_once_not_read(tmp_path):
    fifo = tmp_path / "evidence.json"
    os.mkfifo(fifo)  # nothing ever writes to it: a read would block forever
    with pytest.raises(EvidenceError, match="not a regular file"):
        load_evidence(fifo)
    with pytest.raises(EvidenceError, match="not a regular file"):
        load_evidence(tmp_path)  # a folder neither


# --- evidence that lies (issue 35, item 7) -------------------------------------------------
def test_a_number_too_large_to_be_finite_is_refused(tmp_path):
    path = _written(tmp_path, lambda d: None)
    text = path.read_text("utf-8").replace('"measurements": []',
                                           '"measurements": [], "duration_s": 1e999', 1)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(EvidenceError, match=r"the number 1e999 is too large to be finite"):
        load_evidence(path)


def test_a_key_given_twice_is_refused(tmp_path):
    # On 4f018a0 the last "claims" won: an empty page under a header counting 92 consistent.
    path = _written(tmp_path, lambda d: None)
    text = path.read_text("utf-8")
    path.write_text(text[: text.rindex("}")] + ', "claims": []}', encoding="utf-8")
    with pytest.raises(EvidenceError, match=r"the key 'claims' appears twice in one object"):
        load_evidence(path)


def test_reproduced_on_an_untestable_claim_without_checks_is_refused(tmp_path):
    untestable = next(c.id for c in load_catalog() if not c.testable)

    def spoil(doc):
        claim = next(c for c in doc["claims"] if c["id"] == untestable)
        claim["verdict"] = "reproduced"

    with pytest.raises(EvidenceError, match=(
            f"claim '{untestable}' has verdict 'reproduced', but it has no checks and is "
            "untestable in the catalog, which gives 'untestable'")):
        load_evidence(_written(tmp_path, spoil))


def test_an_untestable_claim_made_testable_in_the_file_is_refused(tmp_path):
    untestable = next(c.id for c in load_catalog() if not c.testable)

    def spoil(doc):
        claim = next(c for c in doc["claims"] if c["id"] == untestable)
        claim.update(testable=True, verdict="not-run")

    with pytest.raises(EvidenceError, match=f"claim '{untestable}' is testable in the file"):
        load_evidence(_written(tmp_path, spoil))


def test_claims_the_catalog_does_not_know_are_refused(tmp_path):
    def spoil(doc):
        made_up = dict(doc["claims"][1], id="W1-INVENTED", checks=[])
        doc["claims"].append(made_up)

    with pytest.raises(EvidenceError, match="claim 'W1-INVENTED' is not in the catalog this "
                                            "run was judged by"):
        load_evidence(_written(tmp_path, spoil))


def test_a_claim_listed_twice_is_refused(tmp_path):
    with pytest.raises(EvidenceError, match="is listed twice"):
        load_evidence(_written(tmp_path, lambda d: d["claims"].append(d["claims"][1])))


def test_sixty_thousand_invented_claims_are_refused_before_anything_walks_them(tmp_path):
    def spoil(doc):
        doc["claims"] = [{"id": f"W1-MADE-UP-{i}"} for i in range(60_000)]

    with pytest.raises(EvidenceError, match=r"60,000 claims; a catalog has a few hundred"):
        load_evidence(_written(tmp_path, spoil))


def test_the_summary_is_recounted_from_the_claims(tmp_path):
    def spoil(doc):
        doc["summary"]["by_verdict"]["consistent"] = 92

    loaded = load_evidence(_written(tmp_path, spoil))
    assert loaded["summary"]["by_verdict"]["consistent"] == 1


def test_control_and_bidi_characters_are_escaped_in_the_written_file(tmp_path):
    hostile = "ok\u202eevil\x9b2J\u200b\x7f end"
    log = EvidenceLog(load_catalog(), minimal_run())
    cid = next(iter(load_catalog())).id
    log.add([cid], {"nodeid": "t", "outcome": "passed", "verdict": "consistent",
                    "source": "fixture", "measurements": [], "message": hostile})
    path = tmp_path / "e.json"
    log.write(path, complete=True)
    text = path.read_text("utf-8")
    assert not any(ch in text for ch in "\u202e\x9b\u200b\x7f")
    assert "ok\\u202eevil\\u009b2J\\u200b\\u007f end" in text
    loaded = load_evidence(path)
    assert next(c for c in loaded["claims"] if c["id"] == cid)["checks"][0]["message"] == hostile


def test_a_file_without_its_documents_list_is_refused_not_a_traceback(tmp_path):
    # The schema leaves "documents" optional; the claims' documents must still be listed.
    doc = _written_evidence(tmp_path)
    del doc["documents"]
    path = tmp_path / "no-documents.json"
    path.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(EvidenceError, match="which the file does not list"):
        load_evidence(path)
