"""The ollama tier's live fixtures come from the plugin, with the user's deadline (issues 33, 35).

A test's own request through the session client (``ollama_client``) against a server
that trickles its reply headers ended only when an outside ``timeout`` killed the run
on 4f018a0 (211 s for a GET /api/tags); now it ends by ``--ollama-timeout``.
"""

from __future__ import annotations

from claims.testing.stalling_server import StallingServer

TEST = """
def test_tags(ollama_client):
    ollama_client.tags()
"""


def test_a_tests_own_request_ends_by_the_users_deadline(claims_pytester):
    claims_pytester.pytester.makepyfile(test_own=TEST)
    with StallingServer("interim", interval_s=0.05) as server:
        # No conftest in this folder: the fixture is the plugin's.
        result = claims_pytester.run(f"--ollama-host={server.url}", "--ollama-timeout=1",
                                     subprocess=True)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ServerTimeout: /api/tags: no reply within 1 s*"])


def test_first_request_shows_the_samples_first_exchange_or_says_why_none() -> None:
    from types import SimpleNamespace

    import pytest

    from claims.plugin.ollama_fixtures import LiveOllama
    from claims.timing.procedures import Timed

    class Check:
        def __init__(self) -> None:
            self.attached: list[tuple[str, dict]] = []

        def fact(self, *_: object) -> None:
            pass

        def attach(self, label: str, content: dict, kind: str) -> None:
            self.attached.append((label, content))

    check = Check()
    settings = SimpleNamespace(ollama_host="http://127.0.0.1:9", ollama_remote=False)
    live = LiveOllama(check, SimpleNamespace(), settings, "0.0.0")  # type: ignore[arg-type]
    timing = SimpleNamespace(final={"done": True, "context": [1, 2]}, text="hi")
    first = Timed("request 1", "repeat", {"model": "m", "prompt": "p"}, timing)  # type: ignore[arg-type]
    pool = SimpleNamespace(items=[first, None], stopped=None)
    assert live.first_request(pool) is first
    (label, content), = check.attached
    assert label == "request 1" and content["request"]["body"]["stream"] is True
    assert '"context"' not in content["reply_excerpt"]  # the token context is left out

    empty = SimpleNamespace(items=[], stopped="the budget cannot reach the first look")
    with pytest.raises(pytest.skip.Exception, match="no request of the shared sample was "
                       r"measured \(the budget cannot reach the first look\)"):
        live.first_request(empty)
