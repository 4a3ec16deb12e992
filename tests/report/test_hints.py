"""claims.report.hints: each hint is right for its reason and runnable as written."""

from __future__ import annotations

import re

import pytest

from claims.plugin.options import pytest_addoption
from claims.report.hints import FLAG_HINTS, PACKAGE_HINTS, run_hint
from claims.tiers import TIERS


class _Recorder:
    """Collects the option names the plugin registers (pytest's parser, minus pytest)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def getgroup(self, *args: object, **kwargs: object) -> _Recorder:
        return self

    def addoption(self, *names: str, **kwargs: object) -> None:
        self.names.update(names)

    def addini(self, *args: object, **kwargs: object) -> None:
        pass


@pytest.fixture(scope="module")
def plugin_options() -> set[str]:
    recorder = _Recorder()
    pytest_addoption(recorder)  # type: ignore[arg-type]
    return recorder.names


def test_every_option_a_hint_names_exists(plugin_options):
    texts = [*(t.hint for t in TIERS), *FLAG_HINTS.values(), *PACKAGE_HINTS.values()]
    named = {f for text in texts for f in re.findall(r"(?<![\w-])--[a-z][a-z-]*", text)}
    assert named <= plugin_options, named - plugin_options
    assert set(FLAG_HINTS) <= plugin_options


def test_a_missing_torch_says_install_torch_not_run_the_tier_again():
    hint = run_hint(
        ["offline"],
        "torch is not installed (pip install 'claims-suite[gpu]' or any torch build)",
        "W1-TF32-DEFAULT-OFF",
    )
    assert "install torch (pip install torch==2.13.0" in hint
    assert hint.endswith("then run pytest -m offline --claim W1-TF32-DEFAULT-OFF")
    assert not hint.startswith("run pytest -m offline")


@pytest.mark.parametrize(
    "reason",
    [
        "no readable model store for phi4 (no such folder); pass --ollama-models-dir",
        "pass --ollama-models-dir pointing at a store that holds phi4",
        "the model store cannot be read (Permission denied); pass --ollama-models-dir",
    ],
)
def test_models_dir_hints_say_which_directory(reason):
    hint = run_hint(["ollama"], reason)
    assert "--ollama-models-dir DIR" in hint
    assert "manifests/ and blobs/" in hint
    assert "/usr/share/ollama/.ollama/models" in hint and "~/.ollama/models" in hint


def test_a_flag_without_its_own_hint_is_still_named():
    assert run_hint(["ollama"], "needs --some-new-flag") == "pass --some-new-flag"


def test_hints_without_a_flag_or_package_fall_back_to_the_tier():
    assert run_hint(["gpu"], "no CUDA device") == TIERS["gpu"].hint
    assert run_hint(["offline", "ollama"], "no server") == TIERS["ollama"].hint

