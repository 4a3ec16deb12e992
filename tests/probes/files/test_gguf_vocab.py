"""Comparing a GGUF vocabulary with cl100k_base, id by id, as bytes."""

from __future__ import annotations

import pytest
from gguf.vocab import bytes_to_unicode
from hypothesis import given
from hypothesis import strategies as st

from claims.probes.errors import InputError
from claims.probes.files.gguf_file.vocab import compare_with_cl100k, token_bytes
from claims.probes.tokens.cl100k_base import CL100K_VOCAB_SIZE, cl100k

B2U = bytes_to_unicode()


def gpt2_form(raw: bytes) -> str:
    return "".join(B2U[b] for b in raw)


@given(st.binary(max_size=64))
def test_gpt2_form_round_trips(raw: bytes) -> None:
    assert token_bytes(gpt2_form(raw), "gpt2") == raw


def test_known_forms() -> None:
    assert token_bytes("Ġthe", "gpt2") == b" the"
    assert token_bytes("Ċ", "gpt2") == b"\n"
    assert token_bytes("▁the", "llama") == b" the"
    assert token_bytes("<0x0A>", "llama") == b"\n"
    assert token_bytes("<unused0>", "llama") == b"<unused0>"
    assert token_bytes("é", None) == "é".encode()
    with pytest.raises(InputError, match="not in GPT-2's byte table"):
        token_bytes("a b", "gpt2")  # a plain space never appears in byte-level form


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
