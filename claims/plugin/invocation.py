"""The project's pytest configuration, found again when pytest took an option's value for a path.

Why this exists (a measured shortfall of pytest, not a preference): pytest picks
its rootdir and configuration file (this project's ``pyproject.toml``, with
``--import-mode=importlib``, strict markers, ``xfail_strict`` and ``testpaths``)
from the command line *before* any plugin has added its options. In
``pytest -m ollama --ollama-models-dir /srv/models`` the value ``/srv/models`` is
then a test path, the configuration search starts there and finds nothing, and
the run goes on without the project's settings: same-named test modules collide
and errata stop being strict. Installing the plugin as a ``pytest11`` entry
point makes the option known by the time arguments are finally parsed, so the
value is no longer a test path; this hook then repeats pytest's configuration
search with the arguments parsed correctly and, if the answer differs, applies
it before the initial conftests load. pytest has no public route for that, so
both steps are :mod:`claims.plugin.pytest_private`'s, for the pytest versions it
is tested with; with any other pytest the user gets a clear error that says to
write ``--option=PATH`` instead. Nothing is done when no path option is spaced.
"""

from __future__ import annotations

import copy

import pytest

from claims.plugin import pytest_private

__all__ = ["PATH_OPTIONS", "recover_configuration"]

# The suite's options whose value is a path (each has a destination in Settings).
PATH_OPTIONS = (
    "--ollama-models-dir",
    "--claims-engine-model",
    "--claims-evidence",
    "--claims-report-html",
    "--claims-catalog",
    "--claims-documents",
    # the old spellings, accepted for one release (claims.plugin.options.RENAMED)
    "--models-dir",
    "--engine-model",
    "--evidence",
    "--report-html",
    "--catalog",
)


def _path_values(args: list[str]) -> list[str]:
    """The values that follow a path option with a space (``--ollama-models-dir PATH``)."""
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a in PATH_OPTIONS]


def recover_configuration(config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """Re-run pytest's rootdir/ini search with the suite's options known; apply a change."""
    spaced = _path_values(args)
    if not spaced:
        return

    ns = parser.parse_known_args(args, namespace=copy.copy(config.option))
    try:
        found = pytest_private.find_configuration(config, ns)
        if found[1] == config.inipath and found[0] == config.rootpath:
            return
        pytest_private.apply_configuration(config, parser, args, found)
    except pytest_private.Unsupported as exc:
        raise pytest.UsageError(
            f"{exc}: it took {spaced[0]!r} for a test path, so it did not find this "
            "project's configuration; write the option as --option=PATH"
        ) from None
