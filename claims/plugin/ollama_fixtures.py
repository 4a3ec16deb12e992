"""The ollama tier's live fixtures: the session's client of the server, the model under
test, and ``live``, one test's view of the server with its evidence recording.

They live in the plugin (not in a conftest) so every claim test, the suite's own or
a user's, talks to the server through the one client the rest of the run uses:
:func:`claims.probes.live.ollama_api.factory.client_from`, with the user's
``--ollama-timeout`` as each request's deadline and the breaker that stops the tier
after the first request that times out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from claims.plugin.options import Settings
from claims.plugin.outcomes import not_run

__all__ = ["LiveOllama", "ServerModel", "live", "ollama_client", "ollama_model",
           "ollama_version"]

# Every request goes through one session client whose deadline is --ollama-timeout
# (default 120 s) end to end: connection, a cold load before the first chunk (phi4
# loads in ~6 s on the Spark), and the whole reply or stream (96 tokens take ~4 s
# there), whatever longer total a test asks for. The stall timeout bounds the
# silence between two chunks once a stream has begun (Ollama's own integration
# tests use 30 s). The first request that times out stops the tier: the server is
# wedged, and every later test would wait out its own timeout (issue 22), so the
# remaining ollama tests are not run, naming the request that hung. The breaker is per
# process (claims.probes.live.ollama_api.breaker): under xdist each worker pays that
# one timeout.
# Nothing here unloads, pulls, creates or deletes without its opt-in flag.

REPLY_EXCERPT_CHARS = 1500


@pytest.fixture(scope="session")
def ollama_client(claims_settings: Settings, tiers: Any) -> Iterator[Any]:
    """The session's one client of the server (the user's deadline and the breaker)."""
    import os

    from claims.probes.live.ollama_api.factory import client_from
    from claims.probes.live.ollama_api.usage import Usage

    timeout = claims_settings.ollama_timeout
    with client_from(claims_settings, breaker=True) as client:

        def stop_tier(hung: str) -> None:
            # PYTEST_CURRENT_TEST is pytest's documented "which test is running".
            test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
            tiers.stop(
                "ollama",
                f"the Ollama server stopped answering: {hung}"
                + (f" (in {test})" if test else "")
                + f"; --ollama-timeout is {timeout:g} s; the tier's remaining tests are not run",
            )

        client.on_stop = stop_tier
        # Count what the session costs the server (loads, generated tokens, bounds).
        client.usage = Usage()
        yield client


@pytest.fixture(scope="session")
def ollama_version(ollama_client: Any) -> str:
    version: str = ollama_client.version()
    return version


class ServerModel:
    """A model as the server lists it (/api/tags) and describes it (/api/show)."""

    def __init__(self, name: str, entry: dict[str, Any], show: dict[str, Any]) -> None:
        self.name = name
        self.entry = entry
        self.show = show

    @property
    def digest(self) -> str:
        return str(self.entry.get("digest", ""))

    @property
    def size(self) -> int | None:
        size = self.entry.get("size")
        return size if isinstance(size, int) else None

    @property
    def model_info(self) -> dict[str, Any]:
        info = self.show.get("model_info")
        return info if isinstance(info, dict) else {}

    @property
    def architecture(self) -> str | None:
        arch = self.model_info.get("general.architecture")
        return arch if isinstance(arch, str) else None

    def info(self, suffix: str) -> Any:
        """model_info[<arch>.<suffix>] (e.g. "context_length")."""
        return self.model_info.get(f"{self.architecture}.{suffix}")


def _server_model(client: Any, settings: Settings, name: str) -> ServerModel:
    from claims.probes.live.ollama_api import find_model

    entry = find_model(client.tags(), name)
    if entry is None:
        if not settings.allow_pull:
            not_run(f"model {name} is not on the server; pull it or pass --ollama-allow-pull")
        client.pull(name, total_timeout=3600.0)
        entry = find_model(client.tags(), name)
        if entry is None:
            not_run(f"model {name} is still not listed after pulling it")
    return ServerModel(str(entry.get("name") or name), entry, client.show(name))


@pytest.fixture(scope="session")
def ollama_model(ollama_client: Any, claims_settings: Settings) -> ServerModel:
    """The model under test (--ollama-model, default phi4), present on the server."""
    return _server_model(ollama_client, claims_settings, claims_settings.ollama_model)


class LiveOllama:
    """The ollama tier's view of one test: the client plus evidence recording.

    Every exchange it makes is attached to the check (request body and an
    excerpt of the reply), and the server version and host are recorded as facts.
    Its tests are on the ollama tier, so their evidence source is "live".
    """

    def __init__(self, check: Any, client: Any, settings: Settings, version: str) -> None:
        self.check = check
        self.client = client
        self.settings = settings
        self.version = version
        self._model: ServerModel | None = None
        check.fact("ollama_version", version)
        check.fact("ollama_host", settings.ollama_host)
        if settings.ollama_remote:
            check.fact("ollama_remote", True)  # measured on another machine
        # The session's running totals, so the run's facts end with the whole tier's cost.
        if getattr(client, "usage", None) is not None:
            check.fact("ollama_usage", client.usage.to_json())
            client.on_usage = lambda usage: check.fact("ollama_usage", usage.to_json())

    @property
    def model_name(self) -> str:
        """The model under test (--ollama-model), checked once to be on the server.

        A request naming a model the server lacks would fail with its 404, which
        says nothing about the claim: such a test is not run, naming the model.
        """
        if self._model is None:
            self._model = self.model(self.settings.ollama_model)
        return self.settings.ollama_model

    def exchange(self, label: str, method: str, path: str, body: Any, reply: Any) -> None:
        import json

        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        if len(text) > REPLY_EXCERPT_CHARS:
            text = text[:REPLY_EXCERPT_CHARS] + f" … [{len(text) - REPLY_EXCERPT_CHARS} more chars]"
        self.check.attach(
            label,
            {
                "request": {
                    "method": method,
                    "url": f"{self.settings.ollama_host}{path}",
                    "body": body,
                },
                "reply_excerpt": text,
            },
            kind="http",
        )

    def model(self, name: str | None = None) -> ServerModel:
        model = _server_model(self.client, self.settings, name or self.model_name)
        self.check.fact(f"model_digest:{model.name}", model.digest)
        return model

    def generate(self, label: str, body: dict[str, Any]) -> dict[str, Any]:
        """A non-streaming /api/generate with ``body`` (stream false is added)."""
        return self._post_once(label, "/api/generate", body)

    def chat(self, label: str, body: dict[str, Any]) -> dict[str, Any]:
        """A non-streaming /api/chat with ``body`` (stream false is added)."""
        return self._post_once(label, "/api/chat", body)

    def _post_once(self, label: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
        from claims.probes.live.ollama_api.usage import bound_of

        if bound_of(path, body) is None and (body.get("prompt") or body.get("messages")):
            from claims.check import CheckUsageError

            # A test's own mistake, reported as an error, never as a verdict.
            raise CheckUsageError(f"{label}: an unbounded generation (set num_predict)")
        body = {**body, "stream": False}
        reply: dict[str, Any] = self.client.post_json(path, body)
        self.exchange(label, "POST", path, body, reply)
        return reply

    def timed(self, label: str, path: str, body: dict[str, Any]) -> Any:
        """A streamed request timed by the TTFT instrument (claims.probes.live.timing)."""
        from claims.probes.live.timing import measure_stream

        timing = measure_stream(
            self.client,
            path,
            body,
            text_key="message" if path == "/api/chat" else "response",
        )  # bounded by the client's deadline (--ollama-timeout) and the body's num_predict
        final = {k: v for k, v in timing.final.items() if k != "context"}
        self.exchange(
            label,
            "POST",
            path,
            {**body, "stream": True},
            {"streamed_text": timing.text, "final_chunk": final, "lines": timing.lines},
        )
        return timing

    def first_request(self, pool: Any) -> Any:
        """The first request of a shared sample (claims.timing.pools), its exchange attached.

        A claim that reads the sample shows one request as it was sent and answered;
        a sample that measured nothing leaves the claim not run, saying why.
        """
        if not pool.items:
            not_run(f"no request of the shared sample was measured ({pool.stopped})")
        first = pool.items[0]
        self.exchange(first.label, "POST", "/api/generate", *first.exchange()[1:])
        return first

    def client_ps_entry(self, name: str | None = None) -> dict[str, Any] | None:
        """The model's /api/ps entry, without attaching the exchange (for polling)."""
        from claims.probes.live.ollama_api import find_model

        return find_model(self.client.ps(), name or self.model_name)

    def ps_entry(self, name: str | None = None) -> dict[str, Any] | None:
        from claims.probes.live.ollama_api import find_model

        models = self.client.ps()
        self.exchange("GET /api/ps", "GET", "/api/ps", None, {"models": models})
        return find_model(models, name or self.model_name)

    def unload(self, name: str | None = None) -> Any:
        """Unload a model (opt-in: --ollama-allow-unload) and wait until /api/ps drops it."""
        from claims.plugin.outcomes import needs_flag

        needs_flag(
            self.settings.allow_unload, "--ollama-allow-unload", "unloading a model (a cold start)"
        )
        result = self.client.unload(name or self.model_name, timeout=60.0)
        self.check.observe(
            "unload: seconds until /api/ps dropped the model",
            round(result.seconds_until_gone, 3),
            unit="s",
        )
        return result

    def matching_store(self, model: ServerModel) -> Any:
        """(store, manifest) of the server's own store for ``model``, or why not (a str).

        A store on this machine counts only when its manifest for the model has
        the SHA-256 the server lists as the model's digest: another store (a
        copy, another user's) would describe a different file.
        """
        from claims.probes.errors import ProbeError
        from claims.probes.files.ollama_store import OllamaStore, locate_store

        try:
            store = OllamaStore(locate_store(self.settings.models_dir))
            manifest = store.manifest(model.name)
        except ProbeError as exc:
            return f"no readable model store for {model.name} ({exc}); pass --ollama-models-dir"
        except OSError as exc:
            return f"the model store cannot be read ({exc.strerror}); pass --ollama-models-dir"
        if manifest.digest != model.digest:
            return (
                f"the store at {store.root} has a different {model.name} (manifest "
                f"{manifest.digest[:12]}, server {model.digest[:12]}); pass --ollama-models-dir"
            )
        self.check.fact("ollama_store", str(store.root))
        return store, manifest


def current_version(client: Any, first: str) -> str:
    """What /api/version answers now (``first``, the session's, if it cannot be asked).

    Asked again for every test: a server upgraded or replaced during a run measures
    with another release, and each check records the one it ran against (the evidence
    then lists every version seen, and the report says the version changed).
    """
    from claims.probes.errors import ProbeError

    try:
        version: str = client.version()
    except ProbeError:
        return first
    return version


@pytest.fixture
def live(
    check: Any, ollama_client: Any, ollama_version: str, claims_settings: Settings
) -> LiveOllama:
    """The live Ollama server for one claim test, with evidence recording."""
    version = current_version(ollama_client, ollama_version)
    if version != ollama_version:
        check.fact("ollama_version_at_start", ollama_version)
    return LiveOllama(check, ollama_client, claims_settings, version)
