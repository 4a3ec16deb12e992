"""claims.figures: printed literals, intervals and unit conversion."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claims.figures import (
    Interval,
    UnitError,
    agrees,
    convert,
    other_units,
    parse_literal,
    unit_spellings,
    units_printed_as,
)


@pytest.mark.parametrize(
    ("text", "value", "half"),
    [
        ("23.3", "23.3", "0.05"),
        ("0.80", "0.80", "0.005"),
        ("6,171,877,376", "6171877376", "0.5"),
        ("137", "137", "0.5"),
        ("-1", "-1", "0.5"),
        ("1e-06", "0.000001", "5e-7"),
    ],
)
def test_literal_keeps_printed_precision(text, value, half):
    lit = parse_literal(text)
    assert lit.value == Decimal(value)
    assert lit.half_unit == Decimal(half)


@pytest.mark.parametrize("text", ["", "4.1 GB", "1,00", "12,3456", "abc", "1.2.3", "--1", "0x10"])
def test_non_numbers_are_rejected_with_the_text(text):
    with pytest.raises(ValueError, match="not a printed number"):
        parse_literal(text)


def test_integers_are_exact():
    assert parse_literal("9,053,114,464").is_integer
    assert not parse_literal("9.1").is_integer
    interval = parse_literal("9053114464").interval()
    assert interval.contains(9053114464) and not interval.contains(9053114465)


def test_interval_arithmetic_carries_rounding():
    # 89 tokens / 3.82 s, with 3.82 meaning [3.815, 3.825]
    rate = Interval.point(89) / Interval.stated("3.82")
    assert rate.lo == pytest.approx(89 / 3.825) and rate.hi == pytest.approx(89 / 3.815)
    assert agrees(rate, Interval.stated("23.3"))


@pytest.mark.parametrize(
    ("measured", "stated", "agree"),
    [
        ("32,769", "32,768", False),  # neighbours touch at 32768.5 and share nothing
        ("32,767", "32,768", False),
        ("23.4", "23.3", False),
        ("23.35", "23.3", True),  # [23.345, 23.355) rounds to 23.3 below 23.35
        ("1.55", "1.6", True),
        ("32,768", "32,768", True),
    ],
)
def test_printed_neighbours_do_not_agree(measured, stated, agree):
    assert agrees(Interval.stated(measured), Interval.stated(stated)) is agree


def test_a_point_on_an_edge_still_agrees():
    assert agrees(32768.5, Interval.stated("32,768"))
    assert agrees(Interval.point(32768.5), Interval.stated("32,768"))
    # A range "4–8" stands for [3.5, 8.5]: "9" ([8.5, 9.5]) only touches it.
    assert not agrees(Interval.stated("9"), Interval(3.5, 8.5))
    assert agrees(Interval.stated("8"), Interval(3.5, 8.5))


def test_interval_subtraction_and_division_by_zero():
    diff = Interval(1, 2) - Interval(0.5, 1)
    assert (diff.lo, diff.hi) == (0, 1.5)
    with pytest.raises(ZeroDivisionError):
        Interval(1, 2) / Interval(-1, 1)


def test_empty_or_nan_intervals_are_refused():
    with pytest.raises(ValueError):
        Interval(2, 1)
    with pytest.raises(ValueError):
        Interval(float("nan"), 1)


@given(
    a=st.floats(-1e6, 1e6),
    b=st.floats(-1e6, 1e6),
    c=st.floats(-1e6, 1e6),
    d=st.floats(-1e6, 1e6),
    x=st.floats(0, 1),
    y=st.floats(0, 1),
)
def test_products_contain_every_product_of_members(a, b, c, d, x, y):
    i, j = Interval(min(a, b), max(a, b)), Interval(min(c, d), max(c, d))
    p = i.lo + x * (i.hi - i.lo)
    q = j.lo + y * (j.hi - j.lo)
    product = i * j
    assert product.lo - 1e-6 * max(1, abs(p * q)) <= p * q <= product.hi + 1e-6 * max(1, abs(p * q))


def test_unit_conversion_keeps_gb_and_gib_apart():
    assert convert(1_073_741_824, "B", "GiB") == 1.0
    assert convert(1_073_741_824, "B", "GB") == pytest.approx(1.073741824)
    assert convert(Interval(1, 2), "s", "ms") == Interval(1000, 2000)
    with pytest.raises(UnitError, match="cannot convert"):
        convert(1, "GB", "s")
    with pytest.raises(UnitError, match="unknown unit"):
        convert(1, "furlong", "GB")


def test_each_unit_has_the_other_units_of_its_dimension_one_per_scale():
    assert other_units("MB") == ["B", "KB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"]
    assert other_units("s") == ["ns", "us", "ms", "min", "h"]
    assert other_units("GFLOP/s") == ["MFLOP/s", "TFLOP/s", "PFLOP/s"]
    assert other_units("%") == ["x"] and other_units("tok/s") == ["tok/min"]
    assert other_units("W") == [] and other_units(None) == []
    # Each is convertible from the unit: a slip the audit makes is a reading, not nonsense.
    for unit in ("GB", "ms", "TFLOP/s", "GB/s", "x", "B params", "K tokens"):
        for other in other_units(unit):
            assert convert(1.0, unit, other) != 1.0


def test_printed_units_name_the_catalogs():
    assert units_printed_as("Gigabytes") == ("GB",) and units_printed_as("Gi") == ("GiB",)
    assert units_printed_as("GB") == ("GB",) and units_printed_as("tokens/sec") == ("tok/s",)
    assert set(units_printed_as("B")) == {"B", "B params"}  # "18 B", "14.7B"
    assert units_printed_as("furlongs") == ()
    spellings = unit_spellings()
    assert spellings.index("ms") < spellings.index("s")  # longest first


def test_agrees_rejects_non_numbers():
    with pytest.raises(TypeError):
        agrees("4.1", Interval(4, 5))
    with pytest.raises(TypeError):
        agrees(True, Interval(0, 1))
