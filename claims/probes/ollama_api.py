"""Ollama's HTTP API, measured from the client side with httpx.

Every request has explicit connect and read timeouts, and every reply is read
with a size cap, so a broken or hostile server ends a probe with one clear
:class:`~claims.probes.errors.ServerError` instead of a hang or unbounded
memory. The errors, from the outside in:

* :class:`ServerUnavailable` - nothing answered at the address (refused, unreachable).
* :class:`ServerTimeout` - the server accepted the connection but did not answer,
  or a stream stalled, within the configured time.
* :class:`ServerHTTPError` - an HTTP error status (404 unknown model, 500...).
* :class:`StreamError` - a streamed reply broke: a line that is not JSON, an
  ``{"error": ...}`` line after the stream began, a stream that ended before
  its final ``done: true`` object, or a line or reply over the size cap.
* :class:`ReplyError` - a reply that is JSON but not the shape the endpoint
  documents (a missing field, a wrong type).

Streaming replies (NDJSON, one JSON object per line) are read chunk by chunk;
each line is stamped with :func:`time.perf_counter_ns` when the bytes that
complete it arrive, *before* it is parsed, which is what the TTFT measurement in
:mod:`claims.probes.timing` relies on. Endpoint facts (fields, versions) follow
the project's notes on Ollama's source rather than its marketing documents.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

from claims.probes.errors import ServerError

__all__ = [
    "OllamaClient",
    "ReplyError",
    "ServerHTTPError",
    "ServerTimeout",
    "ServerUnavailable",
    "StreamError",
    "StreamLine",
    "StructuredReply",
    "UnloadResult",
    "find_model",
    "normalize_model_name",
]

# Caps on what one reply may make us hold. The largest legitimate NDJSON line is
# generate's final chunk with the whole `context` array (~7 bytes per token, so
# about 1 MB at 128k tokens); embeddings of a batch stay far below the reply cap.
MAX_LINE_BYTES = 8 * 1024 * 1024
MAX_STREAM_BYTES = 64 * 1024 * 1024
MAX_REPLY_BYTES = 32 * 1024 * 1024
DEFAULT_STALL_TIMEOUT = 30.0  # seconds between two chunks, as Ollama's own integration tests
ANY_API_KEY = "ollama"  # Ollama ignores the key; OpenAI clients insist on sending one


class ServerUnavailable(ServerError):
    """Nothing answered at the address (refused, unreachable, DNS failure)."""


class ServerTimeout(ServerError):
    """The server accepted the request but did not answer (or went quiet) in time."""


class ServerHTTPError(ServerError):
    """The server answered with an HTTP error status."""

    def __init__(self, status: int, message: str, path: str | None = None) -> None:
        where = f"{path}: " if path else ""
        super().__init__(f"{where}HTTP {status}: {message}")
        self.status = status
        self.path = path


class StreamError(ServerError):
    """A streamed reply broke; ``line`` is the 1-based NDJSON line where it did."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        parts = [p for p in (path, f"line {line}" if line is not None else None) if p]
        prefix = ", ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.path = path
        self.line = line
        self.problem = message


class ReplyError(ServerError):
    """A JSON reply that lacks a field the endpoint documents, or has the wrong type."""


@dataclass(frozen=True)
class StreamLine:
    """One NDJSON line of a streamed reply.

    ``received_ns`` is :func:`time.perf_counter_ns` when the bytes completing the
    line arrived, taken before the line was split off or parsed.
    """

    index: int
    received_ns: int
    raw: bytes
    data: dict[str, Any]


@dataclass(frozen=True)
class UnloadResult:
    """How an unload went: seconds until /api/ps no longer listed the model."""

    model: str
    done_reason: str | None
    seconds_until_gone: float
    polls: int


@dataclass(frozen=True)
class StructuredReply:
    """A reply requested with ``format`` = a JSON schema, and its validation."""

    text: str
    value: Any
    errors: tuple[str, ...]
    reply: dict[str, Any]

    @property
    def valid(self) -> bool:
        return self.value is not None and not self.errors


def normalize_model_name(name: str) -> str:
    """'phi4' -> 'phi4:latest'; names with a tag or a namespace keep them."""
    name = name.strip()
    last = name.rsplit("/", 1)[-1]
    return name if ":" in last else f"{name}:latest"


def find_model(models: Sequence[Mapping[str, Any]], name: str) -> dict[str, Any] | None:
    """The entry of /api/tags or /api/ps whose name (or model) is ``name``."""
    wanted = normalize_model_name(name)
    for entry in models:
        for key in ("name", "model"):
            value = entry.get(key)
            if isinstance(value, str) and normalize_model_name(value) == wanted:
                return dict(entry)
    return None


def _seconds(value: float | None) -> str:
    return "no limit" if value is None else f"{value:g} s"


class OllamaClient:
    """A small synchronous client for one Ollama server.

    ``read_timeout`` bounds the wait for a reply's first bytes (a cold model
    load happens inside that wait); ``stall_timeout`` bounds the silence
    between two chunks of a stream once it has begun.
    """

    def __init__(
        self,
        host: str,
        *,
        connect_timeout: float = 5.0,
        read_timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
        stall_timeout: float | None = None,
    ) -> None:
        self.host = host.rstrip("/")
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.stall_timeout = (
            min(read_timeout, DEFAULT_STALL_TIMEOUT) if stall_timeout is None else stall_timeout
        )
        self.timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        if transport is None:
            # httpx writes a request's headers and body separately; with Nagle's
            # algorithm the body could wait for an ACK and inflate every TTFT.
            # Ollama's Go server sets TCP_NODELAY on its side already.
            transport = httpx.HTTPTransport(
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
            )
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

    # --- transport ---------------------------------------------------------------
    def _timeouts(self, read: float | None) -> dict[str, float | None]:
        # httpx's documented "timeout" request extension; we keep a reference to
        # the dict so a stream can tighten its read timeout once the headers are in.
        return {
            "connect": self.connect_timeout,
            "read": self.read_timeout if read is None else read,
            "write": self.connect_timeout,
            "pool": self.connect_timeout,
        }

    def _open(
        self,
        method: str,
        path: str,
        body: Any,
        timeouts: dict[str, float | None],
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        request = self._client.build_request(
            method, path, json=body, headers=headers, extensions={"timeout": timeouts}
        )
        try:
            resp = self._client.send(request, stream=True)
        # Unavailability is about the server, not the endpoint: no path in the message.
        except httpx.ConnectTimeout:
            raise ServerUnavailable(
                f"no connection within {_seconds(timeouts['connect'])}"
            ) from None
        except httpx.ConnectError as exc:
            raise ServerUnavailable(_reason(exc)) from None
        except httpx.TimeoutException as exc:
            raise ServerTimeout(
                f"{path}: no reply within {_seconds(timeouts['read'])} ({type(exc).__name__})"
            ) from None
        except httpx.HTTPError as exc:
            raise ServerError(f"{path}: {type(exc).__name__}: {exc}") from None
        if resp.status_code >= 400:
            try:
                text = _error_text(_read_capped(resp, 64 * 1024, path, timeouts))
            except ServerError as exc:
                text = f"(error body unreadable: {exc})"
            finally:
                resp.close()
            raise ServerHTTPError(resp.status_code, text, path)
        return resp

    def _request(
        self,
        method: str,
        path: str,
        json: Any = None,
        *,
        read_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> bytes:
        timeouts = self._timeouts(read_timeout)
        resp = self._open(method, path, json, timeouts, headers)
        try:
            return _read_capped(resp, MAX_REPLY_BYTES, path, timeouts)
        finally:
            resp.close()

    def get_json(self, path: str, *, read_timeout: float | None = None) -> Any:
        return _json(self._request("GET", path, read_timeout=read_timeout), path)

    def post_json(
        self,
        path: str,
        body: Any,
        *,
        read_timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        raw = self._request("POST", path, json=body, read_timeout=read_timeout, headers=headers)
        return _json(raw, path)

    def stream(
        self,
        path: str,
        body: Any,
        *,
        first_chunk_timeout: float | None = None,
        stall_timeout: float | None = None,
        total_timeout: float | None = None,
        finished: Callable[[dict[str, Any]], bool] | None = None,
    ) -> Iterator[StreamLine]:
        """POST ``body`` and yield the NDJSON reply line by line.

        ``first_chunk_timeout`` (default: the client's read timeout) bounds the
        wait for the reply to start; ``stall_timeout`` the gap between later
        chunks; ``total_timeout`` the whole stream. ``finished`` says which
        object ends the stream (default: ``done: true``); a stream that closes
        before it raises :class:`StreamError`, as do malformed lines and
        ``{"error": ...}`` lines.
        """
        finished = finished or _is_done
        stall = self.stall_timeout if stall_timeout is None else stall_timeout
        timeouts = self._timeouts(first_chunk_timeout)
        started = time.monotonic()
        resp = self._open("POST", path, body, timeouts)
        # Ollama sends its headers together with the first chunk (after a cold
        # load), so the headers wait was the first-chunk wait; from here on a
        # read only has to beat the stall timeout.
        timeouts["read"] = stall
        index = 0
        total = 0
        buffer = b""
        try:
            chunks = resp.iter_bytes()
            while True:
                try:
                    chunk = next(chunks)
                except StopIteration:
                    break
                except httpx.ReadTimeout:
                    what = "first line" if index == 0 else f"line {index + 1}"
                    raise ServerTimeout(
                        f"{path}: stream stalled: no data for {_seconds(stall)} "
                        f"while waiting for the {what}"
                    ) from None
                except httpx.HTTPError as exc:
                    raise StreamError(
                        f"connection broke after {index} complete line(s): {_reason(exc)}",
                        path=path,
                        line=index + 1,
                    ) from None
                received = time.perf_counter_ns()
                total += len(chunk)
                if total > MAX_STREAM_BYTES:
                    raise StreamError(f"stream exceeds {MAX_STREAM_BYTES} bytes", path=path)
                # Search only the new bytes for a newline: a long line arriving in
                # many chunks must not be rescanned from its start each time.
                scan_from = len(buffer)
                buffer += chunk
                while True:
                    cut = buffer.find(b"\n", scan_from)
                    if cut < 0:
                        break
                    raw, buffer = buffer[:cut], buffer[cut + 1 :]
                    scan_from = 0
                    if not raw.strip():
                        continue
                    index += 1
                    data = _parse_line(raw, path, index)
                    yield StreamLine(index=index, received_ns=received, raw=raw, data=data)
                    if finished(data):
                        _drain(chunks)
                        return
                if len(buffer) > MAX_LINE_BYTES:
                    raise StreamError(
                        f"a line exceeds {MAX_LINE_BYTES} bytes without a newline",
                        path=path,
                        line=index + 1,
                    )
                if total_timeout is not None and time.monotonic() - started > total_timeout:
                    raise ServerTimeout(
                        f"{path}: stream still running after {_seconds(total_timeout)}"
                    )
            if buffer.strip():  # a last line without its newline still counts
                index += 1
                data = _parse_line(buffer, path, index)
                yield StreamLine(
                    index=index, received_ns=time.perf_counter_ns(), raw=buffer, data=data
                )
                if finished(data):
                    return
            raise StreamError(
                f"stream ended after {index} line(s) without its final object (done: true)",
                path=path,
            )
        finally:
            resp.close()

    # --- endpoints ---------------------------------------------------------------
    def version(self) -> str:
        """GET /api/version -> the server's version string."""
        data = self.get_json("/api/version")
        if not isinstance(data, dict) or not isinstance(data.get("version"), str):
            raise ServerError(f"/api/version answered {str(data)[:200]!r}, not {{'version': ...}}")
        return str(data["version"])

    def tags(self) -> list[dict[str, Any]]:
        """GET /api/tags -> the models on the server (name, digest, size, details)."""
        return _models(self.get_json("/api/tags"), "/api/tags")

    def ps(self) -> list[dict[str, Any]]:
        """GET /api/ps -> the loaded models (size, size_vram, context_length, expires_at)."""
        return _models(self.get_json("/api/ps"), "/api/ps")

    def show(self, model: str, *, verbose: bool = False) -> dict[str, Any]:
        """POST /api/show -> details, model_info, parameters, template, capabilities."""
        body: dict[str, Any] = {"model": model}
        if verbose:
            body["verbose"] = True
        return _object(self.post_json("/api/show", body), "/api/show")

    def generate(
        self,
        model: str,
        prompt: str,
        *,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | float | None = None,
        format: Any = None,
        system: str | None = None,
        raw: bool | None = None,
        stream: bool | None = False,
    ) -> dict[str, Any]:
        """POST /api/generate and return the one reply object.

        ``stream=False`` asks for one object; ``stream=None`` leaves the field
        out (Ollama then streams, and this reads the stream to its final object
        and returns that, with the streamed text joined into ``response``).
        """
        body = _body(model, prompt=prompt, options=options, keep_alive=keep_alive,
                     format=format, system=system, raw=raw, stream=stream)
        if stream is False:
            return _object(self.post_json("/api/generate", body), "/api/generate")
        return _joined(self.stream("/api/generate", body), "response")

    def chat(
        self,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | float | None = None,
        format: Any = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        stream: bool | None = False,
    ) -> dict[str, Any]:
        """POST /api/chat and return the reply object (streams joined as in generate)."""
        body = _body(model, messages=list(messages), options=options, keep_alive=keep_alive,
                     format=format, tools=list(tools) if tools is not None else None, stream=stream)
        if stream is False:
            return _object(self.post_json("/api/chat", body), "/api/chat")
        return _joined(self.stream("/api/chat", body), "message")

    def load(
        self,
        model: str,
        *,
        keep_alive: str | float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Load ``model`` with an empty prompt (the reply says done_reason "load")."""
        body = _body(model, prompt="", options=options, keep_alive=keep_alive, stream=False)
        return _object(self.post_json("/api/generate", body), "/api/generate")

    def unload(
        self, model: str, *, timeout: float = 30.0, poll_interval: float = 0.2
    ) -> UnloadResult:
        """Unload ``model`` (empty prompt, keep_alive 0) and wait until /api/ps drops it.

        Unloading is asynchronous on the server, so the reply alone proves
        nothing; /api/ps is polled every ``poll_interval`` seconds for at most
        ``timeout`` seconds (then :class:`ServerTimeout`).
        """
        reply = _object(
            self.post_json("/api/generate", {"model": model, "keep_alive": 0, "stream": False}),
            "/api/generate",
        )
        started = time.monotonic()
        polls = 0
        while True:
            polls += 1
            if find_model(self.ps(), model) is None:
                return UnloadResult(
                    model=model,
                    done_reason=reply.get("done_reason"),
                    seconds_until_gone=time.monotonic() - started,
                    polls=polls,
                )
            if time.monotonic() - started > timeout:
                raise ServerTimeout(
                    f"/api/ps still lists {model} {timeout:g} s after keep_alive 0 ({polls} polls)"
                )
            time.sleep(poll_interval)

    def embed(self, model: str, inputs: str | Sequence[str]) -> dict[str, Any]:
        """POST /api/embed -> {embeddings: one vector per input}; checks the count."""
        body = {"model": model, "input": inputs if isinstance(inputs, str) else list(inputs)}
        reply = _object(self.post_json("/api/embed", body), "/api/embed")
        vectors = reply.get("embeddings")
        expected = 1 if isinstance(inputs, str) else len(inputs)
        if not isinstance(vectors, list) or not all(isinstance(v, list) for v in vectors):
            raise ReplyError(
                f"/api/embed: 'embeddings' is not a list of vectors: {str(vectors)[:120]}"
            )
        if len(vectors) != expected:
            raise ReplyError(f"/api/embed: {len(vectors)} vector(s) for {expected} input(s)")
        return reply

    def openai_chat(
        self,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        api_key: str = ANY_API_KEY,
        **params: Any,
    ) -> dict[str, Any]:
        """POST /v1/chat/completions the way an OpenAI client does (Bearer key)."""
        body = {"model": model, "messages": list(messages), **params}
        reply = _object(
            self.post_json(
                "/v1/chat/completions", body, headers={"Authorization": f"Bearer {api_key}"}
            ),
            "/v1/chat/completions",
        )
        choices = reply.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ReplyError(f"/v1/chat/completions: no choices in {str(reply)[:200]}")
        return reply

    def openai_models(self, *, api_key: str = ANY_API_KEY) -> list[dict[str, Any]]:
        """GET /v1/models -> the OpenAI-shaped model list (``data``)."""
        raw = self._request("GET", "/v1/models", headers={"Authorization": f"Bearer {api_key}"})
        reply = _object(_json(raw, "/v1/models"), "/v1/models")
        data = reply.get("data")
        if not isinstance(data, list):
            raise ReplyError(f"/v1/models: 'data' is not a list: {str(reply)[:200]}")
        return [d for d in data if isinstance(d, dict)]

    def structured(
        self,
        model: str,
        prompt: str,
        schema: Mapping[str, Any],
        *,
        options: Mapping[str, Any] | None = None,
    ) -> StructuredReply:
        """Generate with ``format`` = ``schema`` and validate the text with jsonschema."""
        import jsonschema

        reply = self.generate(model, prompt, options=options, format=dict(schema))
        text = reply.get("response")
        if not isinstance(text, str):
            raise ReplyError(f"/api/generate: no 'response' text in {str(reply)[:200]}")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            return StructuredReply(text, None, (f"not JSON: {exc.msg} at {exc.pos}",), reply)
        validator = jsonschema.Draft202012Validator(dict(schema))
        errors = tuple(
            f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
            for e in validator.iter_errors(value)
        )
        return StructuredReply(text, value, errors, reply)

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
        reply = _object(self.post_json("/api/create", body), "/api/create")
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
        with open(path, "rb") as fh:
            timeouts = self._timeouts(None)
            request = self._client.build_request(
                "POST", where, content=fh, extensions={"timeout": timeouts}
            )
            try:
                resp = self._client.send(request)
            except httpx.TimeoutException:
                raise ServerTimeout(f"{where}: upload not answered in time") from None
            except httpx.HTTPError as exc:
                raise ServerError(f"{where}: {type(exc).__name__}: {exc}") from None
        if resp.status_code >= 400:
            raise ServerHTTPError(resp.status_code, _error_text(resp.content), where)
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
        )
        return [line.data for line in lines]


# --- helpers -----------------------------------------------------------------------
def _drain(chunks: Iterator[bytes], limit: int = 64 * 1024) -> None:
    """Read the little that follows the final object (the chunked terminator).

    A response closed with unread body bytes cannot go back to the connection
    pool, and every next request would pay for a new TCP connection inside its
    measured time. Anything past ``limit`` bytes, or any error, just closes it.
    """
    seen = 0
    try:
        for chunk in chunks:
            seen += len(chunk)
            if seen > limit:
                return
    except httpx.HTTPError:
        return


def _is_done(data: Mapping[str, Any]) -> bool:
    return data.get("done") is True


def _body(model: str, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model}
    for key, value in fields.items():
        if value is None:
            continue
        body[key] = dict(value) if key == "options" else value
    return body


def _joined(lines: Iterator[StreamLine], key: str) -> dict[str, Any]:
    parts: list[str] = []
    final: dict[str, Any] = {}
    for line in lines:
        text = _text_of(line.data, key)
        if text:
            parts.append(text)
        final = line.data
    out = dict(final)
    if key == "message":
        message = dict(out.get("message") or {"role": "assistant"})
        message["content"] = "".join(parts)
        out["message"] = message
    else:
        out[key] = "".join(parts)
    return out


def _text_of(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if key == "message" and isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else ""


def _parse_line(raw: bytes, path: str, index: int) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        shown = raw[:80].decode("utf-8", "replace")
        raise StreamError(f"not JSON ({exc}): {shown!r}", path=path, line=index) from None
    if not isinstance(data, dict):
        raise StreamError(f"a {type(data).__name__}, not a JSON object", path=path, line=index)
    if "error" in data:
        raise StreamError(f"server reported an error mid-stream: {str(data['error'])[:200]}",
                          path=path, line=index)
    return data


def _read_capped(
    resp: httpx.Response, limit: int, path: str, timeouts: Mapping[str, float | None]
) -> bytes:
    out = bytearray()
    try:
        for chunk in resp.iter_bytes():
            out += chunk
            if len(out) > limit:
                raise ServerError(f"{path}: reply exceeds {limit} bytes")
    except httpx.ReadTimeout:
        raise ServerTimeout(
            f"{path}: reply body stalled for {_seconds(timeouts['read'])}"
        ) from None
    except httpx.HTTPError as exc:
        raise ServerError(f"{path}: reply broke off: {_reason(exc)}") from None
    return bytes(out)


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if "refused" in text.lower():
        return "connection refused"
    return text


def _error_text(raw: bytes) -> str:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return raw[:200].decode("utf-8", "replace")
    if isinstance(data, dict) and "error" in data:
        return str(data["error"])[:200]
    return str(data)[:200]


def _json(raw: bytes, path: str) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        shown = raw[:200].decode("utf-8", "replace")
        raise ReplyError(f"{path} answered non-JSON: {shown!r}") from None


def _object(data: Any, path: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ReplyError(f"{path} answered a {type(data).__name__}, not a JSON object")
    if "error" in data:
        raise ServerError(f"{path}: {str(data['error'])[:200]}")
    return data


def _models(data: Any, path: str) -> list[dict[str, Any]]:
    obj = _object(data, path)
    models = obj.get("models")
    if not isinstance(models, list) or not all(isinstance(m, dict) for m in models):
        raise ReplyError(f"{path}: 'models' is not a list of objects: {str(models)[:200]}")
    return models
