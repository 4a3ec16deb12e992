"""A snapshot folder of a repository at a pinned revision: where it lives, and reading it.

Offline it is the transcription under ``fixtures/hub/<owner>--<name>/<revision>/``
with its ``snapshot.json`` (where each figure came from); live, the folder
``huggingface_hub.hf_hub_download`` fills. JSON files are read bounded
(:data:`MAX_JSON_BYTES`) and must be objects; problems raise InputError naming the file.
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.probes.errors import InputError

REPO_ID = "Qwen/Qwen2.5-3B-Instruct"
BASE_REPO_ID = "Qwen/Qwen2.5-3B"
REVISION = "aa8e72537993ba99e69dfaafa59ed015b17504d1"

SMALL_FILES: tuple[str, ...] = (
    "config.json",
    "generation_config.json",
    "tokenizer_config.json",
    "model.safetensors.index.json",
)
SNAPSHOT_MANIFEST = "snapshot.json"
# The small files are kilobytes; tokenizer.json-sized files are not read here.
MAX_JSON_BYTES = 16 * 1024 * 1024
_REVISION = re.compile(r"^[0-9a-f]{40}$")
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


def snapshot_dir(root: Path, repo_id: str = REPO_ID, revision: str = REVISION) -> Path:
    """Where a pinned snapshot lives under ``root``: ``<owner>--<name>/<revision>``."""
    if not _REPO_ID.match(repo_id):
        raise InputError(f"not a repository id: {repo_id!r}", field="repo_id")
    if not _REVISION.match(revision):
        raise InputError(f"not a 40-hex commit: {revision!r}", field="revision")
    return root / repo_id.replace("/", "--") / revision


def read_json_object(path: Path) -> dict[str, Any]:
    """Parse a small JSON file that must hold an object; errors name the file and position."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
            raise InputError("not a regular file", path=str(path))
        size = st.st_size
        if size > MAX_JSON_BYTES:
            raise InputError(f"{size} bytes is too large for a small JSON file", path=str(path))
        with path.open("rb") as fh:
            raw = fh.read(MAX_JSON_BYTES + 1)
        if len(raw) > MAX_JSON_BYTES:  # grew after the stat
            raise InputError(f"more than {MAX_JSON_BYTES} bytes", path=str(path))
    except FileNotFoundError:
        raise InputError("file not found", path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8", path=str(path), offset=exc.start) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})",
            path=str(path),
            offset=exc.pos,
        ) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", path=str(path)) from None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, got {type(data).__name__}", path=str(path))
    return data


@dataclass(frozen=True)
class Snapshot:
    """A folder with some of a repository's files at one revision.

    ``provenance`` is the parsed ``snapshot.json`` of a transcribed snapshot
    (None for a live download): it says which files are whole and which
    figures were stated without being printed.
    """

    root: Path
    repo_id: str = REPO_ID
    revision: str = REVISION
    provenance: Mapping[str, Any] | None = None

    def path(self, name: str) -> Path:
        if "/" in name or "\\" in name or name in ("", ".", ".."):
            raise InputError(f"not a top-level file name: {name!r}", path=str(self.root))
        return self.root / name

    def json(self, name: str) -> dict[str, Any]:
        return read_json_object(self.path(name))

    def size(self, name: str) -> int:
        """Byte size of one file of the snapshot."""
        try:
            return self.path(name).stat().st_size
        except FileNotFoundError:
            raise InputError("file not found", path=str(self.path(name))) from None

    def transcription(self, name: str) -> str | None:
        """ "whole" or "partial" for a transcribed file; None for a live download."""
        if self.provenance is None:
            return None
        entry = self.provenance.get("files", {}).get(name)
        return None if entry is None else str(entry.get("transcription"))

    def stated(self, key: str) -> Any:
        """A figure the source states without printing the file (snapshot.json)."""
        if self.provenance is None:
            raise InputError("a live snapshot has no stated figures", path=str(self.root))
        stated = self.provenance.get("stated_not_printed", {})
        if key not in stated:
            raise InputError(
                "not recorded",
                path=str(self.root / SNAPSHOT_MANIFEST),
                field=f"stated_not_printed.{key}",
            )
        return stated[key]

    def config(self) -> dict[str, Any]:
        return self.json("config.json")

    def generation_config(self) -> dict[str, Any]:
        return self.json("generation_config.json")

    def tokenizer_config(self) -> dict[str, Any]:
        return self.json("tokenizer_config.json")

    def index(self) -> dict[str, Any]:
        return self.json("model.safetensors.index.json")


def load_snapshot(root: Path) -> Snapshot:
    """Open a transcribed snapshot folder; its ``snapshot.json`` must name the repo and revision."""
    manifest_path = root / SNAPSHOT_MANIFEST
    manifest = read_json_object(manifest_path)
    repo_id = manifest.get("repo_id")
    revision = manifest.get("revision")
    if not isinstance(repo_id, str) or not _REPO_ID.match(repo_id):
        raise InputError(
            f"not a repository id: {repo_id!r}", path=str(manifest_path), field="repo_id"
        )
    if not isinstance(revision, str) or not _REVISION.match(revision):
        raise InputError(
            f"not a 40-hex commit: {revision!r}", path=str(manifest_path), field="revision"
        )
    if root.name != revision:
        raise InputError(
            f"folder name {root.name!r} differs from the recorded revision",
            path=str(manifest_path),
            field="revision",
        )
    return Snapshot(root=root, repo_id=repo_id, revision=revision, provenance=manifest)
