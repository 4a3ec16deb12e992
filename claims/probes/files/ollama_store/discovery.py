"""Where an Ollama store is: ``--ollama-models-dir``, ``$OLLAMA_MODELS``, then the default
places."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from claims.probes.errors import PrerequisiteMissing

__all__ = ["SERVICE_STORE", "USER_STORE_RELATIVE", "locate_store", "store_candidates"]

# Where Ollama keeps models when OLLAMA_MODELS is unset: the Linux install
# script runs the server as the `ollama` user whose home is /usr/share/ollama;
# a server started by hand uses the user's own home.
SERVICE_STORE = Path("/usr/share/ollama/.ollama/models")
USER_STORE_RELATIVE = Path(".ollama/models")


def store_candidates(
    option: str | None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    service_store: Path = SERVICE_STORE,
) -> list[tuple[str, Path]]:
    """The places a store is looked for, in order, each with where it came from.

    An explicit ``--ollama-models-dir`` wins, then ``$OLLAMA_MODELS``; when either is
    given it is the only candidate, as it is for Ollama itself. Otherwise the
    Linux service store, then the user's ``~/.ollama/models``.
    """
    environ = os.environ if env is None else env
    if option:
        return [("--ollama-models-dir", Path(option).expanduser())]
    if environ.get("OLLAMA_MODELS"):
        return [("$OLLAMA_MODELS", Path(environ["OLLAMA_MODELS"]).expanduser())]
    user_home = Path(home) if home is not None else Path(environ.get("HOME") or Path.home())
    return [("Linux service store", service_store), ("user store", user_home / USER_STORE_RELATIVE)]


def locate_store(
    option: str | None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    service_store: Path = SERVICE_STORE,
) -> Path:
    """The first candidate folder that exists; PrerequisiteMissing listing the places looked."""
    candidates = store_candidates(option, env=env, home=home, service_store=service_store)
    for _, path in candidates:
        if path.is_dir():
            return path
    looked = "; ".join(f"{label} {path}" for label, path in candidates)
    raise PrerequisiteMissing(f"no Ollama model store found (looked in: {looked})")
