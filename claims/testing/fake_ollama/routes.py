"""A fake Ollama's routes of state: version, listings, /api/show, and the store's changes.

Each method is registered for its method and path (:func:`~.handler._route`);
:mod:`.generation` adds the routes that generate text or embeddings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from claims.probes.live.ollama_api.names import normalize_model_name as _norm
from claims.testing.fake_ollama.faults import GENERATION_PATHS, Fault
from claims.testing.fake_ollama.handler import _Handler, _route
from claims.testing.fake_ollama.models import IMPORTED_AS, FakeModel
from claims.testing.fake_ollama.replies import _iso, _phi4_tokens, _with_tag
from claims.testing.fake_ollama.state import FakeState, _HTTPError

__all__ = ["StateRoutes"]


class StateRoutes(FakeState):
    """The routes that read or change what the server holds, generating nothing."""

    @_route("GET", "/")
    def _root(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        h._send_text(200, "Ollama is running")

    @_route("GET", "/api/version")
    def _version(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        if self.upgrade_to and any(e.path in GENERATION_PATHS for e in self.exchanges):
            self.version = self.upgrade_to  # replaced by another release mid-run
        h._send_json(200, {"version": self.version})

    @_route("GET", "/api/tags")
    def _tags(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        models = []
        for m in self.models.values():
            details = m.details()
            arch = m.model_info.get("general.architecture")
            for key in ("context_length", "embedding_length"):
                value = m.model_info.get(f"{arch}.{key}")
                if isinstance(value, int):
                    details[key] = value
            models.append(
                {
                    "name": m.name,
                    "model": m.name,
                    "modified_at": "2026-07-07T10:00:00.000000000Z",
                    "size": m.size,
                    "digest": m.digest,
                    "details": details,
                    "capabilities": list(m.capabilities),
                }
            )
        h._send_json(200, {"models": models})

    @_route("GET", "/api/ps")
    def _ps(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        with self._lock:
            self._expire()
            loaded = list(self.loaded.values())
        models = []
        for item in loaded:
            size = item.model.base_bytes + item.context_length * item.model.kv_bytes_per_token
            models.append(
                {
                    "name": item.model.name,
                    "model": item.model.name,
                    "size": size,
                    "digest": item.model.digest,
                    "details": item.model.details(),
                    "expires_at": _iso(item.expires),
                    "size_vram": size,
                    "context_length": item.context_length,
                }
            )
        h._send_json(200, {"models": models})

    @_route("POST", "/api/show")
    def _show(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body, missing=lambda name: f"model '{_with_tag(name)}' not found")
        info = dict(m.model_info)
        if info.get("tokenizer.ggml.pre") == "dbrx":
            # As Ollama does: the long tokenizer arrays only when asked for (verbose).
            info["tokenizer.ggml.tokens"] = _phi4_tokens() if body.get("verbose") else None
        reply: dict[str, Any] = {
            "modelfile": f"FROM {m.name}\nTEMPLATE {m.template}\n",
            "template": m.template,
            "details": m.details(),
            "model_info": info,
            "tensors": [],
            "capabilities": list(m.capabilities),
            "modified_at": "2026-07-07T10:00:00.000000000Z",
            **dict(m.extra_show),
        }
        # Ollama leaves out what the Modelfile did not set (the captures: a bare
        # FROM has no parameters and no license).
        if m.parameters:
            reply["parameters"] = m.parameters
        if m.license and "license" not in reply:
            reply["license"] = m.license
        h._send_json(200, reply)

    def _blob(self, h: _Handler, method: str, digest: str) -> None:
        """HEAD: is the blob here; POST: receive it and check its SHA-256."""
        if method == "HEAD":
            h._send(200 if digest in self.blobs else 404)
            return
        length = int(h.headers.get("Content-Length") or 0)
        hasher, remaining = hashlib.sha256(), length
        while remaining > 0:
            chunk = h.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            hasher.update(chunk)
            remaining -= len(chunk)
        if f"sha256:{hasher.hexdigest()}" != digest:
            h._send_json(400, {"error": "digest mismatch"})
            return
        self.blobs[digest] = length
        h._send(201)

    def reuse_layers(self, *, weights: str | None, base: FakeModel | None) -> None:
        """What a create does to the layers it already has (this fake keeps none on disk)."""

    def stored(self, name: str, base: FakeModel | None, body: dict[str, Any]) -> None:
        """What a create FROM ``base`` (None: a delete of ``name``) writes to the store
        (this fake keeps none on disk)."""

    @_route("POST", "/api/create")
    def _create(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        name = body.get("model")
        files = body.get("files")
        if isinstance(name, str) and isinstance(files, dict) and files:
            digest = next(iter(files.values()))
            if digest not in self.blobs:
                raise _HTTPError(400, f"blob {digest} not found")
            self.reuse_layers(weights=digest, base=None)
            self.models[_norm(name)] = FakeModel(
                name=_norm(name),
                digest=hashlib.sha256(name.encode()).hexdigest(),
                size=self.blobs[digest],
                family=IMPORTED_AS[0],
                parameter_size=IMPORTED_AS[1],
                quantization=IMPORTED_AS[2],
                model_info={"general.architecture": IMPORTED_AS[0]},
                template=str(body.get("template") or "{{ .Prompt }}"),
            )
            h._send_json(200, {"status": "success"})
            return
        base = self.find(str(body.get("from") or ""))
        if not isinstance(name, str) or base is None:
            raise _HTTPError(400, "neither 'from' nor 'files' was specified")
        self.reuse_layers(weights=None, base=base)
        params = body.get("parameters") or {}
        lines = [m for m in base.parameters.splitlines() if m]
        lines += [f"{k:<30} {v}" for k, v in params.items()]
        extra = tuple((k, body[k]) for k in ("system", "license", "messages") if k in body)
        derived = FakeModel(
            **{
                **base.__dict__,
                "name": _norm(name),
                "digest": hashlib.sha256(name.encode()).hexdigest(),
                "parameters": "\n".join(lines),
                "template": body.get("template") or base.template,
                "extra_show": extra,
            }
        )
        self.models[_norm(name)] = derived
        self.stored(name, base, body)
        h._send_json(200, {"status": "success"})

    @_route("DELETE", "/api/delete")
    def _delete(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        m = self._model(body)
        self.models = {k: v for k, v in self.models.items() if v is not m}
        self.stored(m.name, None, body)
        h._send(200)  # Ollama answers an empty body, no content type

    @_route("POST", "/api/copy")
    def _copy(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        source = self._model({"model": body.get("source")})
        destination = body.get("destination")
        if not isinstance(destination, str) or not destination:
            raise _HTTPError(400, "destination is required")
        self.models[_norm(destination)] = FakeModel(
            **{**source.__dict__, "name": _norm(destination)}
        )
        h._send(200)

    @_route("POST", "/api/pull")
    def _pull(self, h: _Handler, body: dict[str, Any], fault: Fault | None) -> None:
        name = body.get("model") or body.get("name")
        found = self.find(name) if isinstance(name, str) else None
        if found is None:
            raise _HTTPError(500, "pull model manifest: file does not exist")
        digest = found.digest

        def lines() -> Iterator[dict[str, Any]]:
            yield {"status": "pulling manifest"}
            yield {
                "status": f"pulling {digest[:12]}",
                "digest": f"sha256:{digest}",
                "total": 100,
                "completed": 100,
            }
            yield {"status": "verifying sha256 digest"}
            yield {"status": "writing manifest"}
            yield {"status": "success"}

        h.stream_lines(lines(), fault, first_delay_s=0.0)
