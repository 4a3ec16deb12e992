"""claims.audit.mutate: perturbations a check reading the figure must notice."""

from __future__ import annotations

from claims.audit.mutate import (
    corrected,
    flipped,
    form_slips,
    moved,
    near,
    scope_slip,
    slips,
    unit_slips,
)
from claims.catalog.records import StatedFigure
from claims.figures import agrees


def number(text: str, **kw: object) -> StatedFigure:
    return StatedFigure(name="x", kind="number", text=text, **kw)  # type: ignore[arg-type]


def test_a_moved_number_admits_no_recorded_measurement():
    fig = number("256", unit="MB")
    up, down = moved(fig, [256.2]), moved(fig, [256.2], down=True)
    assert up.text == "384" and down.text == "128"
    assert not agrees(256.2, up.expected()) and not agrees(256.2, down.expected())


def test_a_move_outruns_a_wide_tolerance():
    from decimal import Decimal

    fig = number("1.5", tolerance=Decimal("1"), tolerance_reason="loose")
    assert not agrees(1.5, moved(fig, [1.5]).expected())


def test_printed_form_is_kept():
    assert moved(number("1,008"), [1008]).text == "1,512"
    assert moved(number("4.7"), [4.7]).text == "7.0"


def test_an_erratum_figure_is_corrected_to_what_was_measured():
    fig = number("256", unit="MB")
    fixed = corrected(fig, [268.435456])
    assert fixed is not None and fixed.text == "268" and agrees(268.435456, fixed.expected())
    # An interval measurement (computed from printed figures) is met by the correction.
    rng = StatedFigure(name="r", kind="range", low="0", high="1", unit="s")
    fixed_range = corrected(rng, [{"lo": 5.9, "hi": 5.91}, {"lo": 6.15, "hi": 6.16}])
    assert fixed_range is not None
    assert fixed_range.low == "6" and fixed_range.high == "6"


def test_text_lists_and_flags_change():
    assert moved(StatedFigure(name="t", kind="text", text="phi4"), []).text != "phi4"
    lst = StatedFigure(name="l", kind="list", values=("a", "b"))
    assert set(moved(lst, []).values) != {"a", "b"}
    assert moved(StatedFigure(name="b", kind="bool", flag=True), []).flag is False


def test_near_values_step_around_the_printed_one():
    texts = [f.text for f in near(number("60"))]
    assert "59" in texts and "61" in texts and "56" in texts and "60" not in texts


def test_a_unit_slip_keeps_the_number_and_misreads_it_in_each_unit_of_its_dimension():
    def units(fig: StatedFigure) -> list[str | None]:
        return [f.unit for f in unit_slips(fig)]

    assert units(number("17.9", unit="TFLOP/s")) == ["MFLOP/s", "GFLOP/s", "PFLOP/s"]
    assert units(number("22.5", unit="x")) == ["%"]
    assert units(number("3.42", unit="ms")) == ["ns", "us", "s", "min", "h"]
    # Every byte unit but the figure's own, one per scale (bytes is B, kB is KB).
    sizes = units(number("121", unit="GiB"))
    assert sizes == ["B", "KB", "MB", "GB", "TB", "KiB", "MiB", "TiB"]
    assert all(f.text == "121" for f in unit_slips(number("121", unit="GiB")))
    assert units(number("3")) == [] and units(number("4", unit="W")) == []
    text = StatedFigure(name="t", kind="text", text="gguf", unit="B")
    assert unit_slips(text) == []


def test_form_slips_read_a_bound_the_other_way_and_an_exact_figure_as_a_bound():
    at_most = number("2", unit="KB", form="at-most")
    assert sorted(f.form for f in form_slips(at_most)) == ["at-least", "equal"]
    ratio = number("5", form="ratio", of="decode")
    assert all(f.of is None and f.form != "ratio" for f in form_slips(ratio))
    kinds = [kind for kind, _ in slips(at_most, "generic")]
    assert kinds == ["unit"] * 8 + ["form", "bound direction", "scope"]


def test_a_scope_slip_drops_a_scope_or_adds_one_of_another_machine():
    spark = number("121", profile="dgx-spark", model="phi4")
    general = scope_slip(spark, "generic")
    assert general.profile is None and general.model is None
    assert scope_slip(number("2"), "generic").profile == "dgx-spark"
    assert scope_slip(number("2"), "dgx-spark").profile == "generic"

def test_a_bound_is_flipped_and_nothing_else_is():
    """A bound's direction is a slip a factor cannot stand for: 'at most 64 KiB' judged on
    0.4 KiB holds at every coarse factor, and fails only when read as 'at least'."""
    cap = StatedFigure(name="size", kind="number", text="64", unit="KiB", form="at-most")
    floor = StatedFigure(name="kv", kind="number", text="4", unit="GB", form="at-least")
    assert flipped(cap) == StatedFigure(
        name="size", kind="number", text="64", unit="KiB", form="at-least"
    )
    turned = flipped(floor)
    assert turned is not None and turned.form == "at-most" and turned.display == "≤ 4 GB"
    assert flipped(StatedFigure(name="n", kind="number", text="64")) is None
