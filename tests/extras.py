"""The optional extras of pyproject.toml, for the suite's own tests that need one.

The offline install (``pip install -e .``, what scripts/certify-offline.sh makes) has
none of them: a test that needs torch, llama-cpp-python or a client package is skipped
there with the reason and the install that runs it, never failed with an ImportError
or a KeyError from deep inside. ``bash scripts/test.sh`` installs them all.
"""

from __future__ import annotations

import importlib.util

import pytest

__all__ = ["installed", "needs", "needs_hub", "needs_llama_cpp", "needs_torch"]


def installed(module: str) -> bool:
    """Whether ``module`` (a top-level package) can be imported here."""
    return importlib.util.find_spec(module) is not None


def needs(module: str, extra: str) -> pytest.MarkDecorator:
    """Skip unless ``module`` is installed, naming the extra that brings it."""
    return pytest.mark.skipif(
        not installed(module),
        reason=f"{module} is not installed: it comes with the {extra!r} extra "
        f"(pip install -e '.[{extra}]', or bash scripts/test.sh)",
    )


needs_torch = needs("torch", "gpu")
needs_llama_cpp = needs("llama_cpp", "engine")
needs_hub = needs("huggingface_hub", "hub")
