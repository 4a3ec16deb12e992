"""What the server is and holds: its version, its models, the loaded ones, one model's details."""

from __future__ import annotations

from typing import Any

from claims.probes.errors import ServerError
from claims.probes.live.ollama_api.payloads import json_object, model_list
from claims.probes.live.ollama_api.transport import Transport

__all__ = ["InventoryEndpoints"]


class InventoryEndpoints(Transport):
    """GET /api/version, /api/tags, /api/ps and POST /api/show (read-only)."""

    def version(self) -> str:
        """GET /api/version -> the server's version string."""
        data = self.get_json("/api/version")
        if not isinstance(data, dict) or not isinstance(data.get("version"), str):
            raise ServerError(f"/api/version answered {str(data)[:200]!r}, not {{'version': ...}}")
        return str(data["version"])

    def tags(self) -> list[dict[str, Any]]:
        """GET /api/tags -> the models on the server (name, digest, size, details)."""
        return model_list(self.get_json("/api/tags"), "/api/tags")

    def ps(self) -> list[dict[str, Any]]:
        """GET /api/ps -> the loaded models (size, size_vram, context_length, expires_at)."""
        return model_list(self.get_json("/api/ps"), "/api/ps")

    def show(self, model: str, *, verbose: bool = False) -> dict[str, Any]:
        """POST /api/show -> details, model_info, parameters, template, capabilities."""
        body: dict[str, Any] = {"model": model}
        if verbose:
            body["verbose"] = True
        return json_object(self.post_json("/api/show", body), "/api/show")
