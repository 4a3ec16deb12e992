"""The summary ``python -m claims inspect store DIR`` prints (as JSON or a mapping)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from claims.probes.files.ollama_store.listing import human_bytes
from claims.probes.files.ollama_store.manifest import Manifest
from claims.probes.files.ollama_store.store import OllamaStore
from claims.probes.files.ollama_store.verify import BlobCheck

__all__ = ["inspect"]


def inspect(root: Path | str, model: str | None = None, verify: bool = False) -> dict[str, Any]:
    """Summary of a store for ``python -m claims inspect store``.

    Malformed input raises :class:`InputError` (the CLI exits 2). Sizes are
    always compared (a ``stat``); with ``verify`` every blob is also hashed.
    Disagreements are listed under ``problems`` (the CLI exits 1). Sizes are in
    bytes, ``seconds`` is the wall time of the whole inspection.
    """
    store = OllamaStore(root)
    start = time.perf_counter()
    ignored: list[str] = []
    if model is not None:
        manifests = [store.manifest(model)]
    else:
        manifests, ignored = store.scan()
    problems: list[str] = []
    hashed_bytes = 0
    rows = []
    for m in manifests:
        checks = [store.check_blob(layer, verify=verify) for layer in m.blobs]
        for c in checks:
            problem = c.problem()
            if problem:
                problems.append(problem)
            if verify and not c.cached:
                hashed_bytes += c.actual_size
        rows.append(_manifest_json(store, m, checks))
    summary: dict[str, Any] = {
        "root": str(store.root),
        "manifest_count": len(manifests),
        "manifests": rows,
    }
    if model is None:
        complete, other = store.blob_files()
        referenced = {layer.blob_name for m in manifests for layer in m.blobs}
        summary["blobs"] = {
            "files": len(complete),
            "unreferenced": [n for n in complete if n not in referenced],
            "other_entries": other,
        }
        summary["shared"] = [
            {"digest": digest, "manifests": names}
            for digest, names in sorted(store.shared_blobs(manifests).items())
        ]
        summary["ignored"] = ignored
    summary["verified"] = verify
    summary["hashed_bytes"] = hashed_bytes
    summary["seconds"] = round(time.perf_counter() - start, 4)
    summary["problems"] = problems
    return summary


def _manifest_json(store: OllamaStore, m: Manifest, checks: list[BlobCheck]) -> dict[str, Any]:
    return {
        "name": m.name.display,
        "full_name": m.name.full,
        "manifest": str(m.path.relative_to(store.manifests_dir)),
        "id": m.id,
        "manifest_sha256": m.digest,
        "manifest_bytes": m.file_size,
        "size": m.total_size,
        "size_display": human_bytes(m.total_size),
        "schemaVersion": m.schema_version,
        "mediaType": m.media_type,
        "blobs": [c.to_json() for c in checks],
    }
