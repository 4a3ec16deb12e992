"""W4 claims that another place of the series prints too, each judged as one fact.

Each test reads both places: Week 4's own figure is the claim's stated figure (anchored
where the post prints it); the other place is read from the catalog (another document's
claim, itself anchored in that document's text), from the lab's bundled files, or from
the lab's roadmap. No figure of the other place is typed here.
"""

from __future__ import annotations

import re

import pytest

from claims.catalog.loader import Catalog
from claims.probes.files.lab_notes import learn_items, roadmap_pages
from claims.testing import lab
from claims.testkit import Check

pytestmark = pytest.mark.offline

WEEK3_TABLE = "W3-RESULTS-TABLE"
WEEK4_REPORT = "week-04-parameters-memory/system-report.md"


def _week_of(catalog: Catalog, claim_id: str) -> int | None:
    """The series week of the post stating ``claim_id``: the number its title gives
    ("From API to GPU, Week 3: ..."), so a pointer to a week is judged against the post
    the fact was really read from."""
    title = catalog.document(catalog.get(claim_id).document).title
    m = re.search(r"\bWeek (\d+)\b", title)
    return int(m.group(1)) if m else None


@pytest.mark.claim("W4-REVISION-IS-WEEK3S", source="recorded")
def test_revision_is_week3s(check: Check, catalog: Catalog, recorded) -> None:
    week3 = lab.results("W3")
    check.fact("lab evidence", lab.PROVENANCE)
    check.against("pinning week", _week_of(catalog, WEEK3_TABLE),
                  note="the week of the post printing the commit (W3-RESULTS-TABLE)")
    # The revision is the repository's: the one Week 3 reads is the one its lab recorded.
    repository = recorded("W3")["repository"]
    check.measure("repository", week3["repository"], holds=week3["repository"] == repository,
                  expected=f"{repository}, as Week 3's transcription records it")
    check.against("revision", week3["revision"], note="Week 3's lab results.json revision")
    # Week 3's post prints the hash shortened, as the Hub's Files tab shows it: the
    # revision Week 4 pins must start with it.
    printed = check.premise_text("commit", claim=WEEK3_TABLE)
    revision = check.premise_text("revision")
    check.measure("Week 3's printed commit", printed, holds=revision.startswith(printed),
                  expected=f"the first {len(printed)} hex digits of Week 4's revision",
                  note="W3-RESULTS-TABLE 'Latest commit', as Week 3 prints it")


@pytest.mark.claim("W4-QWEN-FIGURES-ARE-WEEK3S", source="recorded")
def test_qwen_figures_are_week3s(check: Check, catalog: Catalog) -> None:
    week3 = lab.results("W3")
    check.fact("lab evidence", lab.PROVENANCE)
    check.against("config week", _week_of(catalog, "W3-CONFIG"),
                  note="the week of the post printing config.json (W3-CONFIG)")
    check.against("count week", _week_of(catalog, WEEK3_TABLE),
                  note="the week of the post printing the count (W3-RESULTS-TABLE)")
    check.against("API count week", _week_of(catalog, "W3-PARAMS-API"),
                  note="the week of the post reading the count from the Hub's API (W3-PARAMS-API)")
    check.against("torch_dtype", check.premise_text("torch_dtype", claim="W3-CONFIG"),
                  note="Week 3's config.json (W3-CONFIG)")
    check.against("torch_dtype", week3["torch_dtype"], note="Week 3's lab results.json")
    check.against("parameters", check.premise("parameters", claim=WEEK3_TABLE),
                  note="Week 3's Results table (W3-RESULTS-TABLE)")
    check.against("parameters", week3["total_parameters"], note="Week 3's lab results.json")
    check.against("index total", check.premise("tensor bytes", claim=WEEK3_TABLE), unit="B",
                  note="Week 3's Results table (W3-RESULTS-TABLE)")
    check.against("index total", week3["safetensors_total_bytes"], unit="B",
                  note="Week 3's lab results.json")


def _listed(report: str, model: str) -> tuple[str, float]:
    """The ID and size (GB) of the first ``ollama list`` line naming ``model`` in a lab
    report: NAME, then the 12-hex-digit ID, then the size in GB."""
    text = (lab.lab_dir() / report).read_text("utf-8")
    m = re.search(rf"^{re.escape(model)}\s+([0-9a-f]{{12}})\s+([\d.]+) GB", text, re.MULTILINE)
    assert m is not None, f"{report}: no ollama list line for {model}"
    return m.group(1), float(m.group(2))


@pytest.mark.claim("W4-LLAMA-IS-WEEK2S", source="recorded")
def test_llama_is_week2s(check: Check, catalog: Catalog) -> None:
    # The model's name comes from the catalog figure it is compared with (W2-LIST's).
    model = catalog.get("W2-LIST").figure("llama3.2:3b ID").model
    assert model is not None
    check.against("listing week", _week_of(catalog, "W2-LIST"),
                  note="the week of the post printing the ollama list (W2-LIST)")
    check.against("ID", check.premise_text("llama3.2:3b ID", claim="W2-LIST"),
                  note="Week 2's ollama list (W2-LIST)")
    check.against("size", check.premise("llama3.2:3b size", claim="W2-LIST"), unit="GB",
                  note="Week 2's ollama list (W2-LIST)")
    model_id, size = _listed(WEEK4_REPORT, model)
    check.fact("lab evidence", f"{lab.PROVENANCE}: {WEEK4_REPORT}")
    check.against("ID", model_id, note="Week 4's lab notes, ollama list")
    check.against("size", size, unit="GB", note="Week 4's lab notes, ollama list")


@pytest.mark.claim("W4-SPARK-POOL-IS-WEEK1S", source="recorded")
def test_spark_pool_is_week1s(check: Check) -> None:
    check.against("Spark pool", check.premise("pool size", claim="W1-UNIFIED-MEM"), unit="GiB",
                  note="Week 1's pool (W1-UNIFIED-MEM)")
    hardware = lab.results("W4")["hardware"]
    check.against("Spark pool", hardware["unified_memory_gib"], unit="GiB",
                  note=f"Week 4's lab results.json hardware ({hardware['device']})")


@pytest.mark.claim("W4-WEEK11-LAYERS", source="recorded")
def test_layers_week_is_the_roadmaps(check: Check) -> None:
    pages = roadmap_pages(lab.lab_dir() / "roadmap")
    check.fact("lab roadmap", f"{lab.PROVENANCE}: roadmap/week-NN.md, each with a Learn list")
    # The layer count's field name in a config (Week 3's config.json): the week that
    # teaches what it builds is the one that teaches layers.
    teaching = [week for week, page in pages.items()
                if any("num_hidden_layers" in item for item in learn_items(page))]
    check.observe("weeks whose Learn list names num_hidden_layers", teaching)
    check.against("layers week", teaching[0] if teaching else None,
                  note="the first week whose Learn list names num_hidden_layers")
