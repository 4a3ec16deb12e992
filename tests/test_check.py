"""claims.check: recording measurements against catalog figures, and concluding."""

from __future__ import annotations

import os

import pytest

from claims.catalog import load_document
from claims.check import Check, CheckUsageError, Conclusion, jsonable, model_matches
from claims.figures import Interval

DOC = """
[document]
id = "T2"
title = "t"
seeds = []
sections = ["S"]

[[claim]]
id = "T2-FIGS"
section = "S"
statement = "s"
tiers = ["offline"]
stated = [
  { name = "rate", value = "23.3", unit = "tok/s" },
  { name = "size", value = "9.1", unit = "GB", model = "phi4" },
  { name = "span", low = "6.0", high = "6.3", unit = "s" },
  { name = "name", value = "gguf", kind = "text" },
  { name = "ids", values = ["1", "2"] },
  { name = "flag", value = true },
  { name = "spark", value = "20", profile = "dgx-spark" },
  { name = "loose", value = "3.5", tolerance = "0.1", tolerance_reason = "stated as about" },
  { name = "digest", value = "abc", kind = "text", particular = "the author's download" },
]

[[claim]]
id = "T2-ERR"
section = "S"
statement = "s"
tiers = ["offline"]
stated = [{ name = "a", value = "1" }, { name = "b", value = "2" }]
[claim.erratum]
explanation = "a is wrong"
refutes = ["a"]
"""


@pytest.fixture
def claims():
    doc = load_document("T2.toml", text=DOC)
    return {c.id: c for c in doc.claims}


def make(claims, *ids, source="fixture", profile="generic"):
    return Check(
        claims=tuple(claims[i] for i in ids), nodeid="t::x", source=source, profile=profile
    )


def test_numbers_use_printed_precision(claims):
    c = make(claims, "T2-FIGS")
    assert c.against("rate", 23.34)
    assert not c.against("rate", 23.36)
    assert c.against("rate", Interval(23.31, 23.4))  # an overlapping interval agrees
    assert c.against("loose", 3.59)


def test_units_are_converted_explicitly(claims):
    c = make(claims, "T2-FIGS")
    assert c.against("span", 6034.1, unit="ms")
    assert not c.against("span", 6400, unit="ms")
    with pytest.raises(CheckUsageError, match="cannot convert"):
        c.against("span", 1, unit="GB")


def test_text_lists_and_bools_compare_exactly(claims):
    c = make(claims, "T2-FIGS")
    assert c.against("name", "gguf") and not c.against("name", "GGUF")
    assert c.against("ids", [1, 2]) and not c.against("ids", [2, 1])
    assert c.against("ids", [2, 1], unordered=True)
    assert c.against("flag", True) and not c.against("flag", 1)


def test_a_stated_list_is_a_premise_only_as_a_list(claims):
    c = make(claims, "T2-FIGS")
    assert c.premise_values("ids") == ("1", "2")
    with pytest.raises(CheckUsageError, match="is number, not a list"):
        c.premise_values("rate")


def test_model_specific_figures_are_not_applicable_to_other_models(claims):
    c = make(claims, "T2-FIGS")
    assert c.against("size", 2.0, model="llama3.2:3b")
    m = c.measurements[-1]
    assert m["compared"] is False and m["applicable"] is False
    assert not c.against("size", 2.0, model="phi4:latest")


def test_profile_figures_apply_to_recorded_data_and_matching_machines(claims):
    assert make(claims, "T2-FIGS").against("spark", 8)  # generic machine: n/a
    assert not make(claims, "T2-FIGS", source="recorded").against("spark", 8)
    assert not make(claims, "T2-FIGS", profile="dgx-spark").against("spark", 8)


def test_unknown_figure_is_a_usage_error(claims):
    with pytest.raises(CheckUsageError, match="no figure named 'nope'"):
        make(claims, "T2-FIGS").against("nope", 1)


def test_measure_requires_a_bool(claims):
    with pytest.raises(CheckUsageError):
        make(claims, "T2-FIGS").measure("x", 1, holds=1)  # type: ignore[arg-type]


def test_conclusions(claims):
    c = make(claims, "T2-FIGS")
    c.against("rate", 23.3)
    assert c.conclude() == Conclusion("holds")
    # What the check found does not depend on its source; the verdict does
    # (claims.verdicts.decide: "reproduced" only live).
    assert make_live_holding(claims).conclude() == Conclusion("holds")
    c.against("rate", 1)
    assert c.conclude().kind == "refuted"

    e = make(claims, "T2-ERR")
    e.against("a", 5)
    e.against("b", 2)
    assert e.conclude().kind == "known-erratum"
    e2 = make(claims, "T2-ERR")
    e2.against("a", 1)
    assert e2.conclude().kind == "erratum-holds"
    e3 = make(claims, "T2-ERR")
    e3.against("a", 5)
    e3.against("b", 5)
    assert e3.conclude().kind == "refuted"


def make_live_holding(claims):
    c = make(claims, "T2-FIGS", source="live")
    c.against("rate", 23.3)
    return c


ERRATA = """
[document]
id = "T3"
title = "t"
seeds = []
sections = ["S"]

[[claim]]
id = "T3-TABLE"
section = "S"
statement = "s"
tiers = ["offline"]
stated = [{ name = "a", value = "1" }, { name = "b", value = "2" }, { name = "c", value = "3" }]
[claim.erratum]
explanation = "a and b are misprinted"
refutes = ["a", "b"]
"""


def test_each_erratum_figure_is_judged_on_its_own():
    claim = load_document("T3.toml", text=ERRATA).claims[0]
    # Only "a" corrected in the document: it now holds while "b" still fails.
    partial = Check(claims=(claim,), nodeid="t::p")
    partial.against("a", 1)
    partial.against("b", 7)
    partial.against("c", 3)
    done = partial.conclude()
    assert done.kind == "erratum-holds"
    assert "a now holds" in str(done.message) and "b now" not in str(done.message)
    # Both listed figures still wrong, the unlisted one right: the known erratum.
    still = Check(claims=(claim,), nodeid="t::s")
    still.against("a", 9)
    still.against("b", 7)
    still.against("c", 3)
    assert still.conclude().kind == "known-erratum"


def test_a_check_that_compares_nothing_is_an_error_of_the_test(claims):
    empty = make(claims, "T2-FIGS")
    assert empty.conclude().kind == "nothing-compared"
    observed = make(claims, "T2-FIGS")
    observed.observe("context", 3)
    observed.measure("unjudged", 1, holds=True)  # no relation stated: context only
    assert observed.conclude().kind == "nothing-compared"
    assert "compared nothing" in str(observed.conclude().message)


def test_a_check_about_another_model_only_is_not_applicable_and_says_which(claims):
    c = make(claims, "T2-FIGS")
    c.against("size", 9.1, model="llama3")
    done = c.conclude()
    assert (done.kind, done.scope) == ("not-applicable", {"model": "phi4"})


def test_attachments_are_bounded(claims):
    c = make(claims, "T2-FIGS")
    c.attach("big", "x" * 20000)
    assert c.attachments[0]["truncated"] and len(c.attachments[0]["content"]) < 9000


@pytest.mark.parametrize(
    ("stated", "model", "ok"),
    [
        ("phi4", "phi4", True),
        ("phi4", "phi4:latest", True),
        ("phi4", "phi4:14b", False),
        ("llama3.2:3b", "llama3.2:3b", True),
        ("phi4", None, False),
    ],
)
def test_model_matching(stated, model, ok):
    assert model_matches(stated, model) is ok


def test_source_must_be_one_the_evidence_schema_knows(claims):
    with pytest.raises(CheckUsageError, match="recorded, fixture, live"):
        make(claims, "T2-FIGS", source="Live")
    c = make(claims, "T2-FIGS")
    with pytest.raises(CheckUsageError, match="recorded, fixture, live"):
        c.declare_source("Live")  # type: ignore[arg-type]
    assert c.source == "fixture"


def test_source_is_declared_not_assigned(claims):
    c = make(claims, "T2-FIGS", source="recorded")
    with pytest.raises(CheckUsageError, match="declared, not assigned"):
        c.source = "live"
    assert c.source == "recorded"


def test_a_fixture_declares_the_source_before_the_body_and_before_any_figure(claims):
    c = make(claims, "T2-FIGS")
    c.declare_source("live")  # what a fixture does during setup
    assert c.source == "live"
    c.begin()
    with pytest.raises(CheckUsageError, match="before the test body runs"):
        c.declare_source("recorded")
    assert c.source == "live"
    measured = make(claims, "T2-FIGS")
    measured.against("spark", 8)
    with pytest.raises(CheckUsageError, match="before anything is measured"):
        measured.declare_source("recorded")
    assert measured.source == "fixture"


def test_builtin_subclasses_become_builtins_for_xdist():
    import enum

    import numpy as np

    from claims.check import jsonable

    class Version(str):
        pass

    class Two(enum.IntEnum):
        TWO = 2

    out = jsonable({Version("k"): [np.float64(1.5), Two.TWO, Version("2.13.0"), np.bool_(True)]})
    assert out == {"k": [1.5, 2, "2.13.0", True]}
    assert [type(v) for v in out["k"]] == [float, int, str, bool]
    assert type(next(iter(out))) is str


def test_only_not_applicable_figures_give_a_reason(claims):
    c = make(claims, "T2-FIGS")
    c.against("size", 5.0, unit="GB", model="gemma3")
    c.observe("context", 1)
    assert c.not_applicable_reason() == "figure stated for phi4; model under test is gemma3"
    c.against("rate", 23.3)
    assert c.not_applicable_reason() is None
    assert make(claims, "T2-FIGS").not_applicable_reason() is None  # nothing recorded at all


def test_particular_figures_are_judged_on_recorded_data_and_shown_beside_live_data(claims):
    recorded = make(claims, "T2-FIGS", source="recorded")
    assert not recorded.against("digest", "xyz")
    assert recorded.measurements[-1]["compared"] is True

    live = make(claims, "T2-FIGS", source="live")
    assert live.against("digest", "xyz")
    m = live.measurements[-1]
    assert m["compared"] is False and m["holds"] is True and m["matches"] is False
    assert m["note"].startswith("differs from the document's own run; not judged: the author's")
    assert live.against("digest", "abc")
    assert live.measurements[-1]["matches"] is True
    # Shown beside, judged nowhere: the live check decides nothing about the claim.
    assert live.conclude().kind == "not-applicable"


FORMS_DOC = """
[document]
id = "T6"
title = "t"
seeds = []
sections = ["S"]

[[claim]]
id = "T6-F"
section = "S"
statement = "s"
tiers = ["offline"]
stated = [
  { name = "cap", value = "2", unit = "%", form = "at-most", reading = "r" },
  { name = "floor", value = "4", unit = "GB", form = "at-least", reading = "r" },
  { name = "base", value = "10", unit = "GB" },
  { name = "twice", value = "2", unit = "x", form = "ratio", of = "base" },
  { name = "role", values = ["attn_k", "attn_v"], form = "one-of" },
  { name = "spark cap", value = "273", unit = "GB/s", form = "at-most", profile = "dgx-spark" },
]
"""


def _forms(form: str | None = None, *, source: str = "fixture", profile: str = "generic"):
    """T6-F's check, with the form of its first figure ("cap", at-most) replaced by ``form``."""
    text = FORMS_DOC
    if form is not None:
        text = text.replace('form = "at-most", reading', f'form = "{form}", reading', 1)
    claim = load_document("T6.toml", text=text).claims[0]
    return Check(claims=(claim,), nodeid="t::f", source=source, profile=profile)  # type: ignore[arg-type]


def test_bounds_are_judged_against_the_literal():
    c = _forms()
    assert c.against("cap", 1.9, unit="%")
    assert c.against("cap", 2.0, unit="%")  # at most: the bound itself holds
    assert not c.against("cap", 2.04, unit="%")  # printed precision is no slack for a bound
    assert c.against("floor", 4.2e9, unit="B")  # converted into the figure's unit first
    assert not c.against("floor", 3.9, unit="GB")
    assert c.measurements[0]["stated_display"] == "≤ 2 %"
    assert c.conclude().kind == "refuted"


def test_a_bound_on_an_interval_holds_when_the_interval_can_meet_it():
    c = _forms()
    assert c.against("cap", Interval(1.5, 2.5), unit="%")
    assert not c.against("cap", Interval(2.1, 2.5), unit="%")
    assert c.against("floor", Interval(3.0, 4.0), unit="GB")


def test_a_perturbed_form_changes_the_verdict():
    """The catalog's form, not the test, decides: the same measurement under another form."""
    assert _forms().against("cap", 1.5, unit="%")
    assert not _forms("at-least").against("cap", 1.5, unit="%")
    assert not _forms("equal").against("cap", 1.2, unit="%")  # "2" admits [1.5, 2.5]
    c = _forms("at-least")
    c.against("cap", 1.5, unit="%")
    assert c.conclude().kind == "refuted"


def test_a_ratio_is_judged_over_the_figure_it_names():
    c = _forms()
    with pytest.raises(CheckUsageError, match=r"ratio over 'base': check.against\('base'"):
        c.against("twice", 20, unit="GB")
    c.against("base", 10, unit="GB")
    assert c.against("twice", 20, unit="GB")
    assert c.against("twice", 20_000, unit="MB")  # in the unit of the figure it is over
    assert not c.against("twice", 30, unit="GB")


def test_one_of_is_membership():
    c = _forms()
    assert c.against("role", "attn_v")
    assert not c.against("role", "ffn_up")
    assert c.measurements[0]["stated_display"] == "one of attn_k, attn_v"


def test_a_bound_refuses_what_is_not_a_number():
    with pytest.raises(CheckUsageError, match="T6-F, figure 'cap': cannot compare NoneType"):
        _forms().against("cap", None)


def test_the_scope_rule_is_the_checks():
    from claims.check import out_of_scope

    claim = load_document("T6.toml", text=FORMS_DOC).claims[0]
    spark = claim.figure("spark cap")
    size = load_document("T2.toml", text=DOC).claims[0].figure("size")
    # A profile's figure: judged on recorded data always, live and fixture data on that profile.
    assert out_of_scope(spark, model=None, profile="dgx-spark", source="live") is None
    assert out_of_scope(spark, model=None, profile="generic", source="recorded") is None
    assert "dgx-spark profile; this run is generic" in str(
        out_of_scope(spark, model=None, profile="generic", source="live")
    )
    # A model's figure: judged only for that model, by Ollama's name rule, on any source.
    assert out_of_scope(size, model="phi4:latest", profile="generic", source="live") is None
    assert "stated for phi4; model under test is gemma3" in str(
        out_of_scope(size, model="gemma3", profile="generic", source="recorded")
    )
    assert "model under test is none" in str(
        out_of_scope(size, model=None, profile="generic", source="fixture")
    )


def test_applies_asks_the_scope_rule_and_records_nothing():
    assert _forms(profile="dgx-spark").applies("spark cap")
    c = _forms()
    assert not c.applies("spark cap")
    assert c.measurements == []
    c.against("spark cap", 500.0, unit="GB/s")
    assert c.measurements[0]["applicable"] is False
    assert c.conclude().kind == "not-applicable"


def test_jsonable_text_is_utf8_whatever_bytes_a_file_name_had():
    # A record with a lone surrogate cannot cross pytest-xdist's channel (issue 44).
    name = os.fsdecode(b"sha256-\xff")
    got = jsonable({name: [name, ("x", name)]})
    assert got == {"sha256-\ufffd": ["sha256-\ufffd", ["x", "sha256-\ufffd"]]}
