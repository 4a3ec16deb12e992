"""The masterclass's internal contradictions: one thing stated twice, differently.

Each claim's two figures are the guide's own two statements, each anchored where the
guide prints it (claims/catalog/MC.anchors.toml, checked on every run): the check is
whether they agree, and each claim's erratum says that they do not.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.offline


def _agree(check, first: str, second: str, *, text: bool = False) -> None:
    a = check.premise_text(first) if text else check.premise(first)
    b = check.premise_text(second) if text else check.premise(second)
    check.measure(f"{first} vs {second}", [a, b], holds=a == b, expected="the same")


@pytest.mark.claim("MC-ALERT-DECODE-THRESHOLD", source="recorded")
def test_decode_alert_threshold_is_one(check) -> None:
    _agree(check, "6.4 threshold", "Q30 threshold")


@pytest.mark.claim("MC-RAG-TOPK", source="recorded")
def test_rag_diagram_and_code_retrieve_alike(check) -> None:
    _agree(check, "diagram chunks", "code n_results")


@pytest.mark.claim("MC-RAG-MODEL", source="recorded")
def test_rag_diagram_and_code_chat_alike(check) -> None:
    _agree(check, "diagram chat model", "code chat model", text=True)


@pytest.mark.claim("MC-MODELFILE-TWO-LINES", source="recorded")
def test_two_line_modelfile(check) -> None:
    lines = check.premise("Modelfile lines")
    directives = check.premise_values("printed directives")
    check.measure("directives in the printed Modelfile vs the lines stated", [
        len(directives), lines], holds=len(directives) == lines,
        expected=f"{lines:g} directive lines")
    # Not the contradiction: an import needs only FROM, so a shorter file would do.
    check.observe("directives a GGUF import needs", directives.count("FROM"),
                  note="FROM alone imports a GGUF; the rest are optional")


@pytest.mark.claim("MC-Q4_0-SOURCE-WIDTH", source="recorded")
def test_q4_0_answer_quantises_one_float_width(check) -> None:
    _agree(check, "weights quantised from", "reduction computed from")


@pytest.mark.claim("MC-PARTIAL-OFFLOAD-SPEEDS", source="recorded")
def test_partial_offload_speed_is_stated_once(check) -> None:
    first, second = "1.3 partial offload", "Q3 partial offload"
    a, b = check.premise_interval(first), check.premise_interval(second)
    check.measure(f"{first} vs {second}", [[a.lo, a.hi], [b.lo, b.hi]],
                  holds=(a.lo, a.hi) == (b.lo, b.hi), expected="the same range", unit="tok/s")
