"""The environment a private ``ollama serve`` runs with, and what it reports of it.

Ollama reads its settings from ``OLLAMA_*`` variables once, at start
(``envconfig/config.go``), and logs the values it resolved in one line, ``msg="server
config" env="map[KEY:VALUE ...]"``. No endpoint reports them, so that log line is how
a setting (or its default) is observed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "CLAIM_VARIABLES",
    "parse_server_config",
    "server_environment",
]

# The variables the masterclass's server claims are about (section 6.1, Q16-Q20).
CLAIM_VARIABLES = (
    "OLLAMA_NUM_PARALLEL",
    "OLLAMA_MAX_LOADED_MODELS",
    "OLLAMA_KEEP_ALIVE",
    "OLLAMA_CONTEXT_LENGTH",
    "OLLAMA_FLASH_ATTENTION",
)

# One "KEY:VALUE" pair of Go's map formatting; a list value is "[a b c]".
_PAIR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(\[[^\]]*\]|\S*)")
_CONFIG_LINE = re.compile(r'msg="server config" env="map\[(?P<body>.*)\]"')


def server_environment(
    base: Mapping[str, str],
    *,
    models: Path,
    home: Path,
    host: str | None,
    settings: Mapping[str, str],
) -> dict[str, str]:
    """The environment for ``ollama serve``: ``base`` without any ``OLLAMA_*``, plus ours.

    The user's own ``OLLAMA_*`` settings are dropped so that a default is Ollama's
    default, not the user's; ``HOME`` is a private folder because the server writes
    a key pair to ``~/.ollama`` on its first start; ``OLLAMA_NO_CLOUD=1`` stops it
    from calling ollama.com (the suite talks only to loopback). ``host`` None
    leaves ``OLLAMA_HOST`` unset, for observing the default bind.
    """
    env = {k: v for k, v in base.items() if not k.startswith("OLLAMA_")}
    env["HOME"] = str(home)
    env["OLLAMA_MODELS"] = str(models)
    env["OLLAMA_NO_CLOUD"] = "1"
    if host is not None:
        env["OLLAMA_HOST"] = host
    for key, value in settings.items():
        if not key.startswith("OLLAMA_") or key in ("OLLAMA_HOST", "OLLAMA_MODELS"):
            raise ValueError(f"not a server setting the suite varies: {key}")
        env[key] = value
    return env


def parse_server_config(log: str) -> dict[str, str] | None:
    """The settings of the last ``server config`` line in a server log; None if there is none.

    Values are the text Ollama printed ("1", "5m0s", "false", "[http://localhost ...]").
    """
    found = None
    for line in log.splitlines():
        m = _CONFIG_LINE.search(line)
        if m is not None:
            found = m.group("body")
    if found is None:
        return None
    return {m.group(1): m.group(2) for m in _PAIR.finditer(found)}
