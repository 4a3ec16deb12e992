"""Requests that change the server: create, upload a blob, delete, pull.

The claim tests send these only with their opt-in flags (``--ollama-allow-create``,
``--ollama-allow-pull``): a certification run must never alter a shared server by surprise.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import httpx

from claims.probes.errors import ServerError
from claims.probes.live.ollama_api.errors import ReplyError, ServerHTTPError, ServerTimeout
from claims.probes.live.ollama_api.payloads import error_text, json_object
from claims.probes.live.ollama_api.transport import Deadline, Transport

__all__ = ["AdminEndpoints"]


class AdminEndpoints(Transport):
    """POST /api/create, /api/blobs/<digest>, /api/pull and DELETE /api/delete."""

    def create(
        self,
        name: str,
        *,
        base: str,
        system: str | None = None,
        parameters: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """POST /api/create a model derived from ``base`` (changes the server: opt-in only)."""
        body: dict[str, Any] = {"model": name, "from": base, "stream": False}
        if system is not None:
            body["system"] = system
        if parameters:
            body["parameters"] = dict(parameters)
        reply = json_object(self.post_json("/api/create", body), "/api/create")
        if reply.get("status") != "success":
            raise ReplyError(f"/api/create {name}: status {reply.get('status')!r}, not 'success'")
        return reply

    def push_blob(self, path: str | os.PathLike[str], sha256_hex: str) -> str:
        """Upload a file as a blob (POST /api/blobs/sha256:<hex>) unless the server has it.

        Returns the digest. The server hashes what it receives and refuses a
        mismatch, so ``sha256_hex`` must be the file's own SHA-256.
        """
        digest = f"sha256:{sha256_hex}"
        where = f"/api/blobs/{digest}"
        try:
            self._request("HEAD", where)
            return digest  # already there: nothing to send
        except ServerHTTPError as exc:
            if exc.status != 404:
                raise
        # The body is the open file, streamed by httpx: a multi-GB GGUF is never
        # held in memory, which the JSON request path would do. An upload of that
        # size (opt-in: --ollama-allow-create) may outlast the request deadline; each of
        # its waits keeps the read timeout.
        with open(path, "rb") as fh:
            request = self._client.build_request(
                "POST",
                where,
                content=fh,
                extensions={"timeout": self._timeouts(None, Deadline(None))},
            )
            try:
                resp = self._client.send(request)
            except httpx.TimeoutException:
                raise ServerTimeout(f"{where}: upload not answered in time") from None
            except httpx.HTTPError as exc:
                raise ServerError(f"{where}: {type(exc).__name__}: {exc}") from None
        if resp.status_code >= 400:
            raise ServerHTTPError(resp.status_code, error_text(resp.content), where)
        return digest

    def delete(self, name: str) -> None:
        """DELETE /api/delete a model (changes the server: opt-in only)."""
        self._request("DELETE", "/api/delete", json={"model": name})

    def pull(self, model: str, *, total_timeout: float | None = None) -> list[dict[str, Any]]:
        """POST /api/pull and follow its status lines to "success" (opt-in only)."""
        lines = self.stream(
            "/api/pull",
            {"model": model, "stream": True},
            total_timeout=total_timeout,
            finished=lambda d: d.get("status") == "success",
            # Gigabytes (opt-in: --ollama-allow-pull): only its own total bounds it.
            outlast_request_timeout=True,
        )
        return [line.data for line in lines]
