"""Ollama's HTTP API, measured from the client side with httpx.

Every request has explicit connect and read timeouts. Failures become
:class:`~claims.probes.errors.ServerError` subclasses with one clear message.
(The streaming, timing and endpoint probes build on this client.)
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import httpx

from claims.probes.errors import ServerError


class ServerUnavailable(ServerError):
    """Nothing answered at the address (refused, unreachable, DNS failure)."""


class ServerTimeout(ServerError):
    """The server accepted the request but did not answer in time."""


class ServerHTTPError(ServerError):
    """The server answered with an HTTP error status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status


class OllamaClient:
    """A small synchronous client for one Ollama server."""

    def __init__(
        self,
        host: str,
        *,
        connect_timeout: float = 5.0,
        read_timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.host = host.rstrip("/")
        self.timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self._client = httpx.Client(base_url=self.host, timeout=self.timeout, transport=transport)

    def __enter__(self) -> OllamaClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def _request(self, method: str, path: str, json: Any = None) -> httpx.Response:
        try:
            resp = self._client.request(method, path, json=json)
        except httpx.ConnectError as exc:
            raise ServerUnavailable(_reason(exc)) from None
        except httpx.TimeoutException as exc:
            raise ServerTimeout(f"{type(exc).__name__} after {self.timeout.read}s") from None
        except httpx.HTTPError as exc:
            raise ServerError(f"{type(exc).__name__}: {exc}") from None
        if resp.status_code >= 400:
            raise ServerHTTPError(resp.status_code, _error_text(resp))
        return resp

    def get_json(self, path: str) -> Any:
        return _json(self._request("GET", path))

    def post_json(self, path: str, body: Any) -> Any:
        return _json(self._request("POST", path, json=body))

    def version(self) -> str:
        """GET /api/version -> the server's version string."""
        data = self.get_json("/api/version")
        if not isinstance(data, dict) or not isinstance(data.get("version"), str):
            raise ServerError(f"/api/version answered {str(data)[:200]!r}, not {{'version': ...}}")
        return str(data["version"])


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if "refused" in text.lower():
        return "connection refused"
    return text


def _error_text(resp: httpx.Response) -> str:
    try:
        data = resp.json()
    except ValueError:
        return resp.text[:200]
    if isinstance(data, dict) and "error" in data:
        return str(data["error"])[:200]
    return str(data)[:200]


def _json(resp: httpx.Response) -> Any:
    try:
        return resp.json()
    except ValueError:
        raise ServerError(f"{resp.request.url.path} answered non-JSON: {resp.text[:200]!r}") from None
