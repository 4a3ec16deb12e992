"""llama.cpp's Q4_K_M recipe as restated in claims.probes.arithmetic.kquant."""

from __future__ import annotations

import pytest

from claims.probes.arithmetic.kquant import layers_from_census, q4_k_m_recipe, use_more_bits
from claims.probes.errors import InputError


def test_use_more_bits_picks_14_of_28_layers() -> None:
    picked = [i for i in range(28) if use_more_bits(i, 28)]
    # first eighth (0-2), last eighth (24-27), every third between (5, 8, ..., 23)
    assert picked == [0, 1, 2, 5, 8, 11, 14, 17, 20, 23, 24, 25, 26, 27]


def test_recipe_census_for_llama32_3b() -> None:
    assert q4_k_m_recipe(28).census() == {"Q4_K": 168, "Q6_K": 29, "F32": 58}


def test_roles_keep_attn_k_and_ffn_gate_at_q4_k() -> None:
    recipe = q4_k_m_recipe(28)
    assert set(recipe.role_types("attn_k")) == {"Q4_K"}
    assert set(recipe.role_types("ffn_gate")) == {"Q4_K"}
    assert recipe.role_types("attn_v").count("Q6_K") == 14
    assert recipe.role_types("ffn_down").count("Q6_K") == 14
    with pytest.raises(InputError):
        recipe.role_types("token_embd")


def test_layers_from_census_both_ways() -> None:
    assert layers_from_census({"Q4_K": 168, "Q6_K": 29, "F32": 58}) == (28, 28)
    # a census that fits no llama layout gives None, not a wrong count
    assert layers_from_census({"Q4_K": 168, "Q6_K": 30, "F32": 57}) == (None, None)
    with pytest.raises(InputError):
        q4_k_m_recipe(0)
