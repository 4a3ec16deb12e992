"""Every stated figure of the catalog tied to the text that prints it (claims.text.anchors)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from claims.catalog import load_catalog
from claims.catalog.records import StatedFigure
from claims.figures import other_units, parse_literal
from claims.text.anchors import (
    AnchorError,
    FigureAnchor,
    anchors_path,
    dump_anchors,
    figure_problems,
    load_anchors,
    misplaced_figures,
    printed_disagreement,
    printed_unit,
)
from claims.text.sources import text_files
from claims.text.typos import digit_dropped, digit_plus_one, digits_swapped, letter_changed
from tests.checkout import copy_catalog, copy_checkout, replace_once, run_pytest


def _edited_catalog(tmp_path: Path, doc: str, old: str, new: str) -> Path:
    """A copy of the catalog folder with one line of one document edited."""
    folder = copy_catalog(tmp_path)
    replace_once(folder / f"{doc}.toml", old, new)
    return folder


def _problems(folder: Path) -> list[str]:
    files = sorted(p for p in folder.glob("*.toml") if not p.name.endswith(".anchors.toml"))
    return [p["problem"] for p in figure_problems(load_catalog(files), folder)]


def test_every_stated_figure_has_one_anchor_that_agrees() -> None:
    catalog = load_catalog()
    assert figure_problems(catalog) == []
    anchored = sum(len(load_anchors(d.id)) for d in catalog.documents)
    assert anchored == sum(f.source is None for c in catalog for f in c.stated) > 390
    # The figures no document states, each reviewed: a new one is a decision, not a default.
    sourced = [(c.id, f.name) for c in catalog for f in c.stated if f.source is not None]
    assert sourced == [("W1-SHARED-BANDWIDTH", "GB10 memory bandwidth")]


GB10 = ('profile = "dgx-spark", source = "NVIDIA\'s DGX Spark hardware specifications: '
        'the GB10\'s LPDDR5x unified memory at 273 GB/s", ')


def test_a_figure_from_elsewhere_needs_its_source_and_no_anchor(tmp_path: Path) -> None:
    """Only ``source`` exempts a figure from its anchor: without one the GB10's
    bandwidth is a figure with no anchor like any other, and anchored it is refused."""
    found = _problems(_edited_catalog(tmp_path / "a", "W1", GB10, 'profile = "dgx-spark", '))
    assert len(found) == 1 and found[0].startswith(
        "W1-SHARED-BANDWIDTH figure 'GB10 memory bandwidth' has no anchor")
    folder = _edited_catalog(tmp_path / "b", "W1", GB10, GB10)
    stray = FigureAnchor("W1-SHARED-BANDWIDTH", "GB10 memory bandwidth",
                         "002_7d36a8153c2e8741.txt", 2354, "", "bandwidth")
    path = anchors_path("W1", folder)
    path.write_text(path.read_text("utf-8") + dump_anchors("W1", [stray]), "utf-8")
    assert _problems(folder) == [
        "W1-SHARED-BANDWIDTH figure 'GB10 memory bandwidth' comes from \"NVIDIA's DGX Spark "
        "hardware specifications: the GB10's LPDDR5x unified memory at 273 GB/s\", not the "
        "document, yet is anchored in claims/catalog/W1.anchors.toml"]


def test_a_reading_is_pinned_by_reads_and_explained_once() -> None:
    """A figure the catalog reads into words needs ``reads`` (its display, compared) at
    its anchor, and no note there: the catalog's ``reading`` already says why."""
    catalog = load_catalog()
    fig = catalog.get("W2-MANIFEST-LAYERS").figure("manifest size")
    assert fig.reading is not None and fig.display == "≤ 64 KiB"
    anchor = {a.key: a for a in load_anchors("W2")}[("W2-MANIFEST-LAYERS", "manifest size")]
    assert anchor.text == "small JSON file" and printed_disagreement(fig, anchor) is None
    unpinned = printed_disagreement(fig, replace(anchor, reads=None))
    assert unpinned is not None and "reads = '≤ 64 KiB'" in unpinned
    assert "note repeats" in (printed_disagreement(fig, replace(anchor, note="why")) or "")
    # the form is part of the pin: an at-most read as an equal no longer agrees
    assert printed_disagreement(replace(fig, form="equal"), anchor) is not None


@pytest.mark.parametrize(("doc", "old", "new", "figure"), [
    # an erratum's figure: the masterclass's 70B Q6_K cell
    ("MC", '{ name = "70B Q6_K", value = "56.0", unit = "GB" }',
     '{ name = "70B Q6_K", value = "560.0", unit = "GB" }', "MC-QUANT-SIZES figure '70B Q6_K'"),
    ("MC", '{ name = "base weights", value = "5", unit = "GB" }',
     '{ name = "base weights", value = "50", unit = "GB" }',
     "MC-KV-BASE-WEIGHTS figure 'base weights'"),
    # the same value at another precision is another statement
    ("W4", '{ name = "weight GB", value = "6.17", unit = "GB" }',
     '{ name = "weight GB", value = "6.2", unit = "GB" }', "W4-QWEN-EXACT figure 'weight GB'"),
])
def test_edited_figure_is_named(tmp_path: Path, doc: str, old: str, new: str,
                                figure: str) -> None:
    found = _problems(_edited_catalog(tmp_path, doc, old, new))
    assert len(found) == 1 and figure in found[0] and "no longer says" in found[0]


def test_figure_without_anchor_is_named(tmp_path: Path) -> None:
    folder = _edited_catalog(
        tmp_path, "W4", '{ name = "total_size", value = "6,171,877,376", unit = "B" }',
        '{ name = "total_size", value = "6,171,877,376", unit = "B" },\n'
        '  { name = "shard count", value = "2" }')
    found = _problems(folder)
    assert found == ["W4-INDEX-IS-PAYLOAD figure 'shard count' has no anchor in "
                     "claims/catalog/W4.anchors.toml: run scripts/anchor-figures.py "
                     "--claims-documents DIR and review the proposal"]


def test_anchor_of_no_figure_and_malformed_file(tmp_path: Path) -> None:
    folder = copy_catalog(tmp_path)
    extra = FigureAnchor("W4-INDEX-IS-PAYLOAD", "ghost", "002_x.txt", 1, "", "2")
    path = anchors_path("W4", folder)
    path.write_text(path.read_text("utf-8") + dump_anchors("W4", [extra]), "utf-8")
    assert any("'ghost', which the catalog does not state" in p for p in _problems(folder))
    path.write_text("[[anchor]]\nclaim = 1\n", "utf-8")
    with pytest.raises(AnchorError, match=r"W4\.anchors\.toml, anchor 1: claim"):
        load_anchors("W4", folder)
    assert any("W4.anchors.toml, anchor 1" in p for p in _problems(folder))


def _typos(fig: StatedFigure) -> list[StatedFigure]:
    """The transcription slips of claims.text.typos, made in a figure's own value."""
    out: list[StatedFigure] = []
    if fig.kind == "number" and fig.text:
        for text in digit_plus_one(fig.text) + digits_swapped(fig.text) + digit_dropped(fig.text):
            try:
                parse_literal(text)
            except ValueError:
                continue
            if text != fig.text:
                out.append(replace(fig, text=text))
    elif fig.kind == "range" and fig.low and fig.high:
        out += [replace(fig, low=t) for t in digit_plus_one(fig.low)]
        out += [replace(fig, high=t) for t in digit_plus_one(fig.high)]
    elif fig.kind == "text" and fig.text:
        out += [replace(fig, text=t) for t in digit_plus_one(fig.text) + letter_changed(fig.text)]
    elif fig.kind == "list" and fig.values:
        out += [replace(fig, values=(t, *fig.values[1:]))
                for t in letter_changed(fig.values[0]) + digit_plus_one(fig.values[0])]
    elif fig.kind == "bool":
        out.append(replace(fig, flag=not fig.flag))
    return out


def test_every_figure_anchor_catches_a_slip_in_the_figure() -> None:
    """Each slip of claims.text.typos made in each stated figure (a digit changed,
    swapped or dropped, a letter changed, a truth flipped) disagrees with its anchor."""
    catalog = load_catalog()
    anchors = {a.key: a for d in catalog.documents for a in load_anchors(d.id)}
    missed = []
    tried = 0
    for claim in catalog:
        for fig in claim.stated:
            if fig.source is not None:
                continue  # not the document's: no anchor (the test above)
            anchor = anchors[(claim.id, fig.name)]
            for slip in _typos(fig):
                tried += 1
                if printed_disagreement(slip, anchor) is None:
                    missed.append(f"{claim.id} {fig.name}: {slip.display} vs {anchor.text!r}")
    assert tried > 800
    assert missed == []


def test_every_pinned_unit_catches_each_unit_slip_of_its_figure() -> None:
    """A figure's unit misread as any other unit of its dimension (GB as GiB, ms as s, an
    erratum's included) no longer says what its anchor pins; and most figures with a unit
    another could stand for have their unit pinned (or their display, by ``reads``)."""
    catalog = load_catalog()
    anchors = {a.key: a for d in catalog.documents for a in load_anchors(d.id)}
    slippable = pinned = 0
    missed = []
    for claim in catalog:
        for fig in claim.stated:
            anchor = anchors.get((claim.id, fig.name))
            if fig.kind not in ("number", "range") or not other_units(fig.unit) or not anchor:
                continue
            slippable += 1
            if anchor.unit is None and anchor.reads is None:
                continue
            pinned += 1
            for unit in other_units(fig.unit):
                if printed_disagreement(replace(fig, unit=unit), anchor) is None:
                    missed.append(f"{claim.id} {fig.name}: {fig.unit} read as {unit}")
    assert missed == []
    # The rest print no unit beside the number (a JSON size, "twice", a table's row).
    assert pinned > 0.9 * slippable > 150


def test_the_printed_unit_is_read_after_the_number() -> None:
    assert printed_unit(" GB of VRAM") == "GB"
    assert printed_unit("\\text{ tokens/sec}$).") == "tokens/sec"
    assert printed_unit("–70%$ of theoretical") == "%"  # a range's unit, printed once
    assert printed_unit("Gi 6.2Gi") == "Gi"
    assert printed_unit(" ms (first call") == "ms"
    assert printed_unit(" 96 23.4") is None
    anchor = FigureAnchor("W4-X", "total", "s.txt", 3, "comes to ", "6.17", unit="GB")
    fig = StatedFigure(name="total", kind="number", text="6.17", unit="GB")
    assert printed_disagreement(fig, anchor) is None
    why = printed_disagreement(replace(fig, unit="GiB"), anchor)
    assert why == "stated in GiB, printed in 'GB'"
    assert "unit = \"GB\"" in dump_anchors("W4", [anchor])


def test_misplaced_figure_in_the_documents(tmp_path: Path) -> None:
    """With the documents given, an anchor whose text the document no longer prints there
    is named (a small document made for the test: the real seeds are not bundled)."""
    catalog_dir = tmp_path / "catalog"
    catalog_dir.mkdir()
    (catalog_dir / "W4.toml").write_text(
        '[document]\nid = "W4"\ntitle = "Week 4"\npublished = "2026-07-20"\n'
        'seeds = ["002_7d36a8153c2e8741.txt"]\nsections = ["Intro"]\n\n'
        '[[claim]]\nid = "W4-X"\nsection = "Intro"\nstatement = "A total."\n'
        'tiers = ["offline"]\nstated = [{ name = "total", value = "6.17", unit = "GB" }]\n',
        "utf-8")
    anchor = FigureAnchor("W4-X", "total", "002_7d36a8153c2e8741.txt", 3, "comes to ", "6.17")
    anchors_path("W4", catalog_dir).write_text(dump_anchors("W4", [anchor]), "utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    seed = docs / "002_7d36a8153c2e8741.txt"
    seed.write_text("Week 4\n\nThe index comes to 6.17 GB.\n", "utf-8")
    catalog = load_catalog([catalog_dir / "W4.toml"])
    assert figure_problems(catalog, catalog_dir) == []
    assert misplaced_figures(catalog, docs, catalog_dir) == (1, [])
    edited = tmp_path / "edited"  # another folder: seed texts are read once per path
    edited.mkdir()
    (edited / seed.name).write_text("Week 4\n\nThe index comes to 6.18 GB.\n", "utf-8")
    checked, problems = misplaced_figures(catalog, edited, catalog_dir)
    assert checked == 1 and len(problems) == 1
    assert "W4-X figure 'total'" in problems[0]["problem"] and "line 3" in problems[0]["problem"]
    # A pinned unit the document does not print after the number is named too.
    anchors_path("W4", catalog_dir).write_text(
        dump_anchors("W4", [replace(anchor, unit="GB")]), "utf-8")
    assert misplaced_figures(catalog, docs, catalog_dir) == (1, [])
    gib = tmp_path / "gib"
    gib.mkdir()
    (gib / seed.name).write_text("Week 4\n\nThe index comes to 6.17 GiB.\n", "utf-8")
    checked, problems = misplaced_figures(catalog, gib, catalog_dir)
    assert len(problems) == 1 and "does not print the unit 'GB'" in problems[0]["problem"]


@pytest.mark.slow
@pytest.mark.parametrize("with_documents", [False, True], ids=["no-documents", "documents"])
def test_edited_erratum_figure_fails_the_offline_run(tmp_path: Path,
                                                     with_documents: bool) -> None:
    documents = os.environ.get("CLAIMS_DOCUMENTS")
    if with_documents and not documents:
        pytest.skip("no documents given: set CLAIMS_DOCUMENTS=DIR, the folder of the seeds")
    repo = copy_checkout(tmp_path)
    replace_once(repo / "claims" / "catalog" / "MC.toml",
                 '{ name = "70B Q6_K", value = "56.0", unit = "GB" }',
                 '{ name = "70B Q6_K", value = "560.0", unit = "GB" }')
    args = ["-m", "offline", "-n", "0", "--claim", "MC-QUANT-SIZES"]
    if with_documents:
        args += ["--claims-documents", str(documents)]
    proc = run_pytest(repo, *args)
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert "MC-QUANT-SIZES figure '70B Q6_K' no longer says what the document prints" \
        in proc.stdout, proc.stdout[-3000:]


# ---- anchors in a bundled text file (a document whose text is the lab's: Week 5) ----
W5_DOC = ('[document]\nid = "W5"\ntitle = "Week 5"\npublished = "2026-08-16"\nseeds = []\n'
          'lab = ["week"]\ntext = ["week/notes.md"]\nsections = ["notes.md"]\n\n'
          '[[claim]]\nid = "W5-X"\nsection = "notes.md"\nstatement = "A total."\n'
          'tiers = ["offline"]\nstated = [{ name = "total", value = "4,194,304", unit = "B" }]\n')


def _bundled_text_case(tmp_path: Path, printed: str,
                       anchor: FigureAnchor) -> tuple[Path, Path, list[dict[str, str]]]:
    root, catalog_dir = tmp_path / "root", tmp_path / "catalog"
    (root / "fixtures" / "lab" / "week").mkdir(parents=True)
    catalog_dir.mkdir()
    (root / "fixtures" / "lab" / "week" / "notes.md").write_text(printed, "utf-8")
    (catalog_dir / "W5.toml").write_text(W5_DOC, "utf-8")
    anchors_path("W5", catalog_dir).write_text(dump_anchors("W5", [anchor]), "utf-8")
    catalog = load_catalog([catalog_dir / "W5.toml"])
    return root, catalog_dir, figure_problems(catalog, catalog_dir, root=root)


FILE_ANCHOR = FigureAnchor("W5-X", "total", "", 2, "FP32 tensor is ", "4,194,304",
                           file="week/notes.md")


def test_a_bundled_file_anchor_is_checked_on_every_run(tmp_path: Path) -> None:
    """No --claims-documents needed: the text is bundled, so an edit of it is found."""
    good = "# Notes\nA 1024x1024 FP32 tensor is 4,194,304 bytes.\n"
    assert _bundled_text_case(tmp_path / "a", good, FILE_ANCHOR)[2] == []
    edited = good.replace("4,194,304", "4,194,305")
    found = _bundled_text_case(tmp_path / "b", edited, FILE_ANCHOR)[2]
    assert len(found) == 1 and "week/notes.md does not print '4,194,304' at line 2" \
        in found[0]["problem"], found
    moved = _bundled_text_case(tmp_path / "c", "# Notes\n\n" + good, FILE_ANCHOR)[2]
    assert len(moved) == 1 and "at line 2" in moved[0]["problem"]


def test_a_bundled_file_anchor_names_one_of_the_documents_text_files(tmp_path: Path) -> None:
    other = replace(FILE_ANCHOR, file="week/other.md")
    found = _bundled_text_case(tmp_path, "x\nA 1024x1024 FP32 tensor is 4,194,304.\n", other)[2]
    assert len(found) == 1 and "week/other.md is not one of W5's text files" \
        in found[0]["problem"]


def test_a_bundled_file_anchor_round_trips_and_is_no_seed(tmp_path: Path) -> None:
    _, catalog_dir, _ = _bundled_text_case(
        tmp_path, "x\nA 1024x1024 FP32 tensor is 4,194,304.\n", FILE_ANCHOR)
    assert load_anchors("W5", catalog_dir) == [FILE_ANCHOR]
    # The documents folder has nothing to say about it: it is not a seed's.
    catalog = load_catalog([catalog_dir / "W5.toml"])
    assert misplaced_figures(catalog, tmp_path, catalog_dir) == (0, [])


@pytest.mark.parametrize(("place", "says"), [
    ('seed = "a.txt"\nfile = "week/notes.md"', "either seed"),
    ("", "either seed"),
    ('file = ""', "file must be a non-empty string"),
])
def test_an_anchor_names_a_seed_or_a_file(tmp_path: Path, place: str, says: str) -> None:
    (tmp_path / "W5.anchors.toml").write_text(
        f'[[anchor]]\nclaim = "W5-X"\nfigure = "total"\n{place}\nline = 2\nbefore = ""\n'
        'text = "4"\n', "utf-8")
    with pytest.raises(AnchorError, match=says):
        load_anchors("W5", tmp_path)


def test_week5_figures_are_anchored_in_its_bundled_text() -> None:
    """Every W5 figure names one of its text files, so it is checked without documents."""
    catalog = load_catalog()
    w5 = next(d for d in catalog.documents if d.id == "W5")
    anchors = load_anchors("W5")
    # Its text files: every file of the lab folder it names (claims.text.sources.text_files).
    files = text_files(w5, Path(__file__).resolve().parents[2])
    assert anchors and all(a.file in files and not a.seed for a in anchors)
