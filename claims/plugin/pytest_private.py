"""The one module that touches pytest's private API, for a pinned range of versions.

Everything else in the package uses pytest's public API only. Two things have no
public route, and both are used here only when the running pytest is inside
:data:`TESTED`, the range the suite's own tests exercise (CI: the version
pyproject.toml resolves to); outside it, the caller gets :class:`Unsupported`
and says what to do instead.

* :func:`apply_configuration` - pytest chooses its rootdir and configuration
  file from the command line *before* a plugin's options are known
  (``Config.parse``), so in ``pytest --ollama-models-dir /srv/models`` the
  value is taken for a test path and the search starts there. The plugin then
  repeats pytest's search with the arguments parsed correctly and, when the
  answer differs, applies it as ``Config.parse`` would have: rootdir,
  configuration file and values, ignored configuration files, the file's
  ``addopts`` (and the ``-o`` overrides they carry), the known-args namespace
  and its confcutdir. ``--option=PATH`` never needs it.
* :func:`basetemp` - the numbered temporary folder this session's ``tmp_path`` lives
  in, so the evidence can write it one way (:mod:`claims.plugin.tmp_paths`); only the
  session's own, so a path of another session (a pytester run's project) stays real.
* :func:`run_unlogged` - ``claims audit`` reruns a test item with pytest's own
  run protocol but without logging its reports (``runtestprotocol(log=False)``),
  so the terminal and the evidence writer see none of the reruns.
* :func:`mark_expression` - a ``-m`` expression read by pytest's own parser
  (``_pytest.mark.expression``), so the plugin decides where a run's evidence goes
  (:mod:`claims.plugin.destination`) from the selection pytest will make, not a guess.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "TESTED",
    "BadExpression",
    "MarkExpression",
    "Unsupported",
    "apply_configuration",
    "basetemp",
    "mark_expression",
    "run_unlogged",
    "supported",
]

# [lowest, past the highest): the pytest versions this module is tested with (the 9
# series: pyproject.toml pins the same range, and CI installs its newest release).
TESTED = ((9, 0), (10, 0))


class Unsupported(Exception):
    """The running pytest is outside :data:`TESTED`."""


def _version() -> tuple[int, int]:
    major, minor = pytest.__version__.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def supported() -> bool:
    low, high = TESTED
    return low <= _version() < high


def _require() -> None:
    if not supported():
        low, high = TESTED
        raise Unsupported(
            f"pytest {pytest.__version__} is outside the versions this suite is tested with "
            f"({low[0]}.{low[1]} up to, not including, {high[0]}.{high[1]})"
        )


def find_configuration(config: pytest.Config, ns: Any) -> tuple[Path, Path | None, Any, Any]:
    """pytest's own rootdir and configuration search, for the arguments in ``ns``."""
    _require()
    import inspect

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
    ignored = found[3] if len(found) > 3 else None
    return Path(found[0]), (Path(found[1]) if found[1] else None), found[2], ignored


def apply_configuration(
    config: pytest.Config,
    parser: pytest.Parser,
    args: list[str],
    found: tuple[Path, Path | None, Any, Any],
) -> None:
    """Apply a configuration :func:`find_configuration` found, as ``Config.parse`` does."""
    _require()
    rootpath, inipath, inicfg, ignored = found
    config._rootpath = rootpath
    config._inipath = inipath
    config._inicfg = inicfg
    if ignored is not None and hasattr(config, "_ignored_config_files"):
        config._ignored_config_files = ignored
    config._inicache.clear()
    parser.extra_info["rootdir"] = str(rootpath)
    parser.extra_info["inifile"] = str(inipath)
    # The configuration's addopts were never added: add them in front, as pytest does.
    addopts = config.getini("addopts")
    if addopts:
        args[:] = list(addopts) + args
    known = parser.parse_known_args(args, namespace=copy.copy(config.option))
    if addopts:
        # addopts may carry -o overrides; pytest applies them after adding addopts.
        from _pytest.config import findpaths

        parse_override_ini = getattr(findpaths, "parse_override_ini", None)
        overrides = parse_override_ini(known.override_ini) if parse_override_ini else None
        if overrides:
            config._inicfg.update(overrides)
            config._inicache.clear()
    if known.confcutdir is None:  # pytest's own default: the configuration file's folder
        known.confcutdir = str(inipath.parent if inipath else rootpath)
    config.known_args_namespace = known


def run_unlogged(item: pytest.Item, nextitem: pytest.Item | None) -> list[pytest.TestReport]:
    """Run one item's setup, call and teardown; return the reports without logging them."""
    _require()
    from _pytest.runner import runtestprotocol

    return runtestprotocol(item, nextitem=nextitem, log=False)


def basetemp(config: pytest.Config) -> Path | None:
    """This session's temporary base folder, once a test made it (else None, and None
    outside :data:`TESTED`): ``TempPathFactory`` keeps it on the config, unexposed."""
    if not supported():
        return None
    factory = getattr(config, "_tmp_path_factory", None)
    base = getattr(factory, "_basetemp", None)
    return Path(base) if isinstance(base, (str, Path)) else None


class BadExpression(ValueError):
    """A ``-m`` expression pytest refuses; the message is pytest's own."""


class MarkExpression:
    """A ``-m`` expression as pytest's parser reads it (a plain class: this module is
    loaded with the plugin in every pytest run, and a dataclass costs a millisecond)."""

    __slots__ = ("_compiled", "names", "text")

    def __init__(self, text: str, names: frozenset[str], compiled: Any) -> None:
        self.text = text
        self.names = names  # every marker name it mentions
        self._compiled = compiled

    def selects(self, markers: Collection[str]) -> bool:
        """Whether ``-m`` keeps a test that carries ``markers`` (none with arguments).

        The answer is pytest's: its compiled expression, evaluated as pytest's mark
        matcher would for marks without arguments (``offline(x=1)`` does not match a
        bare ``offline``).
        """
        present = frozenset(markers)

        def matcher(name: str, /, **kwargs: str | int | bool | None) -> bool:
            return name in present and not kwargs

        return bool(self._compiled.evaluate(matcher))


def mark_expression(text: str) -> MarkExpression:
    """``text`` compiled as pytest compiles ``-m text``.

    Raises :class:`BadExpression` with pytest's own message where pytest would refuse
    the expression, and :class:`Unsupported` outside :data:`TESTED`.
    """
    _require()
    from _pytest.mark.expression import Expression

    try:
        compiled = Expression.compile(text)
    except SyntaxError as exc:
        raise BadExpression(f"{exc.text}: at column {exc.offset}: {exc.msg}") from None
    return MarkExpression(text, frozenset(compiled.idents()), compiled)
