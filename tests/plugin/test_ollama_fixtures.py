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
