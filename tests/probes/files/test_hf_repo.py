"""Tests of the Hugging Face repository probe (claims.probes.files.hf_repo), all offline.

The live functions are exercised with huggingface_hub's own ModelInfo class fed
a payload built from the pinned snapshot, and with the network calls replaced,
so the parsing the hub tier relies on is tested without the Hub.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from claims.probes.errors import InputError, ServerError
from claims.probes.files import hf_repo
from tests.extras import import_or_skip

ROOT = Path(__file__).resolve().parents[3]
SNAPSHOT = hf_repo.snapshot_dir(ROOT / "fixtures" / "hub")


@pytest.fixture(scope="module")
def snapshot() -> hf_repo.Snapshot:
    return hf_repo.load_snapshot(SNAPSHOT)


@pytest.fixture
def copy_of_snapshot(tmp_path: Path) -> Path:
    dest = tmp_path / hf_repo.REVISION
    shutil.copytree(SNAPSHOT, dest)
    return dest


# --- the pinned snapshot ----------------------------------------------------------------


def test_snapshot_is_the_pinned_revision(snapshot: hf_repo.Snapshot) -> None:
    assert snapshot.repo_id == hf_repo.REPO_ID
    assert snapshot.revision == hf_repo.REVISION
    assert "transcription, not a download" in str(snapshot.provenance["what"])
    assert snapshot.transcription("config.json") == "whole"
    assert snapshot.transcription("tokenizer_config.json") == "partial"


def test_snapshot_files_parse(snapshot: hf_repo.Snapshot) -> None:
    for name in hf_repo.SMALL_FILES:
        assert isinstance(snapshot.json(name), dict)
    assert hf_repo.index_total_size(snapshot.index()) == 6_171_877_376
    assert len(hf_repo.index_weight_map(snapshot.index())) == 2  # the two entries the post shows
    assert hf_repo.added_tokens(snapshot.tokenizer_config()) == {
        151643: "<|endoftext|>",
        151644: "<|im_start|>",
        151645: "<|im_end|>",
    }


def test_config_is_in_save_pretrained_form(snapshot: hf_repo.Snapshot) -> None:
    text = snapshot.path("config.json").read_text("utf-8")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"


def test_stated_figures_are_strings_as_printed(snapshot: hf_repo.Snapshot) -> None:
    assert snapshot.stated("weight_map_entries")["value"] == "434"
    assert len(snapshot.stated("files")["values"]) == int(snapshot.stated("file_count")["value"])
    with pytest.raises(InputError, match=r"stated_not_printed\.nope"):
        snapshot.stated("nope")


# --- bad input ---------------------------------------------------------------------------------


def test_snapshot_dir_rejects_traversal() -> None:
    with pytest.raises(InputError, match="repository id"):
        hf_repo.snapshot_dir(ROOT, "../etc", hf_repo.REVISION)
    with pytest.raises(InputError, match="40-hex"):
        hf_repo.snapshot_dir(ROOT, hf_repo.REPO_ID, "main")


def test_snapshot_paths_stay_in_the_folder(snapshot: hf_repo.Snapshot) -> None:
    for bad in ("../snapshot.json", "a/b.json", "", ".."):
        with pytest.raises(InputError):
            snapshot.path(bad)


def test_missing_manifest(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found") as info:
        hf_repo.load_snapshot(tmp_path)
    assert info.value.path is not None and info.value.path.endswith("snapshot.json")


def test_manifest_revision_must_match_folder(copy_of_snapshot: Path, tmp_path: Path) -> None:
    moved = copy_of_snapshot.rename(tmp_path / ("0" * 40))
    with pytest.raises(InputError, match="differs from the recorded revision"):
        hf_repo.load_snapshot(moved)


def test_manifest_with_bad_revision(copy_of_snapshot: Path) -> None:
    manifest = copy_of_snapshot / "snapshot.json"
    data = json.loads(manifest.read_text("utf-8"))
    data["revision"] = "main"
    manifest.write_text(json.dumps(data), "utf-8")
    with pytest.raises(InputError) as info:
        hf_repo.load_snapshot(copy_of_snapshot)
    assert info.value.field == "revision"


@pytest.mark.parametrize(
    "content, problem",
    [
        (b'{"a": 1,', "not JSON"),
        (b"[1, 2]", "expected a JSON object"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply|not JSON|expected a JSON object"),
    ],
)
def test_bad_json_is_named(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=problem) as info:
        hf_repo.read_json_object(path)
    assert str(path) in str(info.value)


def test_json_error_carries_offset(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b'{\n  "a": 1\n  "b": 2\n}')
    with pytest.raises(InputError, match="line 3") as info:
        hf_repo.read_json_object(path)
    assert info.value.offset == 13


def test_oversized_json_is_refused_without_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as fh:
        fh.truncate(hf_repo.MAX_JSON_BYTES + 1)  # sparse: no memory, no disk
    with pytest.raises(InputError, match="too large"):
        hf_repo.read_json_object(path)


def test_a_fifo_is_refused_instead_of_blocking(tmp_path: Path) -> None:
    import os

    path = tmp_path / "config.json"
    os.mkfifo(path)  # opening it for reading would wait for a writer forever
    with pytest.raises(InputError, match="not a regular file"):
        hf_repo.read_json_object(path)


@pytest.mark.parametrize(
    "tokenizer_config, field",
    [
        ({}, "added_tokens_decoder"),
        ({"added_tokens_decoder": []}, "added_tokens_decoder"),
        ({"added_tokens_decoder": {"x": {"content": "a"}}}, "added_tokens_decoder.x"),
        ({"added_tokens_decoder": {"5": {"special": True}}}, "added_tokens_decoder.5"),
    ],
)
def test_bad_added_tokens(tokenizer_config: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as info:
        hf_repo.added_tokens(tokenizer_config, source="tokenizer_config.json")
    assert info.value.field == field


def test_chat_template_forms() -> None:
    assert hf_repo.chat_template({"chat_template": "x"}) == "x"
    named = {
        "chat_template": [
            {"name": "tool_use", "template": "t"},
            {"name": "default", "template": "d"},
        ]
    }
    assert hf_repo.chat_template(named) == "d"
    for bad in ({"chat_template": 3}, {"chat_template": [{"name": "other", "template": "t"}]}, {}):
        with pytest.raises(InputError):
            hf_repo.chat_template(bad)


@pytest.mark.parametrize(
    "index",
    [
        {},
        {"metadata": {}},
        {"metadata": {"total_size": -1}},
        {"metadata": {"total_size": "6171877376"}},
    ],
)
def test_bad_index_total(index: dict[str, Any]) -> None:
    with pytest.raises(InputError) as info:
        hf_repo.index_total_size(index, source="model.safetensors.index.json")
    assert info.value.field == "metadata.total_size"


# --- chat template rendering ----------------------------------------------------------------------


def test_template_syntax_error_names_line() -> None:
    with pytest.raises(InputError, match="line 2") as info:
        hf_repo.render_chat_template("ok\n{% if %}", [], source="tokenizer_config.json")
    assert info.value.field == "chat_template"


@pytest.mark.parametrize(
    "template",
    [
        "{{ messages.__class__.__mro__ }}",  # attribute escape
        "{{ messages.append(1) }}",  # mutation (immutable sandbox)
        "{{ raise_exception('no system role') }}",  # the template's own error
    ],
)
def test_template_errors_are_input_errors(template: str) -> None:
    with pytest.raises(InputError, match="template failed"):
        hf_repo.render_chat_template(template, [{"role": "user", "content": "x"}])


def test_tojson_is_plain_json() -> None:
    out = hf_repo.render_chat_template("{{ tools[0] | tojson }}", [], tools=[{"d": "<b>&'"}])
    assert out == '{"d": "<b>&\'"}'


def test_snapshot_template_with_tools_and_tool_calls(snapshot: hf_repo.Snapshot) -> None:
    template = hf_repo.chat_template(snapshot.tokenizer_config())
    messages = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
        },
        {"role": "tool", "content": "sunny"},
    ]
    out = hf_repo.render_chat_template(
        template, messages, tools=[{"name": "get_weather"}], add_generation_prompt=True
    )
    assert '\n<tools>\n{"name": "get_weather"}\n</tools>' in out
    assert (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' in out
    )
    assert "<|im_start|>user\n<tool_response>\nsunny\n</tool_response><|im_end|>\n" in out
    assert out.endswith("<|im_start|>assistant\n")


# --- listings from huggingface_hub's ModelInfo ---------------------------------------------


def _payload(snapshot: hf_repo.Snapshot, *, lfs: bool = True) -> dict[str, Any]:
    """A Hub API reply built from the snapshot; LFS hashes for the shards are synthetic."""
    siblings = []
    for name in snapshot.stated("files")["values"]:
        entry: dict[str, Any] = {"rfilename": name}
        if name in ("config.json", "generation_config.json"):
            entry["size"] = snapshot.size(name)
        if lfs and name.endswith(".safetensors"):
            entry["size"] = 1000
            entry["lfs"] = {"size": 1000, "sha256": name[6:11] * 12 + "abcd", "pointerSize": 135}
        siblings.append(entry)
    params = snapshot.stated("safetensors_parameters")
    return {
        "id": snapshot.repo_id,
        "sha": snapshot.revision,
        "siblings": siblings,
        "safetensors": {
            "parameters": {"BF16": int(params["BF16"].replace(",", ""))},
            "total": int(params["total"].replace(",", "")),
        },
        "cardData": {
            "license": "other",
            "license_name": "qwen-research",
            "base_model": snapshot.stated("base_model")["value"],
        },
        "tags": ["transformers", "safetensors", "qwen2", "text-generation", "conversational"],
    }


def test_listing_from_model_info(snapshot: hf_repo.Snapshot) -> None:
    hub = import_or_skip("huggingface_hub.hf_api", "hub")
    listing = hf_repo.listing_from_model_info(hub.ModelInfo(**_payload(snapshot)))
    assert listing.revision == hf_repo.REVISION
    assert len(listing.files) == 12
    assert listing.file("config.json").size == 661
    assert listing.safetensors_parameters == {"BF16": 3_085_938_688}
    assert listing.safetensors_total == 3_085_938_688
    assert listing.license == "other" and listing.license_name == "qwen-research"
    assert listing.base_model == ("Qwen/Qwen2.5-3B",)
    assert listing.python_files == []
    shards = listing.shards
    assert [s.name for s in shards] == [
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
    ]
    assert all(s.in_lfs and s.lfs_size == 1000 and len(s.lfs_sha256 or "") == 64 for s in shards)
    assert not listing.file("config.json").in_lfs
    with pytest.raises(InputError, match="size unknown"):
        listing.total_bytes  # noqa: B018 - README.md etc. have no size in this payload
    with pytest.raises(InputError):
        listing.file("missing.bin")


def test_listing_detects_python_files(snapshot: hf_repo.Snapshot) -> None:
    hub = import_or_skip("huggingface_hub.hf_api", "hub")
    payload = _payload(snapshot)
    payload["siblings"].append({"rfilename": "modeling_qwen.py", "size": 10})
    payload["cardData"]["base_model"] = ["a/b", "c/d"]
    listing = hf_repo.listing_from_model_info(hub.ModelInfo(**payload))
    assert listing.python_files == ["modeling_qwen.py"]
    assert listing.base_model == ("a/b", "c/d")


def test_listing_sums_sizes() -> None:
    listing = hf_repo.RepoListing(
        repo_id="a/b", revision=None, files=(hf_repo.RepoFile("x", 3), hf_repo.RepoFile("y", 4))
    )
    assert listing.total_bytes == 7


# --- live calls, with the network replaced ------------------------------------------------


def test_fetch_listing_maps_hub_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    hub = import_or_skip("huggingface_hub", "hub")
    import httpx

    seen: dict[str, Any] = {}

    def refuse(self: Any, repo_id: str, **kwargs: Any) -> Any:
        seen.update(kwargs, repo_id=repo_id)
        raise httpx.ConnectError("no route to host")

    monkeypatch.setattr(hub.HfApi, "model_info", refuse)
    with pytest.raises(ServerError, match="ConnectError"):
        hf_repo.fetch_listing(timeout=5.0)
    assert seen == {
        "repo_id": hf_repo.REPO_ID,
        "revision": hf_repo.REVISION,
        "files_metadata": True,
        "timeout": 5.0,
    }


def test_fetch_listing_parses_reply(
    monkeypatch: pytest.MonkeyPatch, snapshot: hf_repo.Snapshot
) -> None:
    hub = import_or_skip("huggingface_hub", "hub")
    payload = _payload(snapshot)
    monkeypatch.setattr(
        hub.HfApi, "model_info", lambda self, repo_id, **kw: hub.hf_api.ModelInfo(**payload)
    )
    assert hf_repo.fetch_listing().safetensors_total == 3_085_938_688


def test_download_files_uses_the_pinned_revision(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hub = import_or_skip("huggingface_hub", "hub")
    calls: list[tuple[str, dict[str, Any]]] = []

    constants = import_or_skip("huggingface_hub.constants", "hub")
    before = constants.HF_HUB_DOWNLOAD_TIMEOUT

    def fake_download(repo_id: str, filename: str, **kwargs: Any) -> str:
        # The transfer's read timeout is the one we pass, not the environment's.
        calls.append((filename, dict(kwargs, read_timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT)))
        target = tmp_path / "snapshots" / kwargs["revision"] / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("{}", "utf-8")
        return str(target)

    monkeypatch.setattr(hub, "hf_hub_download", fake_download)
    snap = hf_repo.download_files(["config.json", "LICENSE"], tmp_path)
    assert snap.root == tmp_path / "snapshots" / hf_repo.REVISION
    assert [c[0] for c in calls] == ["config.json", "LICENSE"]
    assert all(
        c[1]["revision"] == hf_repo.REVISION and c[1]["cache_dir"] == str(tmp_path) for c in calls
    )
    assert all(c[1]["etag_timeout"] == hf_repo.DEFAULT_TIMEOUT_S for c in calls)
    assert all(c[1]["read_timeout"] == hf_repo.DEFAULT_TIMEOUT_S for c in calls)
    assert before == constants.HF_HUB_DOWNLOAD_TIMEOUT  # restored afterwards


def test_download_errors_are_server_errors(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    hub = import_or_skip("huggingface_hub", "hub")

    def fail(*args: Any, **kwargs: Any) -> str:
        raise OSError("offline")

    monkeypatch.setattr(hub, "hf_hub_download", fail)
    with pytest.raises(ServerError, match=r"config\.json"):
        hf_repo.download_files(["config.json"], tmp_path)
    with pytest.raises(InputError):
        hf_repo.download_files([], tmp_path)


def test_gated_repository_is_a_missing_prerequisite(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hub = import_or_skip("huggingface_hub", "hub")
    import httpx
    from huggingface_hub.errors import GatedRepoError

    from claims.probes.errors import PrerequisiteMissing

    def gated(*args: Any, **kwargs: Any) -> str:
        request = httpx.Request(
            "GET", "https://huggingface.co/meta-llama/x/resolve/main/config.json"
        )
        raise GatedRepoError(
            "access to model meta-llama/x is restricted",
            response=httpx.Response(401, request=request),
        )

    monkeypatch.setattr(hub, "hf_hub_download", gated)
    with pytest.raises(PrerequisiteMissing, match="HF_TOKEN"):
        hf_repo.download_files(["config.json"], tmp_path, "meta-llama/x", None)


def test_snapshot_agrees_with_the_catalog(snapshot: hf_repo.Snapshot) -> None:
    """The snapshot and the W3 catalog records are two transcriptions of one post: they agree."""
    from claims.catalog import load_catalog

    shards = load_catalog().get("W3-SHARDS")
    assert list(shards.figure("files").values) == snapshot.stated("files")["values"]
    assert shards.figure("file count").text == snapshot.stated("file_count")["value"]
    assert (
        shards.figure("weight_map entries").text == snapshot.stated("weight_map_entries")["value"]
    )
    assert shards.figure("total size").text == snapshot.stated("download_total")["value"]
    printed = [s["size"] for s in snapshot.stated("shards")]
    assert [shards.figure("shard 1 size").text, shards.figure("shard 2 size").text] == printed


@pytest.mark.parametrize("client", ["httpx", "httpx2"])
def test_transport_errors_of_either_client_are_server_errors(
    monkeypatch: pytest.MonkeyPatch, client: str
) -> None:
    hub = import_or_skip("huggingface_hub", "hub")
    module = pytest.importorskip(client)

    def refuse(self: Any, repo_id: str, **kwargs: Any) -> Any:
        raise module.ConnectTimeout("timed out")

    monkeypatch.setattr(hub.HfApi, "model_info", refuse)
    with pytest.raises(ServerError, match="ConnectTimeout"):
        hf_repo.fetch_listing(timeout=1.0)
