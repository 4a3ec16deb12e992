"""The project's pytest configuration, found again when pytest took an option's value for a path.

Why this exists (a measured shortfall of pytest, not a preference): pytest picks
its rootdir and configuration file (this project's ``pyproject.toml``, with
``--import-mode=importlib``, strict markers, ``xfail_strict`` and ``testpaths``)
from the command line *before* any plugin has added its options. In
``pytest -m ollama --models-dir /srv/models`` the value ``/srv/models`` is then
a test path, the configuration search starts there and finds nothing, and the
run goes on without the project's settings: same-named test modules collide and
errata stop being strict. Installing the plugin as a ``pytest11`` entry point
makes the option known by the time arguments are finally parsed, so the value
is no longer a test path; this hook then repeats pytest's own configuration
search (``_pytest.config.findpaths.determine_setup``) with the arguments parsed
correctly and, if the answer differs, applies it before the initial conftests
load. pytest has no public hook for this, so the private attributes used are
checked and, where they are missing (another pytest version), the user gets a
clear error that says to write ``--option=PATH`` instead.
"""

from __future__ import annotations

import copy
import inspect
from pathlib import Path
from typing import Any

import pytest

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


def _determine(config: pytest.Config, ns: Any) -> tuple[Path, Path | None, Any]:
    from _pytest.config import findpaths

    kwargs: dict[str, Any] = {
        "inifile": ns.inifilename,
        "args": list(ns.file_or_dir),
        "rootdir_cmd_arg": ns.rootdir or None,
        "invocation_dir": config.invocation_params.dir,
    }
    if "override_ini" in inspect.signature(findpaths.determine_setup).parameters:
        kwargs["override_ini"] = ns.override_ini
    found = findpaths.determine_setup(**kwargs)
    rootpath, inipath, inicfg = found[0], found[1], found[2]
    return Path(rootpath), (Path(inipath) if inipath else None), inicfg


def _path_values(args: list[str]) -> list[str]:
    """The values that follow a path option with a space (``--models-dir PATH``)."""
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a in PATH_OPTIONS]


def recover_configuration(config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """Re-run pytest's rootdir/ini search with the suite's options known; apply a change."""
    spaced = _path_values(args)
    if not spaced:
        return
    ns = parser.parse_known_args(args, namespace=copy.copy(config.option))
    rootpath, inipath, inicfg = _determine(config, ns)
    if inipath == config.inipath and rootpath == config.rootpath:
        return
    needed = ("_rootpath", "_inipath", "_inicfg", "_inicache", "known_args_namespace")
    if not all(hasattr(config, name) for name in needed):
        raise pytest.UsageError(
            f"pytest {pytest.__version__} took {spaced[0]!r} for a test path, so it did not "
            "find this project's configuration; write the option as --option=PATH"
        )
    config._rootpath = rootpath
    config._inipath = inipath
    config._inicfg = inicfg
    config._inicache.clear()
    parser.extra_info["rootdir"] = str(rootpath)
    parser.extra_info["inifile"] = str(inipath)
    # The configuration's addopts were never added: add them as pytest does, in front.
    addopts = config.getini("addopts")
    if addopts:
        args[:] = list(addopts) + args
    known = parser.parse_known_args(args, namespace=copy.copy(config.option))
    if known.confcutdir is None:  # pytest's own default: the configuration file's folder
        known.confcutdir = str(inipath.parent if inipath else rootpath)
    config.known_args_namespace = known
