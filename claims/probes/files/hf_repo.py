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
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.probes.errors import InputError, PrerequisiteMissing, ServerError

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
DEFAULT_TIMEOUT_S = 30.0

_REVISION = re.compile(r"^[0-9a-f]{40}$")
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
SHARD_NAME = re.compile(r"^(?P<prefix>.+)-(?P<index>\d{5})-of-(?P<total>\d{5})\.safetensors$")


# --- snapshot folders ----------------------------------------------------------


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


# --- reading the small files -----------------------------------------------------


def field_value(data: Mapping[str, Any], dotted: str, *, source: str | None = None) -> Any:
    """``data["a"]["b"]`` for ``"a.b"``; InputError naming the field when absent."""
    current: Any = data
    for part in dotted.split("."):
        if not isinstance(current, Mapping) or part not in current:
            raise InputError("missing", path=source, field=dotted)
        current = current[part]
    return current


def added_tokens(
    tokenizer_config: Mapping[str, Any], *, source: str | None = None
) -> dict[int, str]:
    """Token id -> text of the tokenizer's added (special) tokens, from added_tokens_decoder."""
    decoder = field_value(tokenizer_config, "added_tokens_decoder", source=source)
    if not isinstance(decoder, Mapping):
        raise InputError("must be an object", path=source, field="added_tokens_decoder")
    out: dict[int, str] = {}
    for key, entry in decoder.items():
        where = f"added_tokens_decoder.{key}"
        if not str(key).isdigit():
            raise InputError("token id is not a non-negative integer", path=source, field=where)
        if not isinstance(entry, Mapping) or not isinstance(entry.get("content"), str):
            raise InputError("entry has no text content", path=source, field=where)
        out[int(key)] = entry["content"]
    return out


def chat_template(tokenizer_config: Mapping[str, Any], *, source: str | None = None) -> str:
    """The default chat template (a string, or the "default" entry of a named list)."""
    value = field_value(tokenizer_config, "chat_template", source=source)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for entry in value:
            if isinstance(entry, Mapping) and entry.get("name") == "default":
                template = entry.get("template")
                if isinstance(template, str):
                    return template
        raise InputError("no template named 'default'", path=source, field="chat_template")
    raise InputError(
        f"must be a string, got {type(value).__name__}", path=source, field="chat_template"
    )


def index_total_size(index: Mapping[str, Any], *, source: str | None = None) -> int:
    """metadata.total_size of a safetensors shard index (bytes of tensor data)."""
    value = field_value(index, "metadata.total_size", source=source)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(
            f"must be a non-negative integer, got {value!r}",
            path=source,
            field="metadata.total_size",
        )
    return value


def index_weight_map(index: Mapping[str, Any], *, source: str | None = None) -> dict[str, str]:
    """Tensor name -> shard file of a safetensors shard index."""
    value = field_value(index, "weight_map", source=source)
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise InputError("must map tensor names to file names", path=source, field="weight_map")
    return dict(value)


# --- chat template -------------------------------------------------------------------


def _tojson(value: Any, indent: int | None = None) -> str:
    # jinja2's own tojson escapes <, >, & and ' for HTML; chat templates need the
    # plain JSON text, so (like transformers) the filter is replaced.
    return json.dumps(value, ensure_ascii=False, indent=indent)


def render_chat_template(
    template: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    add_generation_prompt: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
    source: str | None = None,
    **variables: Any,
) -> str:
    """Render a chat template to the text the model sees (jinja2's immutable sandbox).

    The environment matches the one transformers' ``apply_chat_template`` uses
    (trim_blocks, lstrip_blocks, the loopcontrols extension, a plain-JSON
    ``tojson``, a ``raise_exception`` helper), so the output is the same string.
    A syntax error, a sandbox violation or an error the template raises is an
    :class:`InputError` naming the field (and template line when known).
    """
    from jinja2 import TemplateError, TemplateSyntaxError
    from jinja2.ext import loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols], autoescape=False
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = raise_exception
    try:
        compiled = env.from_string(template)
    except TemplateSyntaxError as exc:
        raise InputError(
            f"template syntax error at line {exc.lineno}: {exc.message}",
            path=source,
            field="chat_template",
        ) from None
    try:
        return compiled.render(
            messages=[dict(m) for m in messages],
            tools=None if tools is None else [dict(t) for t in tools],
            add_generation_prompt=add_generation_prompt,
            **variables,
        )
    except TemplateError as exc:  # SecurityError and UndefinedError are TemplateErrors
        raise InputError(
            f"template failed: {type(exc).__name__}: {exc}", path=source, field="chat_template"
        ) from None
    except (TypeError, KeyError, IndexError, ValueError) as exc:
        raise InputError(
            f"template failed on these messages: {type(exc).__name__}: {exc}",
            path=source,
            field="chat_template",
        ) from None


# --- the Hub listing -----------------------------------------------------------------


@dataclass(frozen=True)
class RepoFile:
    """One file of a repository at a revision (sizes in bytes)."""

    name: str
    size: int | None = None
    blob_id: str | None = None
    lfs_sha256: str | None = None
    lfs_size: int | None = None

    @property
    def in_lfs(self) -> bool:
        return self.lfs_sha256 is not None


@dataclass(frozen=True)
class RepoListing:
    """What the Hub API says about a repository at one revision."""

    repo_id: str
    revision: str | None
    files: tuple[RepoFile, ...]
    safetensors_parameters: Mapping[str, int] | None = None
    safetensors_total: int | None = None
    license: str | None = None
    license_name: str | None = None
    base_model: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    pipeline_tag: str | None = None
    library_name: str | None = None

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.files]

    def file(self, name: str) -> RepoFile:
        for f in self.files:
            if f.name == name:
                return f
        raise InputError("not in the repository listing", field=name)

    @property
    def total_bytes(self) -> int:
        """Sum of all file sizes (bytes); InputError if a size is unknown."""
        missing = [f.name for f in self.files if f.size is None]
        if missing:
            raise InputError("size unknown (request files_metadata)", field=", ".join(missing))
        return sum(f.size or 0 for f in self.files)

    @property
    def python_files(self) -> list[str]:
        return [f.name for f in self.files if f.name.endswith(".py")]

    @property
    def shards(self) -> list[RepoFile]:
        """Safetensors shard files (``<prefix>-NNNNN-of-NNNNN.safetensors``), in order."""
        found = [f for f in self.files if SHARD_NAME.match(f.name.rsplit("/", 1)[-1])]
        return sorted(found, key=lambda f: f.name)


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(str(v) for v in value)
    return (str(value),)


def listing_from_model_info(info: Any) -> RepoListing:
    """Turn a ``huggingface_hub.ModelInfo`` (or anything with its attributes) into a listing."""
    files = []
    for sibling in getattr(info, "siblings", None) or ():
        lfs = getattr(sibling, "lfs", None)
        lfs_sha = lfs_size = None
        if lfs is not None:
            # BlobLfsInfo is a dataclass and (for backward compatibility) a dict.
            lfs_sha = getattr(lfs, "sha256", None) or (
                lfs.get("sha256") if isinstance(lfs, Mapping) else None
            )
            lfs_size = _int_or_none(
                getattr(lfs, "size", None) if not isinstance(lfs, Mapping) else lfs.get("size")
            )
        files.append(
            RepoFile(
                name=str(sibling.rfilename),
                size=_int_or_none(getattr(sibling, "size", None)),
                blob_id=getattr(sibling, "blob_id", None),
                lfs_sha256=lfs_sha,
                lfs_size=lfs_size,
            )
        )
    st = getattr(info, "safetensors", None)
    params = total = None
    if st is not None:
        params = {str(k): int(v) for k, v in dict(getattr(st, "parameters", {}) or {}).items()}
        total = _int_or_none(getattr(st, "total", None))
    card = getattr(info, "card_data", None)

    def card_get(key: str) -> Any:
        if card is None:
            return None
        if hasattr(card, "get"):
            return card.get(key)
        return getattr(card, key, None)

    license_value = card_get("license")
    return RepoListing(
        repo_id=str(info.id),
        revision=getattr(info, "sha", None),
        files=tuple(files),
        safetensors_parameters=params,
        safetensors_total=total,
        license=None if license_value is None else str(license_value),
        license_name=card_get("license_name"),
        base_model=_strings(card_get("base_model")),
        tags=_strings(getattr(info, "tags", None)),
        pipeline_tag=getattr(info, "pipeline_tag", None),
        library_name=getattr(info, "library_name", None),
    )


def _hub_errors() -> tuple[type[BaseException], ...]:
    errors: list[type[BaseException]] = [OSError, ValueError]
    try:
        from huggingface_hub.errors import HfHubHTTPError

        errors.append(HfHubHTTPError)
    except ImportError:  # pragma: no cover - very old huggingface_hub
        pass
    # Transport errors come from whichever HTTP client this huggingface_hub uses:
    # requests before 1.0 (its errors are OSErrors), httpx in 1.x, httpx2 in 2.x.
    for client in ("httpx", "httpx2"):
        try:
            module = importlib.import_module(client)
        except ImportError:
            continue
        errors.append(module.HTTPError)
    return tuple(errors)


def _is_gated(exc: BaseException) -> bool:
    try:
        from huggingface_hub.errors import GatedRepoError
    except ImportError:  # pragma: no cover - very old huggingface_hub
        return False
    return isinstance(exc, GatedRepoError)


def _require_hub() -> Any:
    try:
        import huggingface_hub
    except ImportError:
        raise PrerequisiteMissing(
            "huggingface_hub is not installed (pip install 'claims-suite[hub]')"
        ) from None
    return huggingface_hub


def fetch_listing(
    repo_id: str = REPO_ID, revision: str | None = REVISION, *, timeout: float = DEFAULT_TIMEOUT_S
) -> RepoListing:
    """The Hub's listing of a repository at a revision, with per-file sizes and LFS hashes."""
    hub = _require_hub()
    try:
        info = hub.HfApi().model_info(
            repo_id, revision=revision, files_metadata=True, timeout=timeout
        )
    except _hub_errors() as exc:
        raise ServerError(
            f"Hub model_info({repo_id}@{revision}) failed: {type(exc).__name__}: {exc}"
        ) from None
    return listing_from_model_info(info)


@contextlib.contextmanager
def _download_timeout(seconds: float) -> Iterator[None]:
    """Bound each read of a Hub transfer by ``seconds`` for the duration of the block.

    ``hf_hub_download`` takes a timeout for its metadata request only; the
    transfer reads ``huggingface_hub.constants.HF_HUB_DOWNLOAD_TIMEOUT`` at
    call time (default: $HF_HUB_DOWNLOAD_TIMEOUT or 10 s), so set it here
    instead of leaving the bound to the environment.
    """
    try:
        constants = importlib.import_module("huggingface_hub.constants")
    except ImportError:  # pragma: no cover - huggingface_hub is checked by the caller
        yield
        return
    saved = getattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", None)
    setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", seconds)  # noqa: B010 (a module constant)
    try:
        yield
    finally:
        setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", saved)  # noqa: B010


def download_files(
    names: Iterable[str],
    cache_dir: Path,
    repo_id: str = REPO_ID,
    revision: str | None = REVISION,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> Snapshot:
    """Download files at the pinned revision into ``cache_dir``; a snapshot of that folder.

    ``timeout`` bounds the metadata request (``etag_timeout``) and each read of
    the transfer (huggingface_hub's ``HF_HUB_DOWNLOAD_TIMEOUT``, set for the call).
    """
    hub = _require_hub()
    folder: Path | None = None
    for name in names:
        try:
            with _download_timeout(timeout):
                path = Path(
                    hub.hf_hub_download(
                        repo_id,
                        name,
                        revision=revision,
                        cache_dir=str(cache_dir),
                        etag_timeout=timeout,
                    )
                )
        except _hub_errors() as exc:
            if _is_gated(exc):
                raise PrerequisiteMissing(
                    f"{repo_id} is gated: accept its license on the Hub and set HF_TOKEN"
                ) from None
            raise ServerError(
                f"Hub download of {name} from {repo_id}@{revision} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        folder = path.parent
    if folder is None:
        raise InputError("no file names given", field="names")
    # The cache keeps each download under snapshots/<commit>, so an unpinned
    # request still yields the commit it resolved to.
    return Snapshot(root=folder, repo_id=repo_id, revision=revision or folder.name)


# --- safetensors headers (read remotely, a few kilobytes per shard) ------------------------


@dataclass(frozen=True)
class ShardLayout:
    """One safetensors shard as its header describes it.

    ``data_bytes`` is where the last tensor's data ends, counted from the end
    of the header: the shard's tensor payload in bytes. The file is larger by
    8 (the header-length prefix) plus the JSON header itself.
    """

    name: str
    tensors: int
    data_bytes: int
    parameters: Mapping[str, int]


@dataclass(frozen=True)
class SafetensorsLayout:
    """All shards of a safetensors checkpoint: tensors, payload bytes, parameters per dtype."""

    weight_map_entries: int
    total_size: int | None
    shards: tuple[ShardLayout, ...]

    @property
    def tensors(self) -> int:
        return sum(s.tensors for s in self.shards)

    @property
    def data_bytes(self) -> int:
        return sum(s.data_bytes for s in self.shards)

    @property
    def parameters(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for shard in self.shards:
            for dtype, n in shard.parameters.items():
                out[dtype] = out.get(dtype, 0) + n
        return out


def layout_from_metadata(meta: Any) -> SafetensorsLayout:
    """Turn huggingface_hub's ``SafetensorsRepoMetadata`` into a layout."""
    shards = []
    for name, fmeta in sorted((getattr(meta, "files_metadata", None) or {}).items()):
        tensors = getattr(fmeta, "tensors", None) or {}
        ends = [int(t.data_offsets[1]) for t in tensors.values()]
        shards.append(
            ShardLayout(
                name=str(name),
                tensors=len(tensors),
                data_bytes=max(ends, default=0),
                parameters={
                    str(k): int(v)
                    for k, v in (getattr(fmeta, "parameter_count", None) or {}).items()
                },
            )
        )
    metadata = getattr(meta, "metadata", None) or {}
    total = metadata.get("total_size") if isinstance(metadata, Mapping) else None
    if isinstance(total, str) and total.isdigit():
        total = int(total)
    return SafetensorsLayout(
        weight_map_entries=len(getattr(meta, "weight_map", None) or {}),
        total_size=_int_or_none(total),
        shards=tuple(shards),
    )


def fetch_safetensors_layout(
    repo_id: str = REPO_ID, revision: str = REVISION, *, timeout: float = DEFAULT_TIMEOUT_S
) -> SafetensorsLayout:
    """Read every shard's header from the Hub (HTTP range requests, not the weights)."""
    hub = _require_hub()
    api = hub.HfApi()
    import inspect

    kwargs: dict[str, Any] = {"revision": revision}
    # Older huggingface_hub releases take no timeout here (their default applies).
    if "timeout" in inspect.signature(api.get_safetensors_metadata).parameters:
        kwargs["timeout"] = timeout
    try:
        meta = api.get_safetensors_metadata(repo_id, **kwargs)
    except _hub_errors() as exc:
        raise ServerError(
            f"Hub safetensors metadata of {repo_id}@{revision} failed: {type(exc).__name__}: {exc}"
        ) from None
    return layout_from_metadata(meta)
