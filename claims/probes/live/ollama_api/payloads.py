"""Request bodies, and whole (non-streamed) replies decoded into what an endpoint documents.

Every decoder names the endpoint's path in its error, and shows at most 200
characters of what the server sent: a hostile reply must not flood a report.
"""

from __future__ import annotations

import json
from typing import Any

from claims.probes.errors import ServerError
from claims.probes.live.ollama_api.errors import ReplyError

__all__ = ["decode_json", "error_text", "json_object", "model_list", "request_body"]

SHOWN_CHARS = 200


def request_body(model: str, **fields: Any) -> dict[str, Any]:
    """``{"model": model, **fields}`` without the fields that are None.

    A field left out takes the server's default, which is not the same as
    sending a null; ``options`` is copied so the caller's mapping is not shared.
    """
    body: dict[str, Any] = {"model": model}
    for key, value in fields.items():
        if value is None:
            continue
        body[key] = dict(value) if key == "options" else value
    return body


def error_text(raw: bytes) -> str:
    """The message of an error reply: its ``error`` field, else the start of the body."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        return raw[:SHOWN_CHARS].decode("utf-8", "replace")
    if isinstance(data, dict) and "error" in data:
        return str(data["error"])[:SHOWN_CHARS]
    return str(data)[:SHOWN_CHARS]


def decode_json(raw: bytes, path: str) -> Any:
    """The JSON value of a reply body (:class:`ReplyError` when it is not JSON)."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        shown = raw[:SHOWN_CHARS].decode("utf-8", "replace")
        raise ReplyError(f"{path} answered non-JSON: {shown!r}") from None


def json_object(data: Any, path: str) -> dict[str, Any]:
    """``data`` as the JSON object an endpoint answers; an ``error`` object raises."""
    if not isinstance(data, dict):
        raise ReplyError(f"{path} answered a {type(data).__name__}, not a JSON object")
    if "error" in data:
        raise ServerError(f"{path}: {str(data['error'])[:SHOWN_CHARS]}")
    return data


def model_list(data: Any, path: str) -> list[dict[str, Any]]:
    """The ``models`` list of /api/tags or /api/ps, checked to be a list of objects."""
    obj = json_object(data, path)
    models = obj.get("models")
    if not isinstance(models, list) or not all(isinstance(m, dict) for m in models):
        raise ReplyError(f"{path}: 'models' is not a list of objects: {str(models)[:SHOWN_CHARS]}")
    return models
