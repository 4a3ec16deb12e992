"""scripts/grow-series.py: the grown checkout is one the suite accepts, each copy its original.

The scale benchmark (scripts/bench-series.py, issue 51) times the suite on a catalog
grown from the six documents to 12, 24 and 48; its figures mean something only if the
grown checkout is internally consistent: the catalog loads, every copy has its own
tests, transcriptions and lab folders, the inputs checks pass, and a run gives each
copy its original's verdicts.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from claims.catalog import load_catalog
from tests.checkout import CHILD_TIMEOUT_S, flip_a_bit, run_pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = os.environ.get("CLAIMS_DOCUMENTS")
CLAIM_MARK = re.compile(r"""mark\.claim\(\s*["']([A-Z0-9]+(?:-[A-Z0-9_]+)+)["']""")


@pytest.fixture(scope="module")
def grow_series() -> ModuleType:
    """scripts/grow-series.py as a module, loaded when a test asks: at import time it
    would break the collection of a copy of the checkout that has no scripts/
    (tests/checkout.py's, and the grown checkout itself)."""
    path = ROOT / "scripts" / "grow-series.py"
    spec = importlib.util.spec_from_file_location("grow_series", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


ORIGINALS = [d.id for d in load_catalog().documents]


@pytest.fixture(scope="module")
def grown(grow_series: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout grown to twelve documents: each original and one copy."""
    repo = tmp_path_factory.mktemp("grown") / "repo"
    ids = grow_series.grow(ROOT, repo, 12)
    assert sorted(ids) == sorted(ORIGINALS + [f"{d}X2" for d in ORIGINALS])
    return repo


def _catalog(repo: Path) -> Any:
    return load_catalog(sorted((repo / "claims" / "catalog").glob("*.toml")))


def _in_copy(repo: Path, code: str) -> Any:
    """Run ``code`` in the grown checkout, importing its own ``claims``; its JSON output."""
    env = {k: v for k, v in os.environ.items() if k != "CLAIMS_FIXTURES"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True,
                          text=True, timeout=CHILD_TIMEOUT_S, check=False,
                          env={**env, "PYTHONPATH": str(repo)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


INPUTS = """
import json, sys
from pathlib import Path
import claims
from claims.catalog import load_catalog
from claims.inputs.bundled import verify_bundled
from claims.inputs.manifest import verify_manifest
from claims.testing import lab, recordings
root = Path.cwd().resolve()
assert Path(claims.__file__).resolve().is_relative_to(root), claims.__file__
recordings.use(root / "fixtures")
bundled, manifest = verify_bundled(root), verify_manifest(root)
# week_folders once: each call reads the catalog per lab file (issue 51's cost).
json.dump({"documents": [d.id for d in load_catalog().documents],
           "bundled": bundled, "manifest": manifest, "weeks": lab.week_folders()}, sys.stdout)
"""


def test_the_grown_catalog_holds_each_document_twice_under_unique_ids(
    grow_series: ModuleType, grown: Path
) -> None:
    catalog = _catalog(grown)
    original = load_catalog()
    sources = {s.id: s for s in grow_series.sources(ROOT)}
    assert len(catalog.documents) == 12
    assert len(catalog) == 2 * len(original)
    assert len(catalog.ids) == len(catalog)  # the loader refuses duplicates; counted here too
    for doc in original.documents:
        copy = catalog.document(f"{doc.id}X2")
        assert [c.id for c in copy.claims] == [
            f"{copy.id}-{c.id.removeprefix(doc.id + '-')}" for c in doc.claims]
        # Each copied claim states what its original states, figure for figure (a note
        # naming a claim of its own document names the copy's: "judged by MCX2-...").
        rewrite = grow_series.Copy(sources[doc.id], copy.id, 2, tuple(sources.values())).rewrite
        for mine, theirs in zip(copy.claims, doc.claims, strict=True):
            assert repr(mine) == rewrite(repr(theirs))
        assert copy.sections == doc.sections
        assert copy.seeds == tuple(grow_series.seed_copy(seed, 2) for seed in doc.seeds)


def test_each_copys_tests_exist_and_mark_only_its_own_claims(
    grow_series: ModuleType, grown: Path
) -> None:
    for doc in ORIGINALS:
        src, out = grown / "tests" / "claims" / doc.lower(), grown / "tests" / "claims" / (
            f"{doc}X2".lower())
        assert sorted(p.relative_to(out) for p in out.rglob("*.py")) == sorted(
            p.relative_to(src) for p in src.rglob("*.py"))
        marked = {c for p in out.rglob("*.py") for c in CLAIM_MARK.findall(p.read_text("utf-8"))}
        theirs = {c for p in src.rglob("*.py") for c in CLAIM_MARK.findall(p.read_text("utf-8"))}
        assert marked and marked == {f"{doc}X2-{c.removeprefix(doc + '-')}" for c in theirs}
        # Nothing in the copy's tests names an original any more: not a claim, a
        # recorded fixture (recorded("W2")), a lab result (lab.results("W1")) nor another
        # document's premise (W5X2's on W4X2-PRECISION-BYTES): the second copies are a
        # series of their own.
        originals = [grow_series.token(d) for d in ORIGINALS]
        for path in out.rglob("*"):
            if path.is_file():
                text = path.read_text("utf-8")
                assert not [t.pattern for t in originals if t.search(text)], path


def test_each_copy_relies_on_its_own_lab_folder_and_transcriptions(grown: Path) -> None:
    found = _in_copy(grown, INPUTS)
    assert len(found["documents"]) == 12 and "MCX2" in found["documents"]
    assert found["weeks"]["W1X2"] == "week-01-environment-w1x2"
    assert found["weeks"]["W5X2"] == "week-05-pytorch-tensors-w5x2"
    assert len(found["weeks"]) == 2 * len({d for d in found["weeks"] if "X" not in d})
    recorded = grown / "fixtures" / "recorded"
    for doc in ORIGINALS:
        assert (recorded / f"{doc}X2.json").is_file() == (recorded / f"{doc}.json").is_file()


def test_the_inputs_checks_pass_on_the_grown_checkout(grown: Path) -> None:
    found = _in_copy(grown, INPUTS)
    assert found["bundled"]["problems"] == []
    assert found["manifest"]["problems"] == []
    # The copies' files are checked, not only the originals'.
    lab_files = sum(1 for p in (ROOT / "fixtures" / "lab").rglob("*") if p.is_file()
                    and "__pycache__" not in p.parts and p.parent != ROOT / "fixtures" / "lab"
                    and "roadmap" not in p.parts)
    assert found["bundled"]["checked"] >= lab_files * 2
    manifest = (grown / "fixtures" / "recorded" / "MANIFEST.sha256").read_text("utf-8")
    assert "fixtures/recorded/W1X2.json" in manifest
    assert "# figure " in manifest and " fixtures/recorded/MCX2.json " in manifest


def test_a_changed_byte_of_a_copy_fails_the_copy_alone(
    grow_series: ModuleType, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    grow_series.grow(ROOT, repo, 12)
    flip_a_bit(repo / "fixtures" / "lab" / "week-01-environment-w1x2" / "results.json")
    found = _in_copy(repo, INPUTS)
    assert {p["doc"] for p in found["bundled"]["problems"]} == {"W1X2"}
    assert found["manifest"]["problems"] == []


def test_a_broken_original_grows_into_a_broken_copy(
    grow_series: ModuleType, tmp_path: Path
) -> None:
    # Digests are carried over, never blessed: a transcription edited after it was
    # anchored fails its copy as it fails itself.
    root = tmp_path / "root"
    grow_series.grow(ROOT, root, 6)  # a plain copy of this checkout
    recorded = root / "fixtures" / "recorded" / "W2.json"
    recorded.write_text(recorded.read_text("utf-8").replace("\n", "\n ", 1), "utf-8")
    repo = tmp_path / "repo"
    grow_series.grow(root, repo, 12)
    problems = _in_copy(repo, INPUTS)["manifest"]["problems"]
    assert {(p["doc"], p["file"]) for p in problems} == {
        ("W2", "fixtures/recorded/W2.json"), ("W2X2", "fixtures/recorded/W2X2.json")}


def test_what_cannot_be_grown_is_refused_with_the_reason(
    grow_series: ModuleType, tmp_path: Path
) -> None:
    with pytest.raises(grow_series.GrowError, match="not a multiple of the 6"):
        grow_series.grow(ROOT, tmp_path / "nine", 9)
    # A claim test outside its document's folder would leave the copies untested.
    root = tmp_path / "root"
    grow_series.grow(ROOT, root, 6)
    stray = root / "tests" / "claims" / "w2" / "test_stray.py"
    stray.write_text('import pytest\n\n@pytest.mark.claim("W1-ARCH")\ndef test_x(): ...\n',
                     "utf-8")
    with pytest.raises(grow_series.GrowError, match=r"marks W1-ARCH, a claim of W1, outside"):
        grow_series.grow(root, tmp_path / "repo", 12)
    assert not (tmp_path / "repo").exists()


@pytest.mark.skipif(not DOCUMENTS, reason="no documents given: set CLAIMS_DOCUMENTS=DIR, "
                    "the folder of the seeds")
def test_coverage_accounts_for_each_copy_as_for_its_original(
    grow_series: ModuleType, tmp_path: Path
) -> None:
    # Each second copy names the second copy of its seeds, in the grown documents folder:
    # a line of a seed is its title's document's, among those naming the seed.
    repo = tmp_path / "repo"
    grow_series.grow(ROOT, repo, 12, Path(str(DOCUMENTS)))
    out = tmp_path / "coverage.json"
    env = {k: v for k, v in os.environ.items() if k != "CLAIMS_FIXTURES"}
    proc = subprocess.run(
        [sys.executable, "-m", "claims", "coverage", "--claims-documents",
         str(repo / "documents"), "--json", str(out)], cwd=repo, capture_output=True,
        text=True, timeout=CHILD_TIMEOUT_S, check=False, env={**env, "PYTHONPATH": str(repo)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    documents = json.loads(out.read_text("utf-8"))["documents"]
    totals = {d["id"]: {k: v for k, v in d.items() if k != "id"} for d in documents}
    assert len(totals) == 12
    for doc in ORIGINALS:
        assert totals[f"{doc}X2"] == totals[doc]


@pytest.mark.slow
def test_a_run_of_the_grown_checkout_gives_each_copy_its_originals_verdicts(
    grown: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Grown without documents: the copies' seeds (.x2.txt) are in no documents folder.
    monkeypatch.delenv("CLAIMS_DOCUMENTS", raising=False)
    # One document and its copy (W4: lab results, transcriptions, the Hub snapshot, a
    # premise read by W5), so the run takes seconds; bench-series.py checks all of them.
    evidence = tmp_path / "evidence.json"
    proc = run_pytest(grown, "-m", "offline", "tests/claims/w4", "tests/claims/w4x2",
                      "tests/claims/test_recorded_figures.py", f"--claims-evidence={evidence}",
                      f"--claims-report-html={tmp_path / 'report.html'}")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    verdicts = {c["id"]: c["verdict"] for c in json.loads(evidence.read_text("utf-8"))["claims"]}
    w4 = {k.removeprefix("W4-"): v for k, v in verdicts.items() if k.startswith("W4-")}
    copy = {k.removeprefix("W4X2-"): v for k, v in verdicts.items() if k.startswith("W4X2-")}
    assert w4 == copy
    assert "consistent" in w4.values()
