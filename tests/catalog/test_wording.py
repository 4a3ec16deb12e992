"""One sentence, one truth: the catalog's words agree with what its claims are judged by.

The bundled catalog passes the wording check (claims.catalog.wording); each rule fails
on a planted slip, naming the claim; the anchors hold every numeric figure's form to
the words the document prints around it; and the audit's word slips are caught.
"""

from __future__ import annotations

import dataclasses

import pytest

from claims.catalog import load_catalog
from claims.catalog.records import Claim, Erratum, StatedFigure
from claims.catalog.wording import (
    arithmetic,
    catalog_problems,
    erratum_problems,
    printed_form,
    statement_problems,
)
from claims.text.anchors import FigureAnchor, load_anchors, printed_disagreement

CATALOG = load_catalog()


def _claim(statement: str, *figures: StatedFigure, erratum: Erratum | None = None) -> Claim:
    return Claim(id="T9-WORDS", document="T9", section="s", statement=statement,
                 tiers=("offline",), stated=figures, erratum=erratum)


def _number(name: str, text: str, form: str = "equal", **kw: object) -> StatedFigure:
    return StatedFigure(name=name, kind="number", text=text, form=form, **kw)  # type: ignore[arg-type]


def test_the_bundled_catalog_says_what_it_judges() -> None:
    assert catalog_problems(CATALOG) == []


@pytest.mark.parametrize(("before", "after", "form"), [
    ("an 8B model allocates over ", " GB", "at-least"),
    ("This achieves: Up to a ", "% reduction", "at-most"),
    ("on long contexts ($>", "\\text{ tokens}", "at-least"),
    ("with the cached answer with $<", "ms", "at-most"),
    ("Compute Capability ", "+ (Ampere", "at-least"),
    ("FP16 / BF16 16.0 ~", " GB", "about"),
    ("A RTX 4090 has $\\approx ", " GB/s", "about"),
    ("the recorded reply's 89 tokens over ", " s", None),  # a division
    ("a series of 8 phases over ", " weeks", None),  # a span
    ("the split of 16 query heads over ", " key/value heads", None),  # a split
    ("the embeddings add up to ", ".", None),  # a sum
    ("lists <|im_end|> (", ")", None),  # a token's bracket
    ("the table's ", " rows", None),
])
def test_printed_form_reads_the_words_around_a_number(before: str, after: str,
                                                       form: str | None) -> None:
    assert printed_form(before, after) == form


def test_a_number_the_statement_bounds_is_judged_as_that_bound() -> None:
    kv = _number("KV cache", "4", unit="GB")
    assert statement_problems(_claim("It allocates over 4 GB.", kv)) == [
        "figure 'KV cache': printed as at least ('It allocates over'), judged equal: make "
        "it at-least, or give the figure a reading that says why"]
    assert statement_problems(_claim("It allocates over 4 GB.",
                                     dataclasses.replace(kv, form="at-least"))) == []
    # A bound figure printed without its word (the statement's "over" slipped away).
    assert statement_problems(_claim("It allocates 4 GB.",
                                     dataclasses.replace(kv, form="at-least")))


def test_a_reading_may_not_be_printed_the_other_way_round() -> None:
    bar = _number("much faster bar", "1.5", form="at-least", unit="x", reading="why")
    claim = _claim("Much faster is read as at least 1.5 times.", bar)
    assert statement_problems(claim) == []
    slipped = dataclasses.replace(claim, statement="Much faster is read as at most 1.5 times.")
    assert any("printed as at most, judged at-least" in p for p in statement_problems(slipped))


def test_a_relation_a_figure_names_is_said_by_the_statement() -> None:
    above = StatedFigure(name="peak above the payload", kind="bool", flag=True, form="true")
    assert statement_problems(_claim("The peak is above the payload.", above)) == []
    problems = statement_problems(_claim("The peak is below the payload.", above))
    assert problems == ["a figure's name says at least/more than/greater than (bound), the "
                        "statement says at most/less than/fewer than instead"]
    faster = _number("16-bit faster than FP32", "1", form="at-least", unit="x", reading="r")
    assert statement_problems(_claim("FP16 runs slower than FP32.", faster))


def test_a_lone_bound_word_against_the_bound_it_is_judged_by() -> None:
    cap = _number("saving", "50", form="at-most", unit="%", reading="r")
    assert statement_problems(_claim("It saves memory, up to half.", cap)) == []
    assert statement_problems(_claim("It saves memory, at least half.", cap)) == [
        "the statement says at least/more than/greater than, its bound figures are judged "
        "at most/less than/fewer than"]


def test_an_explanation_s_arithmetic_is_right_at_its_printed_precision() -> None:
    fig = _number("reduction vs FP16", "3.5", unit="x")
    quotes = (("64", "ggml:F16:bytes"), ("18", "ggml:Q4_0:bytes"))
    good = Erratum("The reduction is 64 / 18 = 3.56x, not 3.5x.", ("reduction vs FP16",), quotes)
    assert erratum_problems(_claim("s", fig, erratum=good)) == []
    bad = Erratum("The reduction is 64 / 18 = 3.58x, not 3.5x.", ("reduction vs FP16",), quotes)
    assert erratum_problems(_claim("s", fig, erratum=bad)) == [
        "the explanation computes '64 / 18 = 3.58', but that is 3.555555555555555555555555556"]
    units = "8e9 × 2 B = 16.0 GB; a Q8_0 block is 34/32 B = 8.5 bits"
    assert [a.result for a in arithmetic(units)] == ["16.0", "8.5"]
    quoted = tuple((n, "s:s:s") for n in ("8e9", "2", "34", "32"))
    assert erratum_problems(_claim("s", fig, erratum=Erratum(units, quotes=quoted))) == []


def test_an_explanation_computes_only_with_numbers_stated_or_quoted() -> None:
    # "7.44 / 1.577 = 4.72" still rounds right: only the operand's source can tell it slipped.
    fig = _number("BF16 speedup", "4.8", unit="x")
    quotes = (("7.44", "lab:W5:fp32"), ("1.576", "lab:W5:bf16"))
    said = "7.44 / 1.576 = 4.72, not 4.8."
    assert erratum_problems(_claim("s", fig, erratum=Erratum(said, quotes=quotes))) == []
    slipped = Erratum(said.replace("1.576", "1.577"), quotes=quotes)
    assert erratum_problems(_claim("s", fig, erratum=slipped)) == [
        "the explanation computes with 1.577, which the claim does not state and its quotes "
        "give no source for"]


def test_an_explanation_quotes_the_figures_it_says_are_wrong() -> None:
    fig = _number("reduction vs FP16", "3.5", unit="x")
    wrong = Erratum("It rounds to 3.6x, not 3.4x.", ("reduction vs FP16",))
    assert erratum_problems(_claim("s", fig, erratum=wrong)) == [
        "the explanation says the document's figure is not 3.4, but the claim states no "
        "figure 3.4 (it states: 3.5)"]


def test_catalog_problems_name_the_claim() -> None:
    claim = _claim("It allocates over 4 GB.", _number("KV cache", "4", unit="GB"))
    assert catalog_problems([claim])[0].startswith("T9-WORDS: statement: figure 'KV cache'")


# --- the anchors: a figure's form agrees with the words printed around it ------------
ANCHORS = {a.key: a for doc in CATALOG.documents for a in load_anchors(doc.id)}


def _anchor(before: str, text: str) -> FigureAnchor:
    return FigureAnchor("T9-WORDS", "f", "seed", 1, before, text)


def test_the_anchor_holds_a_figure_s_form_to_the_printed_words() -> None:
    equal = _number("f", "4", unit="GB")
    assert printed_disagreement(equal, _anchor("allocates ", "4")) is None
    assert "printed as at least" in str(printed_disagreement(equal, _anchor("allocates ",
                                                                            "over 4")))
    bound = dataclasses.replace(equal, form="at-least")
    assert printed_disagreement(bound, _anchor("allocates ", "over 4")) is None
    assert "judged at-least" in str(printed_disagreement(bound, _anchor("about ", "4")))
    assert printed_disagreement(bound, _anchor("Capability ", "4+")) is None


@pytest.mark.parametrize(("claim", "figure", "slipped"), [
    ("MC-KV-32K-OVER-4GB", "KV cache", "equal"),  # "over 4 GB"
    ("MC-FLASH-ATTENTION", "compute capability", "at-most"),  # "8.0+"
    ("W2-TOKS-PER-SEC", "tokens per second", "at-least"),  # "about 23.3"
    ("W2-BLOB-SIZE", "blob bytes", "at-most"),  # a plain number
])
def test_a_form_slip_of_a_bundled_figure_is_caught_by_its_anchor(claim: str, figure: str,
                                                                 slipped: str) -> None:
    fig = CATALOG.get(claim).figure(figure)
    anchor = ANCHORS[(claim, figure)]
    assert printed_disagreement(fig, anchor) is None
    assert printed_disagreement(dataclasses.replace(fig, form=slipped), anchor) is not None


def test_the_other_side_said_beside_a_named_relation_is_a_slip() -> None:
    bar = _number("TF32 much faster than FP32", "1.5", form="at-least", unit="x", reading="r")
    said = "TF32 runs much faster than FP32. Much faster is read as at least 1.5 times."
    assert statement_problems(_claim(said, bar)) == []
    slipped = said.replace("Much faster", "Much slower")
    assert statement_problems(_claim(slipped, bar)) == [
        "the statement says slower as well as faster/beating/beats, its figures' names only "
        "faster/beating/beats"]


def test_a_lone_factor_word_agrees_with_the_factor_the_figures_state() -> None:
    runs = _number("runs", "2")
    assert statement_problems(_claim("The same prompt sent twice returns the same text.",
                                     runs)) == []
    assert statement_problems(_claim("The same prompt sent half returns the same text.",
                                     runs)) == [
        "the statement says half/halves/halving, its figures state twice/double/doubling"]


def test_a_factor_word_stands_for_a_figure_the_statement_does_not_print_in_digits() -> None:
    # "2 bytes" is FP16's figure, said by its digits: the "half" is INT4's 0.5 B alone.
    fp16, int4 = _number("FP16 bytes", "2", unit="B"), _number("INT4 bytes", "0.5", unit="B")
    said = "FP16 takes 2 bytes a parameter and INT4 half a byte."
    assert statement_problems(_claim(said, fp16, int4)) == []
    assert statement_problems(_claim(said.replace("half", "twice"), fp16, int4)) == [
        "the statement says twice/double/doubling, its figures state half/halves/halving"]
    # Printed in another unit, the number is not the figure: "2 bytes" is not a 2 x ratio.
    ratio = _number("bandwidth ratio", "2", unit="x")
    assert statement_problems(_claim("FP16 (2 bytes) moves half the bytes.", ratio)) == [
        "the statement says half/halves/halving, its figures state twice/double/doubling"]


def test_a_factor_word_the_figures_do_not_state_beside_one_they_do_is_a_slip() -> None:
    ratio = _number("bandwidth ratio", "2", unit="x")
    said = "FP16 moves double the bytes of Q8_0, so Q8_0 can roughly double the speed."
    assert statement_problems(_claim(said, ratio)) == []
    assert statement_problems(_claim(said.replace("can roughly double", "can roughly half"),
                                     ratio)) == [
        "the statement says half/halves/halving as well as twice/double/doubling, its figures "
        "state only twice/double/doubling"]


def test_a_bound_word_between_two_printed_figures_agrees_with_their_values() -> None:
    weights = _number("weight GiB", "130", unit="GiB")
    pool = _number("Spark pool", "121", unit="GiB")
    said = "They take roughly 130 GiB: more than the DGX Spark's 121 GiB memory pool."
    assert statement_problems(_claim(said, weights, pool)) == []
    assert statement_problems(_claim(said.replace("more than", "less than"), weights, pool)) == [
        "the statement says 'weight GiB' (130 GiB) is less than 'Spark pool' (121 GiB); the "
        "figures say otherwise"]


def test_a_figure_read_as_a_bound_s_own_value_quotes_that_bound() -> None:
    threshold = _number("6.4 threshold", "20", unit="tok/s",
                        reading="'$<20' read as the alert's threshold itself, the number after '<'")
    assert statement_problems(_claim("6.4 alerts below 20 tokens/s.", threshold)) == []
    assert statement_problems(_claim("6.4 alerts above 20 tokens/s.", threshold)) == [
        "figure '6.4 threshold': printed as at least, judged equal, and its reading quotes no "
        "at least it is the value of"]
