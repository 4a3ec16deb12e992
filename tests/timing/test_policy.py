"""claims.timing.policy: which form holds a cold-over-warm ratio, for which model and machine."""

from __future__ import annotations

from typing import Any

import pytest

from claims.profiles import DGX_SPARK, GENERIC
from claims.timing import AtLeast
from claims.timing.policy import COLD_ABOVE_WARM, cold_over_warm_form


class Recorder:
    """The two Check methods the policy calls, recording what it asked."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.premises: list[str] = []
        self.not_judged_figures: list[tuple[str, str]] = []

    def premise(self, figure: str) -> float:
        self.premises.append(figure)
        return 5.0

    def not_judged(self, figure: str, reason: str) -> None:
        self.not_judged_figures.append((figure, reason))


def test_the_posts_bar_holds_phi4_on_a_spark():
    check: Any = Recorder(DGX_SPARK.name)
    form, expected = cold_over_warm_form(check, "phi4:latest", "bar", what="w")
    assert form == AtLeast(5.0) and "5x" in expected
    assert check.premises == ["bar"] and check.not_judged_figures == []


@pytest.mark.parametrize(("model", "profile"), [("gemma3:270m", DGX_SPARK.name),
                                                ("phi4", GENERIC.name)])
def test_any_other_case_gets_the_general_form_and_the_bar_is_shown_not_judged(model, profile):
    check: Any = Recorder(profile)
    form, expected = cold_over_warm_form(check, model, "bar", what="the load comes first")
    assert form is COLD_ABOVE_WARM and expected.endswith("the load comes first")
    assert check.premises == []
    ((figure, reason),) = check.not_judged_figures
    assert figure == "bar" and model in reason and profile in reason
