"""W3 claims checked against the author's raw results (fixtures/lab, model-inspector.py's
results.json): the Hub's answers at the pinned revision as the lab's script recorded them.

model-inspector.py (fixtures/lab/manifest.json) takes each token id from
generation_config.json before config.json, counts files and sizes from the Hub's
listing (bytes; it prints them / 1000^k to one decimal), and the index's entries
and total_size from model.safetensors.index.json.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from claims.probes.files.lab_notes import read_roadmap
from claims.testing import lab
from claims.testkit import Interval

pytestmark = pytest.mark.offline

SHARD = "model-0000{}-of-00002.safetensors"


def _lab() -> dict[str, Any]:
    results = lab.results("W3")
    return results


def _files(results: dict[str, Any]) -> dict[str, int]:
    return {f["name"]: int(f["size_bytes"]) for f in results["files"]}


def _printed_gb(size_bytes: int) -> float:
    """What model-inspector.py's human_bytes prints for a size in GB (one decimal), as a
    number: the script's own rounding, so the post's two decimals can be compared too."""
    return size_bytes / 1e9


@pytest.mark.claim("W3-CONFIG", source="recorded")
def test_lab_config_fields(check) -> None:
    r = _lab()
    check.fact("lab evidence", lab.PROVENANCE)
    check.fact("lab revision", r["revision"])
    check.against("architectures", [r["architecture"]], note="architectures[0]")
    for name in ("model_type", "torch_dtype"):
        check.against(name, r[name])
    for name in ("num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
                 "num_key_value_heads", "vocab_size", "max_position_embeddings"):
        check.against(name, r[name])
    check.against("tie_word_embeddings", r["tie_word_embeddings"])
    for name in ("bos_token_id", "eos_token_id"):
        check.not_judged(name, "the lab records the id generation_config.json gives first "
                         "(judged under W3-GEN-DEFAULTS), not config.json's")


@pytest.mark.claim("W3-GEN-DEFAULTS", source="recorded")
def test_lab_generation_defaults(check) -> None:
    r = _lab()
    defaults = r["generation_defaults"]
    check.against("do_sample", defaults["do_sample"])
    for name in ("temperature", "top_p", "top_k", "repetition_penalty"):
        check.against(name, defaults[name])
    check.against("bos_token_id", r["bos_token_id"])
    check.against("pad_token_id", r["pad_token_id"])
    eos = r["eos_token_id"]
    check.against("eos_token_id", [str(t) for t in (eos if isinstance(eos, list) else [eos])])


@pytest.mark.claim("W3-SPECIAL-TOKENS", source="recorded")
def test_lab_special_tokens(check) -> None:
    r = _lab()
    check.against("tokenizer_class", r["tokenizer_class"])
    tokens = r["special_token_map"]
    for token_id in ("151643", "151644", "151645"):
        check.against(token_id, tokens.get(token_id, "<absent>"))
    check.against("has <|im_sep|>", "<|im_sep|>" in tokens.values(),
                  note="among the configured special ids the lab mapped")


@pytest.mark.claim("W3-MAX-LENGTHS", source="recorded")
def test_lab_max_lengths(check) -> None:
    r = _lab()
    check.against("model_max_length", r["tokenizer_model_max_length"])
    check.against("max_position_embeddings", r["max_position_embeddings"])


@pytest.mark.claim("W3-INDEX-TOTAL", source="recorded")
def test_lab_index_total(check) -> None:
    r = _lab()
    check.against("total_size", r["safetensors_total_bytes"], unit="B")
    check.against("parameters", r["total_parameters"], note="the Hub's safetensors total")


@pytest.mark.claim("W3-SHARDS", source="recorded")
def test_lab_file_listing(check) -> None:
    r = _lab()
    files = _files(r)
    check.against("file count", len(files))
    check.against("files", sorted(files), unordered=True, note="the Hub's listing, lab copy")
    check.against("total size", sum(files.values()) / 1e9, unit="GB",
                  note=f"{sum(files.values()):,} B")
    check.against("shard 1 size", _printed_gb(files[SHARD.format(1)]), unit="GB",
                  note=f"{files[SHARD.format(1)]:,} B")
    check.against("shard 2 size", _printed_gb(files[SHARD.format(2)]), unit="GB",
                  note=f"{files[SHARD.format(2)]:,} B")
    check.against("weight_map entries", r["safetensors_tensors"])
    check.against("safetensors shards", r["safetensors_shards"], note="shards the index names")


@pytest.mark.claim("W3-CARD-FACTS", source="recorded")
def test_lab_card_figures(check) -> None:
    r = _lab()
    check.against("parameters", r["total_parameters"] / 1e9, unit="B params")
    check.against("layers", r["num_hidden_layers"])
    check.against("query heads", r["num_attention_heads"])
    check.against("key/value heads", r["num_key_value_heads"])
    check.against("context length", r["max_position_embeddings"], unit="tokens")


@pytest.mark.claim("W3-PARAMS-API", source="recorded")
def test_lab_hub_parameter_count(check) -> None:
    r = _lab()
    check.against("parameters", r["total_parameters"], note="model_info safetensors.total")
    groups = r["parameter_groups"]
    check.against("precision", "/".join(sorted(groups)), note=str(groups))
    check.measure("BF16 group is the whole count", groups.get("BF16"),
                  holds=groups.get("BF16") == r["total_parameters"],
                  expected=f"{r['total_parameters']:,}")


@pytest.mark.claim("W3-LICENSE", source="recorded")
def test_lab_license(check) -> None:
    r = _lab()
    check.against("hub license", r["license_metadata"], note="card metadata license")
    check.not_judged("non-commercial clause line", "the lab records whether the clause occurs "
                     "(noncommercial_only), not its line")
    check.measure("LICENSE says non-commercial only", r["noncommercial_only"],
                  holds=r["noncommercial_only"] is True, expected="true")


@pytest.mark.claim("W3-BASE-MODEL", source="recorded")
def test_lab_base_model(check) -> None:
    check.against("base model", _lab()["base_model"], note="card metadata base_model")


@pytest.mark.claim("W3-RESULTS-TABLE", source="recorded")
def test_results_table_is_the_lab_record(check, recorded) -> None:
    """The Results table ('the machine-readable copy is saved as results.json') against
    that results.json, and as the post prints it (fixtures/recorded/W3.json)."""
    r = _lab()
    table = recorded("W3")["results_table"]
    check.against("commit", r["revision"][: len(table["Latest commit"])],
                  note=f"results.json revision {r['revision']}")
    check.against("commit", table["Latest commit"], note="as printed")
    check.against("architecture", r["architecture"])
    check.against("parameters", r["parameter_groups"].get("BF16"), note="BF16 group")
    for figure, field in (("layers", "num_hidden_layers"), ("hidden size", "hidden_size"),
                          ("query heads", "num_attention_heads"),
                          ("key/value heads", "num_key_value_heads"),
                          ("vocabulary", "vocab_size"), ("context", "max_position_embeddings"),
                          ("BOS id", "bos_token_id"), ("shards", "safetensors_shards"),
                          ("tensor bytes", "safetensors_total_bytes")):
        check.against(figure, r[field], note=f"results.json {field}")
    eos = r["eos_token_id"]
    check.against("EOS ids", [str(t) for t in (eos if isinstance(eos, list) else [eos])])
    check.against("non-commercial", r["noncommercial_only"])
    printed = {
        "parameters": table["Parameters"].split(" ")[0],
        "layers": table["Layers"],
        "hidden size": table["Hidden size"],
        "vocabulary": table["Vocabulary"].split(" ")[0],
        "context": table["Native configured context"].split(" ")[0],
        "BOS id": table["BOS ID"],
        "tensor bytes": table["Weight shards"].split(", ")[1].split(" ")[0],
        "shards": table["Weight shards"].split(" ")[0],
    }
    for figure, text in printed.items():
        check.against(figure, Interval.stated(text.replace(",", "")), note=f"printed {text!r}")


@pytest.mark.claim("W3-CARD-METADATA", source="recorded")
def test_lab_card_metadata(check) -> None:
    """What the lab's model_info call recorded of the page's metadata: the pipeline tag,
    the card's own tags and the dtype groups. The page's badges (library, the license
    label, the tags the Hub derives from the files) are not in results.json."""
    r = _lab()
    check.against("pipeline tag", r["pipeline_tag"], note="model_info pipeline_tag")
    check.observe("card tags", r["tags"])
    check.measure("card tags include chat", r["tags"], holds="chat" in (r["tags"] or []),
                  expected="chat among them")
    check.against("tensor type", "/".join(sorted(r["parameter_groups"])))
    for figure, why in (("library", "the library badge is not recorded"),
                        ("tags include", "results.json keeps the card's tags, not the Hub's "
                         "file-derived ones such as safetensors"),
                        ("license label", "the badge is not recorded; the metadata's license "
                         "(other) is judged under W3-LICENSE")):
        check.not_judged(figure, why)


@pytest.mark.claim("W3-TOKENIZER-CONFIG-LARGER", source="recorded")
def test_lab_tokenizer_config_is_the_larger_file(check) -> None:
    files = _files(_lab())
    check.against("config.json bytes", files["config.json"], unit="B")
    check.against("generation_config.json bytes", files["generation_config.json"], unit="B")
    size = files["tokenizer_config.json"]
    larger = max(files["config.json"], files["generation_config.json"])
    check.observe("tokenizer_config.json bytes", size, unit="B")
    check.against("tokenizer_config.json larger than both", size > larger,
                  note=f"{size:,} B against {larger:,} B, {size / larger:.1f}x config.json")


@pytest.mark.claim("W3-FILE-SIZES", source="recorded")
def test_lab_small_file_sizes(check) -> None:
    files = _files(_lab())
    check.against("config.json bytes", files["config.json"], unit="B", note="the Hub's listing")
    check.against("generation_config.json bytes", files["generation_config.json"], unit="B",
                  note="the Hub's listing")


@pytest.mark.claim("W3-SPECIAL-TOKENS", source="recorded")
def test_phi4_marker_ids_as_week_two_decoded(check, catalog, recorded) -> None:
    lines = recorded("W2")["inspect_tokenizer_lines"]
    check.attach("Week 2's tokenizer inspection (fixtures/recorded/W2.json)", lines, kind="json")
    ids = [int(m[1]) for line in lines if (m := re.fullmatch(r"token (\d+): '<\|im_\w+\|>'", line))]
    fig = catalog.get("W3-SPECIAL-TOKENS").figure("Phi-4 marker ids")
    stated = (int(str(fig.low)), int(str(fig.high)))
    shown = (min(ids), max(ids)) if ids else None
    check.measure("Phi-4 marker ids: lowest and highest <|im_...|> id", shown,
                  holds=shown == stated, expected=f"{fig.display}, exactly")



# Each pointer of the post to a later week, and the words the roadmap's title of that week
# must hold for the pointer to be right.
_POINTERS = {
    "memory week": "memory",
    "tensors week": "tensors",
    "tokenization week": "tokenization",
    "attention week": "attention",
    "transformer week": "transformer architecture",
    "sampling week": "sampling",
    "context length week": "context length",
    "tool calling week": "tool calling",
}


@pytest.mark.claim("W3-SERIES-PLAN", source="recorded")
def test_lab_roadmap_places_week_three(check) -> None:
    folder = lab.lab_dir() / "roadmap"
    roadmap = read_roadmap(folder)
    check.fact("lab roadmap", f"{lab.PROVENANCE}: roadmap/week-NN.md, each naming its phase")
    check.attach("roadmap titles", roadmap.titles, kind="json")
    check.against("week", roadmap.first_week_titled("Hugging Face"),
                  note="the week whose title names Hugging Face, the post's subject")
    week = round(check.premise("week"))
    check.against("phase of week 3", roadmap.phase_of_week.get(week), note=f"week-{week:02d}.md")
    check.against("phases", len(roadmap.phase_weeks()))
    check.against("weeks", roadmap.weeks)
    for figure, words in _POINTERS.items():
        check.against(figure, roadmap.first_week_titled(words),
                      note=f"the first week whose title names {words!r}")

