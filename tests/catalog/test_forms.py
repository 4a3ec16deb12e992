"""How each stated figure is judged (its ``form``): loaded explicitly, validated with the
claim and figure named, defaulted only where the kind allows one form."""

from __future__ import annotations

import pytest

from claims.catalog import CatalogError, load_catalog, load_document
from claims.catalog.records import FORMS, FORMS_OF_KIND

HEAD = """
[document]
id = "T5"
title = "t"
seeds = []
sections = ["S"]

[[claim]]
id = "T5-X"
section = "S"
statement = "s"
tiers = ["offline"]
"""


def _figures(*lines: str) -> dict[str, object]:
    doc = load_document("T5.toml", text=HEAD + "stated = [\n" + ",\n".join(lines) + "\n]\n")
    return {f.name: f for f in doc.claims[0].stated}


def test_each_kind_defaults_to_its_one_form() -> None:
    figs = _figures(
        '{ name = "n", value = "2" }',
        '{ name = "r", low = "1", high = "2" }',
        '{ name = "t", value = "x", kind = "text" }',
        '{ name = "l", values = ["a"] }',
        '{ name = "b", value = true }',
    )
    assert {name: fig.form for name, fig in figs.items()} == {  # type: ignore[attr-defined]
        "n": "equal",
        "r": "range",
        "t": "text",
        "l": "list",
        "b": "true",
    }


def test_a_written_form_is_kept_and_shown() -> None:
    figs = _figures(
        '{ name = "cap", value = "2", unit = "%", form = "at-most", reading = "why" }',
        '{ name = "floor", value = "4", unit = "GB", form = "at-least" }',
        '{ name = "base", value = "10", unit = "GB" }',
        '{ name = "twice", value = "2", unit = "x", form = "ratio", of = "base" }',
        '{ name = "role", values = ["a", "b"], form = "one-of" }',
    )
    cap = figs["cap"]
    assert cap.form == "at-most" and cap.reading == "why"  # type: ignore[attr-defined]
    assert cap.display == "≤ 2 %"  # type: ignore[attr-defined]
    assert figs["floor"].display == "≥ 4 GB"  # type: ignore[attr-defined]
    assert figs["twice"].of == "base"  # type: ignore[attr-defined]
    assert figs["role"].display == "one of a, b"  # type: ignore[attr-defined]
    as_json = cap.to_json()  # type: ignore[attr-defined]
    assert as_json["form"] == "at-most" and as_json["reading"] == "why"


@pytest.mark.parametrize(
    ("figure", "message"),
    [
        (
            '{ name = "n", value = "2", form = "below" }',
            "claim T5-X, figure 'n': unknown form 'below' (known: " + ", ".join(FORMS),
        ),
        (
            '{ name = "t", value = "x", kind = "text", form = "at-most" }',
            "claim T5-X, figure 't': form 'at-most' does not fit a text figure",
        ),
        (
            '{ name = "b", value = true, form = "equal" }',
            "claim T5-X, figure 'b': form 'equal' does not fit a bool figure",
        ),
        (
            '{ name = "n", value = "2", form = "ratio" }',
            "claim T5-X, figure 'n': a ratio names the figure it is over",
        ),
        (
            '{ name = "n", value = "2", of = "m" }',
            "claim T5-X, figure 'n': of is for a ratio; this figure's form is 'equal'",
        ),
        (
            '{ name = "n", value = "2", form = "ratio", of = "n" }',
            "claim T5-X, figure 'n': a ratio cannot be over itself",
        ),
        (
            '{ name = "n", value = "2", form = "ratio", of = "m" }',
            "claim T5-X, figure 'n': ratio over unknown figure 'm'",
        ),
        (
            '{ name = "n", value = "2", form = "at-most", reading = "" }',
            "claim T5-X, figure 'n': reading must be a non-empty string",
        ),
        ('{ name = "n", value = "2", form = 3 }', "claim T5-X, figure 'n': unknown form 3"),
    ],
)
def test_a_bad_form_names_the_claim_and_the_figure(figure: str, message: str) -> None:
    with pytest.raises(CatalogError) as err:
        _figures(figure)
    assert message in str(err.value)
    assert str(err.value).startswith("T5.toml")


def test_a_ratio_over_a_text_is_refused() -> None:
    with pytest.raises(CatalogError, match="ratio over 'word', a text, not a number"):
        _figures(
            '{ name = "word", value = "x", kind = "text" }',
            '{ name = "n", value = "2", form = "ratio", of = "word" }',
        )


def test_every_bundled_figure_has_a_form_its_kind_allows() -> None:
    for claim in load_catalog():
        for fig in claim.stated:
            assert fig.form in FORMS_OF_KIND[fig.kind], (claim.id, fig.name)
            if fig.form == "ratio":
                assert fig.of in {f.name for f in claim.stated}, (claim.id, fig.name)


def test_every_bound_says_why_it_is_the_bound() -> None:
    """A bound the document does not print is the suite's reading, and says so."""
    for claim in load_catalog():
        for fig in claim.stated:
            if fig.form in ("at-most", "at-least"):
                assert fig.reading or fig.note, (claim.id, fig.name)
