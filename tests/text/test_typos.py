"""claims.text.typos: each transcription mistake, on its own, as a pure function."""

from __future__ import annotations

import pytest

from claims.text.typos import (
    KINDS,
    digit_added,
    digit_dropped,
    digit_plus_one,
    digits_swapped,
    letter_changed,
    mistakes,
    sign_flipped,
    times_ten,
    unit_swapped,
)


def test_digit_plus_one_changes_each_digit_in_turn():
    assert digit_plus_one("4.9") == ["5.9", "4.0"]
    assert digit_plus_one("phi") == []


def test_a_letter_changes_only_where_there_is_no_digit():
    assert letter_changed("phi4") == []
    assert letter_changed("-abc") == ["-bbc"]
    assert letter_changed("gemma") == ["aemma"]
    assert letter_changed("--") == []


def test_neighbouring_different_digits_swap():
    assert digits_swapped("4.37") == ["4.73"]
    assert digits_swapped("1,008") == ["1,080"]
    assert digits_swapped("112") == ["121"]
    assert digits_swapped("7") == []


def test_ten_times_moves_the_point_of_the_first_number():
    assert times_ten("4.7 GB") == ["47 GB"]
    assert times_ten("4.75") == ["47.5"]
    assert times_ten("256 MB and 512 MB") == ["2560 MB and 512 MB"]
    assert times_ten("1,008 tokens") == ["10,080 tokens"]
    assert times_ten("none") == [] and times_ten("0 B") == []


def test_the_sign_of_the_first_number_flips():
    assert sign_flipped("23.3 tok/s") == ["-23.3 tok/s"]
    assert sign_flipped("offset -5") == ["offset 5"]
    assert sign_flipped("n/a") == []


def test_decimal_and_binary_units_swap():
    assert unit_swapped("4.7 GB") == ["4.7 GiB"]
    assert unit_swapped("256 MiB, 1 TB") == ["256 MB, 1 TB", "256 MiB, 1 TiB"]
    assert unit_swapped("4 kB") == ["4 KiB"]
    # Only a unit on its own: GBps, GGUF and "GB" inside a word are not units here.
    assert unit_swapped("GBps GGUF") == []


def test_a_digit_is_dropped_or_doubled():
    assert digit_dropped("256") == ["56", "26", "25"]
    assert digit_dropped("100") == ["00", "10"]
    assert digit_dropped("v4") == []  # one digit: dropping it names another thing
    assert digit_added("256 and 7") == ["2566 and 7", "256 and 77"]
    assert digit_added("4.7") == ["4.77"]


@pytest.mark.parametrize("make", KINDS.values())
def test_every_kind_returns_only_changed_texts(make):
    for text in ("0", "4.7 GB", "Q4_K_M", "1,008", "-3", "", "1e-06"):
        assert all(variant != text for variant in make(text)), (make.__name__, text)


def test_mistakes_keep_the_values_type_and_skip_what_reads_the_same():
    ints = list(mistakes(256))
    assert ("10x", 2560) in ints and ("sign", -256) in ints and ("dropped digit", 56) in ints
    assert all(isinstance(v, int) for _, v in ints)
    floats = dict((v, k) for k, v in mistakes(0.5))
    assert 0.5 not in floats  # ".5" (the 0 dropped) reads as the same number
    assert floats[5.0] == "10x" and floats[-0.5] == "sign"
    texts = list(mistakes("4.37 GB"))
    assert ("unit", "4.37 GiB") in texts and ("digit swap", "4.73 GB") in texts
    assert list(mistakes(True)) == [] and list(mistakes(None)) == []
    assert {k for k, _ in mistakes("1.25 GB")} == set(KINDS) - {"letter"}
