"""claims.catalog.loader: a malformed catalog fails with file, record and problem named."""

from __future__ import annotations

import pytest

from claims.catalog import CatalogError, load_catalog, load_document

HEAD = """
[document]
id = "T3"
title = "t"
seeds = []
sections = ["S"]
"""

# A valid claim's first lines; the malformed cases below append one bad field.
BASE = 'id = "T3-X"\nsection = "S"\nstatement = "s"\ntiers = ["offline"]\n'

GOOD = """
[[claim]]
id = "T3-OK"
section = "S"
statement = "s"
tiers = ["offline"]
"""


def test_good_document_loads():
    doc = load_document("T3.toml", text=HEAD + GOOD)
    assert [c.id for c in doc.claims] == ["T3-OK"]


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (
            'id = "T3-X"\nsection = "S"\nstatement = "s"\ntiers = ["offline"]\ncolour = "red"',
            "claim T3-X: unknown field(s) colour",
        ),
        ('id = "T3-X"\nstatement = "s"\ntiers = ["offline"]', "claim T3-X: missing section"),
        (
            'id = "T3-X"\nsection = "Elsewhere"\nstatement = "s"\ntiers = ["offline"]',
            "section 'Elsewhere' is not one of the document's sections",
        ),
        ('id = "T3-X"\nsection = "S"\nstatement = "s"\ntiers = ["cloud"]', "bad tier 'cloud'"),
        (
            'id = "T3-X"\nsection = "S"\nstatement = "s"\ntiers = []',
            "tiers must name at least one tier",
        ),
        (
            'id = "lower-case"\nsection = "S"\nstatement = "s"\ntiers = ["offline"]',
            "must look like",
        ),
        (
            'id = "W9-X"\nsection = "S"\nstatement = "s"\ntiers = ["offline"]',
            "must start with the document id T3-",
        ),
        (
            'id = "T3-X"\nsection = "S"\nstatement = "s"\ntiers = ["offline"]\ntestable = false',
            "an untestable claim needs untestable_reason",
        ),
        (
            BASE + 'stated = [{ name = "a", value = 4.1 }]',
            "write numbers as strings",
        ),
        (
            BASE + 'stated = [{ name = "a", value = "1" }, { name = "a", value = "2" }]',
            "duplicate figure name(s) a",
        ),
        (
            BASE + 'stated = [{ name = "a", value = "1", tolerance = "0.1" }]',
            "a set tolerance needs tolerance_reason",
        ),
        (
            BASE + 'stated = [{ name = "a", low = "5", high = "1" }]',
            "range low 5 is above high 1",
        ),
        (
            BASE + 'stated = [{ name = "a", value = "1", reading = "r", source = "s" }]',
            "a reading of the document or has a source elsewhere, not both",
        ),
        (
            BASE + 'erratum = { explanation = "e", refutes = ["zz"] }',
            "erratum refutes unknown figure 'zz'",
        ),
        (
            'id = "T3-X"\nsection = "S"\nstatement = "s"\ntiers = ["offline"]\nprofile = "laptop"',
            "unknown profile 'laptop'",
        ),
    ],
)
def test_malformed_claims_are_named(claim, message):
    with pytest.raises(CatalogError) as info:
        load_document("T3.toml", text=HEAD + "\n[[claim]]\n" + claim + "\n")
    text = str(info.value)
    assert text.startswith("T3.toml")
    assert message in text


def test_a_claim_id_with_a_trailing_newline_is_refused():
    # "$" matches before a final newline; the id pattern must not (issue 22).
    claim = 'id = "T3-X\\n"\nsection = "S"\nstatement = "s"\ntiers = ["offline"]'
    with pytest.raises(CatalogError, match=r"T3.toml.*claim id 'T3-X\\n' must look like"):
        load_document("T3.toml", text=HEAD + "\n[[claim]]\n" + claim + "\n")


def test_duplicate_ids_within_a_file():
    with pytest.raises(CatalogError, match="duplicate id"):
        load_document("T3.toml", text=HEAD + GOOD + GOOD)


def test_duplicate_ids_across_files(tmp_path):
    (tmp_path / "a.toml").write_text(HEAD + GOOD)
    (tmp_path / "b.toml").write_text(HEAD.replace('title = "t"', 'title = "u"') + GOOD)
    with pytest.raises(CatalogError, match="duplicate id"):
        load_catalog([tmp_path / "a.toml", tmp_path / "b.toml"])


def test_not_toml_and_unreadable_files(tmp_path):
    with pytest.raises(CatalogError, match=r"T3\.toml: not valid TOML"):
        load_document("T3.toml", text="[document\n")
    with pytest.raises(CatalogError, match="cannot read"):
        load_document(tmp_path / "missing.toml")
    with pytest.raises(CatalogError, match=r"missing \[document\] table"):
        load_document("T3.toml", text='[[claim]]\nid = "T3-A"\n')


def test_anchor_sidecars_are_not_catalog_files() -> None:
    """claims/catalog/<DOC>.anchors.toml sits beside the catalog without being one."""
    from claims.catalog.loader import is_catalog_file

    assert is_catalog_file("W2.toml") and not is_catalog_file("W2.anchors.toml")
    assert not is_catalog_file("W2.json")


def test_a_glob_of_the_catalog_folder_skips_the_anchors() -> None:
    from pathlib import Path

    from claims.catalog.loader import load_catalog

    folder = Path(__file__).resolve().parents[2] / "claims" / "catalog"
    assert len(load_catalog(sorted(folder.glob("*.toml")))) == len(load_catalog())


def test_lab_and_text_are_read_onto_the_document():
    head = HEAD.replace('seeds = []', 'seeds = []\nlab = ["LICENSE", "week-05"]\n'
                        'text = ["week-05/README.md", "LICENSE"]')
    doc = load_document("T3.toml", text=head + GOOD)
    assert doc.lab == ("LICENSE", "week-05")
    assert doc.text == ("week-05/README.md", "LICENSE")
    bare = load_document("T3.toml", text=HEAD + GOOD)
    assert bare.lab == () and bare.text == ()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ('lab = "week-05"', "lab must be a list of strings"),
        ("lab = [5]", "lab must be a list of strings"),
        ('text = [{ path = "a" }]', "text must be a list of strings"),
        ('lab = ["/etc/passwd"]', "lab: '/etc/passwd' is not a path under fixtures/lab"),
        ('lab = ["../claims"]', "lab: '../claims' is not a path under fixtures/lab"),
        ('lab = ["week-05/"]', "lab: 'week-05/' is not a path under fixtures/lab"),
        ('lab = ["week-05\\\\a.md"]', "is not a path under fixtures/lab"),
        ('lab = [""]', "lab: '' is not a path under fixtures/lab"),
        ('lab = ["a", "a"]', "lab: listed twice: a"),
        ('lab = ["week-05"]\ntext = ["week-050/README.md"]',
         "text: 'week-050/README.md' is not inside any of lab (week-05)"),
        ('text = ["README.md"]', "text: 'README.md' is not inside any of lab (none listed)"),
    ],
)
def test_malformed_lab_and_text_are_named(fields, message):
    head = HEAD.replace('seeds = []', 'seeds = []\n' + fields)
    with pytest.raises(CatalogError) as info:
        load_document("T3.toml", text=head + GOOD)
    assert str(info.value).startswith("T3.toml, [document]: ")
    assert message in str(info.value)


def test_a_file_is_parsed_once_per_text_and_never_served_stale(tmp_path, monkeypatch):
    """The claim tests ask for the catalog hundreds of times a run (issue 51): the same
    text is parsed once, an edited file at once, whatever its modification time says."""
    import os
    import tomllib

    from claims.catalog import loader

    parsed: list[str] = []
    real = tomllib.loads
    monkeypatch.setattr(loader.tomllib, "loads", lambda text: parsed.append(text) or real(text))
    path = tmp_path / "T3.toml"
    path.write_text(HEAD + GOOD.replace("T3-OK", "T3-FIRST"), encoding="utf-8")
    first = load_catalog([path])
    again = load_catalog([path])
    assert len(parsed) == 1
    assert again.documents[0] is first.documents[0]
    # Same size, same modification time: only the text tells the edit apart.
    stat = path.stat()
    path.write_text(HEAD + GOOD.replace("T3-OK", "T3-OTHER"), encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert [c.id for c in load_catalog([path])] == ["T3-OTHER"]
    assert len(parsed) == 2


def test_a_catalog_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "T3.toml"
    path.write_bytes((HEAD + GOOD).encode() + b'\n# \xff\n')
    with pytest.raises(CatalogError, match=r"T3\.toml: not UTF-8 text"):
        load_document(path)


def test_look_ups_follow_the_documents_the_audit_swaps_in(tmp_path):
    """Claims are found through an index (a scan per look-up grew with the square of the
    series); it must follow a swap of the documents, as the audit's perturbations make."""
    import dataclasses

    path = tmp_path / "T3.toml"
    path.write_text(HEAD + GOOD, encoding="utf-8")
    catalog = load_catalog([path])
    assert "T3-OK" in catalog and catalog.get("T3-OK").statement == "s"
    assert "T3-NEW" not in catalog and 3 not in catalog
    doc = catalog.documents[0]
    renamed = dataclasses.replace(doc.claims[0], id="T3-NEW", statement="t")
    object.__setattr__(catalog, "documents", (dataclasses.replace(doc, claims=(renamed,)),))
    assert "T3-OK" not in catalog and catalog.get("T3-NEW").statement == "t"
    with pytest.raises(KeyError, match="unknown claim id 'T3-OK'"):
        catalog.get("T3-OK")


def _scan(catalog) -> dict[str, object]:
    """What a look-up must find: the first claim of each id, in document order."""
    found: dict[str, object] = {}
    for claim in catalog:
        found.setdefault(claim.id, claim)
    return found


def test_the_index_after_swaps_is_what_a_scan_finds():
    """The index is brought up to date for the swapped document alone (rebuilding it for
    every rerun grew with the square of the series); whatever the swaps, a look-up finds
    what a scan of the documents finds, duplicates across documents included."""
    import dataclasses
    import random

    from claims.catalog.loader import Catalog

    base = load_catalog()
    rng = random.Random(51)
    catalog = Catalog(documents=base.documents)
    ids = [c.id for c in base]
    for _ in range(200):
        i = rng.randrange(len(catalog.documents))
        doc = catalog.documents[i]
        claims = list(doc.claims)
        j = rng.randrange(len(claims))
        move = rng.random()
        if move < 0.4:  # a figure's claim rebuilt, as the audit's swap does
            claims[j] = dataclasses.replace(claims[j], statement=f"swapped {rng.random()}")
        elif move < 0.6:  # an id another document holds: first in document order wins
            claims[j] = dataclasses.replace(claims[j], id=rng.choice(ids))
        elif move < 0.8:  # an id nobody holds
            claims[j] = dataclasses.replace(claims[j], id=f"X-{rng.randrange(5)}")
        else:  # back to the loaded document
            claims = list(base.documents[i].claims)
        documents = list(catalog.documents)
        documents[i] = dataclasses.replace(doc, claims=tuple(claims))
        object.__setattr__(catalog, "documents", tuple(documents))
        expected = _scan(catalog)
        assert catalog._by_id() == expected
        probe = rng.choice([*ids, "X-1", "X-9"])
        assert (probe in catalog) == (probe in expected)


def test_an_unchanged_catalog_is_checked_once_and_each_load_is_its_own(tmp_path):
    path = tmp_path / "T3.toml"
    path.write_text(HEAD + GOOD, encoding="utf-8")
    first, again = load_catalog([path]), load_catalog([path])
    # The same parsed documents, but two Catalog objects: a swap made on one (the audit's)
    # is never seen through the other.
    assert first.documents == again.documents and first is not again
    object.__setattr__(first, "documents", ())
    assert [c.id for c in again] == ["T3-OK"]
