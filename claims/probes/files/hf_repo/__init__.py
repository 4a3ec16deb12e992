"""A Hugging Face model repository at a pinned revision: its small files, listing and card.

Two sources give the same facts:

* a *snapshot* folder holding the repository's small JSON files — offline, the
  pinned transcription under ``fixtures/hub/<owner>--<name>/<revision>/``
  (with a ``snapshot.json`` saying where each figure came from); live, the
  folder ``huggingface_hub.hf_hub_download`` fills in a cache;
* a *listing* from the Hub API (``HfApi.model_info`` with ``files_metadata``):
  file names and byte sizes, Git LFS SHA-256 of the large files, the
  safetensors parameter count per dtype, and the card's license and base model.

What is measured, and in which unit: file sizes in bytes; parameter counts as
counts; the chat template's output as text (rendered with jinja2's sandbox, the
way transformers renders it). Live calls carry timeouts and raise
:class:`~claims.probes.errors.ServerError`; missing or malformed files raise
:class:`~claims.probes.errors.InputError` naming the file and field.

Modules: :mod:`.snapshot` (the pinned ids, snapshot folders, bounded JSON reads),
:mod:`.small_files` (fields of config, tokenizer and index files), :mod:`.template`
(rendering a chat template), :mod:`.listing` (a ``ModelInfo`` as a
:class:`RepoListing`), :mod:`.recorded_listing` (a recorded file list as one),
:mod:`.safetensors` (shard headers as parameter counts) and
:mod:`.hub` (the live calls). Everything is importable from this package.
"""

from __future__ import annotations

from claims.probes.files.hf_repo.hub import (
    DEFAULT_TIMEOUT_S,
    download_files,
    fetch_listing,
    fetch_safetensors_layout,
)
from claims.probes.files.hf_repo.listing import (
    SHARD_NAME,
    RepoFile,
    RepoListing,
    listing_from_model_info,
)
from claims.probes.files.hf_repo.recorded_listing import (
    CODE_FILE,
    code_files,
    listing_from_record,
    shard_overheads,
)
from claims.probes.files.hf_repo.safetensors import (
    SafetensorsLayout,
    ShardLayout,
    layout_from_metadata,
)
from claims.probes.files.hf_repo.small_files import (
    added_tokens,
    chat_template,
    field_value,
    index_total_size,
    index_weight_map,
)
from claims.probes.files.hf_repo.snapshot import (
    BASE_REPO_ID,
    MAX_JSON_BYTES,
    REPO_ID,
    REVISION,
    SMALL_FILES,
    SNAPSHOT_MANIFEST,
    Snapshot,
    load_snapshot,
    read_json_object,
    snapshot_dir,
)
from claims.probes.files.hf_repo.template import render_chat_template

__all__ = [
    "BASE_REPO_ID",
    "CODE_FILE",
    "DEFAULT_TIMEOUT_S",
    "MAX_JSON_BYTES",
    "REPO_ID",
    "REVISION",
    "SHARD_NAME",
    "SMALL_FILES",
    "SNAPSHOT_MANIFEST",
    "RepoFile",
    "RepoListing",
    "SafetensorsLayout",
    "ShardLayout",
    "Snapshot",
    "added_tokens",
    "chat_template",
    "code_files",
    "download_files",
    "fetch_listing",
    "fetch_safetensors_layout",
    "field_value",
    "index_total_size",
    "index_weight_map",
    "layout_from_metadata",
    "listing_from_model_info",
    "listing_from_record",
    "load_snapshot",
    "read_json_object",
    "render_chat_template",
    "shard_overheads",
    "snapshot_dir",
]
