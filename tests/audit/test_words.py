"""The audit of the catalog's words (claims.audit.words): each relation word of a statement
turned around, each number an explanation's check reads changed, and the wording check
(claims.catalog.wording) objects."""

from __future__ import annotations

from claims.audit.words import audit_words, explanation_slips, statement_slips
from claims.catalog import load_catalog
from claims.catalog.records import Claim, Erratum, StatedFigure
from claims.catalog.wording import erratum_problems, statement_problems


def _claim(statement: str, *figures: StatedFigure, erratum: Erratum | None = None) -> Claim:
    return Claim(id="T9-WORDS", document="T9", section="s", statement=statement,
                 tiers=("offline",), stated=figures, erratum=erratum)


def _number(name: str, text: str, form: str = "equal", **kw: object) -> StatedFigure:
    return StatedFigure(name=name, kind="number", text=text, form=form, **kw)  # type: ignore[arg-type]


def test_statement_slips_turn_each_relation_word_around() -> None:
    claim = _claim("It allocates over 4 GB over SSH; 89 tokens over 3.82 s.",
                   _number("KV cache", "4", form="at-least", unit="GB"))
    assert [what for what, _ in statement_slips(claim)] == ["over -> under"]
    ((_, slipped),) = statement_slips(claim)
    assert statement_problems(slipped)


def test_explanation_slips_change_each_number_the_check_reads() -> None:
    fig = _number("reduction vs FP16", "3.5", unit="x")
    claim = _claim("s", fig, erratum=Erratum("64 / 18 = 3.56x, not 3.5x; see Q12."))
    assert [what for what, _ in explanation_slips(claim)] == [
        "64 -> 65", "18 -> 19", "3.56 -> 3.57", "3.5 -> 3.6"]
    assert all(erratum_problems(slipped) for _, slipped in explanation_slips(claim))


def test_the_audit_counts_the_word_slips_of_the_bundled_catalog() -> None:
    result = audit_words(load_catalog())
    for kind in ("statements", "explanations"):
        counts = result[kind]
        assert counts["cases"] > 0
        assert counts["caught"] + len(counts["survivors"]) + counts["untestable"] == (
            counts["cases"]), kind
        assert all(s["why"] for s in counts["survivors"]), kind
    # A slip the check lets through in an untestable claim is counted apart, never listed as
    # a survivor: nothing judges that claim, so its words contradict no check.
    untestable = {c.id for c in load_catalog() if not c.testable}
    assert not {s["claim"] for s in result["statements"]["survivors"]} & untestable
    assert result["statements"]["untestable"] > 0
    # Every explanation number the check reads is caught, a slip within the printed
    # precision of what it computes too ("7.44 / 1.548 = 4.81" with 7.45 still 4.81): the
    # operand is then no longer the number its quote names.
    assert result["explanations"]["caught"] == result["explanations"]["cases"]
