"""claims.suggest: the nearest known word for a misspelt one, and argparse choices with it."""

from __future__ import annotations

import argparse

import pytest

from claims.suggest import choice, did_you_mean


def test_the_nearest_word_is_named_case_kept():
    ids = ["W1-ARCH", "W1-CPU", "W2-DIGEST"]
    assert did_you_mean("W1-ARC", ids) == " (did you mean 'W1-ARCH'?)"
    assert did_you_mean("w1-arch", ["W1-ARCH"]) == " (did you mean 'W1-ARCH'?)"


def test_nothing_close_says_nothing():
    assert did_you_mean("zzz", ["offline", "engine"]) == ""
    assert did_you_mean("anything", []) == ""


def test_an_argparse_choice_refuses_with_the_suggestion_and_the_list():
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", type=choice(("auto", "dgx-spark", "generic"), "profile"))
    assert parser.parse_args(["--profile", "generic"]).profile == "generic"
    with pytest.raises(argparse.ArgumentTypeError, match=r"did you mean 'dgx-spark'\?.*one of"):
        choice(("auto", "dgx-spark"), "profile")("dgx-sprak")
