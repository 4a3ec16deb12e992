"""The optional extras of pyproject.toml, for the suite's own tests that need one.

The offline install (``pip install -e .``, what scripts/certify-offline.sh makes) has
none of them: a test that needs torch, llama-cpp-python or a client package is skipped
there with the reason and the install that runs it, never failed with an ImportError
or a KeyError from deep inside. ``bash scripts/test.sh`` installs them all.

An extra that is installed but does not import (a CUDA build of torch on a machine
missing one of its libraries raises ImportError or OSError from its ``__init__``) is
skipped the same way, naming the error: :func:`needs` and :func:`import_or_skip` import
the module to know, which costs its import once per process, only where it is installed.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from types import ModuleType

import pytest

# And needs_torch, needs_llama_cpp, needs_hub: made when imported (__getattr__ below).
__all__ = ["import_or_skip", "installed", "needs", "unusable"]


def installed(module: str) -> bool:
    """Whether ``module``'s top-level package is installed here (found, not imported:
    a dotted name's find_spec would import its parents)."""
    return importlib.util.find_spec(module.partition(".")[0]) is not None


@functools.cache
def _import_error(module: str) -> str | None:
    """What importing ``module`` raised, as one line; None where it imports.

    Cached: a package whose import failed halfway may fail differently the second time.
    """
    try:
        importlib.import_module(module)
    except Exception as exc:  # whatever a broken install raises, named
        return f"{type(exc).__name__}: {exc}"
    return None


def unusable(module: str, extra: str) -> str | None:
    """Why a test needing ``module`` cannot run here (not installed, or installed and
    failing to import), naming the extra that brings it; None where it imports."""
    if not installed(module):
        return (f"{module} is not installed: it comes with the {extra!r} extra "
                f"(pip install -e '.[{extra}]', or bash scripts/test.sh)")
    error = _import_error(module)
    if error is not None:
        return (f"{module} is installed but does not import ({error}): reinstall it, "
                f"or the {extra!r} extra")
    return None


def needs(module: str, extra: str) -> pytest.MarkDecorator:
    """Skip unless ``module`` is installed and imports, naming the extra that brings it."""
    reason = unusable(module, extra)
    return pytest.mark.skipif(reason is not None, reason=reason or f"{module} imports")


def import_or_skip(module: str, extra: str) -> ModuleType:
    """``module`` imported; else the test (or, at module level, the module) is skipped
    with :func:`unusable`'s reason. Unlike ``pytest.importorskip``, which since pytest 9.1
    skips only a missing module, an installed one that raises on import is skipped too,
    named, instead of interrupting the collection."""
    __tracebackhide__ = True  # the skip is reported at the caller's line, not this one's
    reason = unusable(module, extra)
    if reason is not None:
        pytest.skip(reason, allow_module_level=True)
    return importlib.import_module(module)


# The marks by name, each made on first use (a module's __getattr__): a test module that
# imports needs_torch imports torch to know, not llama_cpp and huggingface_hub as well.
_NEEDS = {
    "needs_torch": ("torch", "gpu"),
    "needs_llama_cpp": ("llama_cpp", "engine"),
    "needs_hub": ("huggingface_hub", "hub"),
}


def __getattr__(name: str) -> pytest.MarkDecorator:
    """``needs_torch``, ``needs_llama_cpp``, ``needs_hub``: :func:`needs` of their extra."""
    if name in _NEEDS:
        return needs(*_NEEDS[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
