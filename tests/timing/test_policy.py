"""claims.timing.policy: which form holds a timing ratio, read from the catalog figure.

Which model and machine a bar is stated for is the figure's scope, decided by the
check (Check.applies): the policy names no model or profile.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims.catalog.loader import load_catalog
from claims.timing import AtLeast, AtMost, Within
from claims.timing.policy import COLD_ABOVE_WARM, change_band, figure_form, scoped_bar


class Recorder:
    """The Check methods the policy calls, answering ``applies`` as told."""

    def __init__(self, applies: bool, profile: str = "generic") -> None:
        self.profile = profile
        self._applies = applies
        self.asked: list[tuple[str, str | None]] = []
        self.premises: list[str] = []
        self.not_judged_figures: list[tuple[str, str]] = []

    def applies(self, figure: str, *, model: str | None = None) -> bool:
        self.asked.append((figure, model))
        return self._applies

    def premise(self, figure: str) -> float:
        self.premises.append(figure)
        return 5.0

    def not_judged(self, figure: str, reason: str) -> None:
        self.not_judged_figures.append((figure, reason))


def test_the_documents_bar_holds_where_the_check_says_it_applies():
    check: Any = Recorder(True)
    form, expected = scoped_bar(check, "bar", model="m", general=COLD_ABOVE_WARM,
                                general_text="w")
    assert form == AtLeast(5.0) and "5x" in expected
    assert check.asked == [("bar", "m")] and check.premises == ["bar"]
    assert check.not_judged_figures == []


def test_elsewhere_the_general_form_holds_and_the_bar_is_shown_not_judged():
    check: Any = Recorder(False, profile="generic")
    form, expected = scoped_bar(check, "bar", model="gemma3:270m", general=COLD_ABOVE_WARM,
                                general_text="the load comes first")
    assert form is COLD_ABOVE_WARM and expected.endswith("the load comes first")
    assert check.premises == []
    ((figure, reason),) = check.not_judged_figures
    assert figure == "bar" and "gemma3:270m" in reason and "generic" in reason


def test_no_model_or_profile_name_decides_a_timing_rule():
    root = Path(__file__).resolve().parents[2]
    sources = sorted((root / "claims" / "timing").glob("*.py"))
    sources += [root / "tests" / "claims" / d / f for d, f in (
        ("w1", "test_ollama.py"), ("w2", "test_ollama_timing.py"), ("w2", "test_engine.py"),
        ("mc", "test_ollama_timing.py"), ("mc", "test_engine.py"))]
    for path in sources:
        code = "\n".join(line.split("#")[0] for line in path.read_text("utf-8").splitlines())
        for name in ('"phi4', "'phi4", '"dgx-spark"', "DGX_SPARK"):
            assert name not in code, f"{path.relative_to(root)} decides scope by {name}"


@pytest.mark.parametrize(("claim", "figure", "form"), [
    ("W2-PREFILL-FASTER", "much faster bar", AtLeast(2.0)),
    ("W2-NUMCTX-NOT-SPEED", "decode rate change bar", change_band(5.0)),
    ("MC-TOKS-FORMULA", "clock agreement", Within(0.8, 1.25)),
])
def test_a_timing_figures_form_is_read_from_the_catalog(claim, figure, form):
    assert figure_form(load_catalog().get(claim).figure(figure)) == form


def test_a_bound_without_a_percentage_is_a_plain_bound():
    from dataclasses import replace

    fig = load_catalog().get("MC-EMBED-BATCH-FASTER").figure("batch gain bar")
    assert figure_form(replace(fig, form="at-most")) == AtMost(100.0)
    with pytest.raises(ValueError, match="not a timing form"):
        figure_form(replace(fig, form="equal"))
