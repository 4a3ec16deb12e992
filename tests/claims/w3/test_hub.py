"""W3 claims only the live Hub can settle: listing, card data, LFS hashes, the base model.

Pinned to the revision the posts use; the base model, which the posts do not
pin, is read at its current head and its revision recorded as a fact.
"""

from __future__ import annotations

import re

import pytest

from claims.probes.arithmetic.memory import parameters_from_config
from claims.probes.files import hf_repo

pytestmark = pytest.mark.hub

# The config values that make up the architecture (not bookkeeping such as
# transformers_version or which token ends a turn).
SHAPE_KEYS = (
    "architectures",
    "model_type",
    "hidden_act",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "vocab_size",
    "max_position_embeddings",
    "rms_norm_eps",
    "rope_theta",
    "tie_word_embeddings",
    "torch_dtype",
)


def _facts(check, listing: hf_repo.RepoListing) -> None:
    check.fact(f"hub revision {listing.repo_id}", listing.revision)


@pytest.mark.claim("W3-CARD-METADATA")
def test_card_metadata(check, qwen_hub_listing, catalog):
    listing = qwen_hub_listing
    _facts(check, listing)
    check.against("pipeline tag", listing.pipeline_tag)
    check.against("library", listing.library_name)
    wanted = catalog.get("W3-CARD-METADATA").figure("tags include").values
    check.against("tags include", [t for t in wanted if t in listing.tags])
    check.observe("tags", list(listing.tags))
    check.against("license label", listing.license_name)
    dtypes = sorted((listing.safetensors_parameters or {}).keys())
    check.against("tensor type", "/".join(dtypes) or "<none>")


@pytest.mark.claim("W3-BASE-MODEL")
def test_base_model(check, qwen_hub_listing):
    _facts(check, qwen_hub_listing)
    bases = qwen_hub_listing.base_model
    check.against("base model", bases[0] if len(bases) == 1 else repr(list(bases)))


@pytest.mark.claim("W3-LICENSE")
def test_license(check, qwen_hub_listing, qwen_hub_files):
    _facts(check, qwen_hub_listing)
    check.against("hub license", qwen_hub_listing.license)
    lines = qwen_hub_files.path("LICENSE").read_text("utf-8", errors="replace").splitlines()
    clause = [
        i for i, line in enumerate(lines, 1) if "NON-COMMERCIAL PURPOSES ONLY" in line.upper()
    ]
    check.against(
        "non-commercial clause line",
        clause[0] if clause else 0,
        note=f"lines mentioning it: {clause}",
    )
    head = " ".join(lines[:5]).upper()
    check.measure(
        "title",
        lines[0] if lines else "",
        holds="QWEN RESEARCH LICENSE AGREEMENT" in head,
        expected="the Qwen Research License Agreement",
    )
    if clause:
        check.attach(
            "LICENSE around the clause", "\n".join(lines[max(clause[0] - 2, 0) : clause[0] + 2])
        )


@pytest.mark.claim("W3-SHARDS")
def test_files_and_shards(check, qwen_hub_listing, qwen_hub_files):
    listing = qwen_hub_listing
    _facts(check, listing)
    check.against("file count", len(listing.files))
    check.against("files", sorted(listing.names))
    check.against("total size", listing.total_bytes, unit="B")
    shards = listing.shards
    check.observe("shards", [s.name for s in shards])
    for i, shard in enumerate(shards[:2], 1):
        check.against(f"shard {i} size", shard.size, unit="B", note=shard.name)
        check.measure(
            f"shard {i} stored in Git LFS",
            shard.lfs_sha256,
            holds=shard.in_lfs,
            expected="an LFS sha256",
        )
    weight_map = hf_repo.index_weight_map(qwen_hub_files.index())
    check.against("weight_map entries", len(weight_map))
    check.measure(
        "every shard named by the index is in the listing",
        sorted(set(weight_map.values())),
        holds=set(weight_map.values()) <= set(listing.names),
        expected="a subset of the file list",
    )


@pytest.mark.claim("W3-PARAMS-API")
def test_hub_parameter_count(check, qwen_hub_listing):
    _facts(check, qwen_hub_listing)
    check.against("parameters", qwen_hub_listing.safetensors_total)
    groups = qwen_hub_listing.safetensors_parameters or {}
    check.against("precision", "/".join(sorted(groups)) or "<none>")
    check.observe("parameters by dtype", dict(groups))


@pytest.mark.claim("W3-INSTRUCT-DEFAULTS")
def test_instruct_defaults_differ_from_base(
    check, qwen_hub_files, qwen_base_files, qwen_base_listing
):
    _facts(check, qwen_base_listing)
    instruct = qwen_hub_files.generation_config()
    base = qwen_base_files.generation_config()

    def eos(gen: dict) -> list[int]:
        value = gen.get("eos_token_id")
        return list(value) if isinstance(value, list) else [value]

    check.attach(
        "generation_config.json (instruct, base)", {"instruct": instruct, "base": base}, kind="json"
    )
    check.measure(
        "instruct do_sample",
        instruct.get("do_sample"),
        holds=instruct.get("do_sample") is True,
        expected="true",
    )
    im_end = round(check.premise("<|im_end|> id"))
    check.against(
        "instruct EOS includes <|im_end|>",
        im_end in eos(instruct),
        note=f"eos_token_id {eos(instruct)}",
    )
    check.measure(
        "base do_sample",
        base.get("do_sample"),
        holds=base.get("do_sample") is not True,
        expected="false or absent",
    )
    check.against(
        "base EOS includes <|im_end|>", im_end in eos(base), note=f"eos_token_id {eos(base)}"
    )


@pytest.mark.claim("W3-CHECKPOINTS-DIFFER")
def test_first_shards_differ(check, qwen_hub_listing, qwen_base_listing):
    _facts(check, qwen_hub_listing)
    _facts(check, qwen_base_listing)
    ours, theirs = qwen_hub_listing.shards, qwen_base_listing.shards
    first = ours[0] if ours else None
    base_first = theirs[0] if theirs else None
    check.measure(
        "both first shards are in LFS",
        [getattr(first, "name", None), getattr(base_first, "name", None)],
        holds=bool(first and base_first and first.in_lfs and base_first.in_lfs),
        expected="an LFS sha256 for each",
    )
    a = first.lfs_sha256 if first else None
    b = base_first.lfs_sha256 if base_first else None
    check.fact("instruct shard 1 sha256", a)
    check.fact("base shard 1 sha256", b)
    check.measure(
        "first-shard SHA-256 differ",
        f"{a} vs {b}",
        holds=bool(a and b) and a != b,
        expected="different hashes",
    )


@pytest.mark.claim("W3-SAME-ARCH")
def test_base_and_instruct_share_the_shape(
    check, qwen_hub_files, qwen_base_files, qwen_base_listing, qwen_hub_listing
):
    _facts(check, qwen_base_listing)
    ours, base = qwen_hub_files.config(), qwen_base_files.config()
    check.against("layers", base.get("num_hidden_layers"), note="base config.json")
    differing = {k: (ours.get(k), base.get(k)) for k in SHAPE_KEYS if ours.get(k) != base.get(k)}
    check.measure("shape keys that differ", differing, holds=not differing, expected="none")
    count_ours = parameters_from_config(ours, source="instruct config.json").total
    count_base = parameters_from_config(base, source="base config.json").total
    check.measure(
        "parameter count from config (instruct vs base)",
        [count_ours, count_base],
        holds=count_ours == count_base,
        expected="equal",
    )
    hub_counts = [qwen_hub_listing.safetensors_total, qwen_base_listing.safetensors_total]
    check.measure(
        "Hub safetensors totals (instruct vs base)",
        hub_counts,
        holds=hub_counts[0] is not None and hub_counts[0] == hub_counts[1],
        expected="equal",
    )


@pytest.mark.claim("W3-NO-CODE")
def test_no_python_files(check, qwen_hub_listing):
    _facts(check, qwen_hub_listing)
    code = [n for n in qwen_hub_listing.names if re.search(r"\.(py|pyc|so|dylib|dll)$", n)]
    check.measure("Python or native code files", code, holds=not code, expected="none")
    check.observe("files", qwen_hub_listing.names)
