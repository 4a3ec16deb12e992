"""The live Hub calls, each with a timeout: the listing, downloads of small files into
a snapshot folder, the safetensors headers. Failures raise ServerError (gated
repositories say so); without ``huggingface_hub`` PrerequisiteMissing.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from claims.probes.errors import InputError, PrerequisiteMissing, ServerError
from claims.probes.files.hf_repo.listing import RepoListing, listing_from_model_info
from claims.probes.files.hf_repo.safetensors import SafetensorsLayout, layout_from_metadata
from claims.probes.files.hf_repo.snapshot import (
    REPO_ID,
    REVISION,
    Snapshot,
)

DEFAULT_TIMEOUT_S = 30.0


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
