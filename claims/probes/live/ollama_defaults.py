"""What an Ollama server does when nothing is configured: its address and the origins it allows.

These are Ollama's own defaults (``envconfig.Host`` and ``envconfig.AllowedOrigins``
in its source), not settings of the suite: the client side reads them to complete
an ``--ollama-host`` without a port (:mod:`claims.plugin.options`), the private
servers to start one on the default bind (:mod:`claims.probes.live.ollama_serve`),
the claim tests to tell a default server from a configured one, and the fake
``ollama`` executable to imitate one (:mod:`claims.testing.fake_ollama_serve`).
Imported by the plugin's options in every pytest run, so it imports nothing.
"""

from __future__ import annotations

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "DEFAULT_URL", "ORIGIN_HOSTS", "ORIGIN_SCHEMES"]

DEFAULT_HOST = "127.0.0.1"  # OLLAMA_HOST unset: the loopback interface only
DEFAULT_PORT = 11434  # OLLAMA_HOST without a port (an http:// one; https defaults to 443)
DEFAULT_URL = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"

# The origins a server accepts before OLLAMA_ORIGINS adds any: these hosts (on
# http and https, any port) and any origin of these local app schemes.
ORIGIN_HOSTS: tuple[str, ...] = ("localhost", "127.0.0.1", "0.0.0.0")
ORIGIN_SCHEMES: tuple[str, ...] = ("app", "file", "tauri", "vscode-webview", "vscode-file")
