"""claims.plugin.options: OLLAMA_HOST-style values become base URLs."""

from __future__ import annotations

import pytest

from claims.plugin.options import normalize_host


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        (":11434", "http://127.0.0.1:11434"),
        ("0.0.0.0:11434", "http://127.0.0.1:11434"),
        ("localhost:8080", "http://localhost:8080"),
        ("http://127.0.0.1:11434/", "http://127.0.0.1:11434"),
        ("https://ollama.example", "https://ollama.example:443"),
        ("::1", "http://[::1]:11434"),
        ("[::1]", "http://[::1]:11434"),
        ("[::1]:9000", "http://[::1]:9000"),
        ("[::]:11434", "http://[::1]:11434"),
    ],
)
def test_host_values_become_base_urls(raw, url):
    assert normalize_host(raw) == url
