"""Comparing a GGUF vocabulary with cl100k_base, id by id, as bytes (the decoder itself:
test_token_strings.py)."""

from __future__ import annotations

import pytest
from gguf.vocab import bytes_to_unicode

from claims.probes.errors import InputError
from claims.probes.tokens.cl100k_base import CL100K_VOCAB_SIZE, cl100k
from claims.probes.tokens.vocab import compare_with_cl100k

B2U = bytes_to_unicode()


def gpt2_form(raw: bytes) -> str:
    return "".join(B2U[b] for b in raw)


def test_cl100k_itself_matches_every_id_and_a_changed_id_is_found() -> None:
    enc = cl100k()
    tokens = [gpt2_form(enc.decode_single_token_bytes(i)) for i in range(CL100K_VOCAB_SIZE)]
    tokens += ["<|endoftext|>"]  # a special above the ordinary ids is not compared
    full = compare_with_cl100k(tokens, "gpt2")
    assert (full.compared, full.matching, full.undecodable) == (
        CL100K_VOCAB_SIZE,
        CL100K_VOCAB_SIZE,
        0,
    )
    assert full.fraction == 1.0 and full.gguf_size == CL100K_VOCAB_SIZE + 1
    tokens[4242] = gpt2_form(b"changed")
    tokens[7] = "not byte-level"
    changed = compare_with_cl100k(tokens, "gpt2")
    assert changed.matching == CL100K_VOCAB_SIZE - 2
    assert changed.undecodable == 1
    assert [m["id"] for m in changed.first_mismatches] == [7, 4242]


def test_an_unknown_tokenizer_model_is_refused_before_comparing() -> None:
    # Reading "bert" or a missing model as UTF-8 would compare the wrong bytes.
    for model in (None, "bert"):
        with pytest.raises(InputError, match="not one this decoder knows"):
            compare_with_cl100k(["a", "b"], model)
