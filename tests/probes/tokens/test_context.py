"""A returned ``context`` decoded with the model's own vocabulary (claims.probes.tokens.context).

The real check: Ollama 0.31.2 answered a /api/generate for gemma3:270m with its
``context`` ids and its ``response`` text (fixtures/ollama-0.31.2/http/10); the
bundled Gemma GGUF is the very file that model was made from (same SHA-256), so
its vocabulary must turn the answer's ids back into the text Ollama returned.

A byte-level (``gpt2``) vocabulary is checked the same way against tiktoken:
cl100k_base written out as a GGUF writes its tokens (each byte one printable
character, GPT-2's table) must decode whatever tiktoken encoded.
"""

from __future__ import annotations

import json
from pathlib import Path

import gguf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claims.probes.errors import InputError
from claims.probes.files.gguf_file import read_header
from claims.probes.files.gguf_file.token_strings import UndecodableToken
from claims.probes.tokens.cl100k_base import CL100K_VOCAB_SIZE, cl100k, encode
from claims.probes.tokens.context import Vocabulary, decode_cl100k

RECORDED = Path(__file__).resolve().parents[3] / "fixtures" / "ollama-0.31.2" / "http"
CONTROL = int(gguf.TokenType.CONTROL)
TEXT = "naïve café, 東京 🙂 — tokens"


@pytest.fixture(scope="module")
def gemma_vocabulary(gemma_gguf: Path) -> Vocabulary:
    header = read_header(gemma_gguf)
    return Vocabulary(
        tuple(header.array("tokenizer.ggml.tokens")[:]),
        str(header.tokenizer.model),
        "tokenizer.ggml.tokens of the bundled Gemma 3 270M GGUF",
        tuple(header.array("tokenizer.ggml.token_type")[:]),
    )


def test_ollamas_recorded_context_decodes_to_its_prompt_and_response(
    gemma_vocabulary: Vocabulary,
) -> None:
    exchange = json.loads((RECORDED / "10-generate-nostream.json").read_text("utf-8"))
    reply, sent = exchange["body"], exchange["request"]["body"]
    context = reply["context"]
    # 10's note: prompt_eval_count 8 counts the BOS token, which context does not keep.
    n_prompt = reply["prompt_eval_count"] - 1
    assert gemma_vocabulary.decode(context[:n_prompt]) == sent["prompt"]
    assert gemma_vocabulary.decode(context[n_prompt:]) == reply["response"]
    assert len(context) - n_prompt == reply["eval_count"]


def test_split_characters_mend_across_byte_pieces() -> None:
    vocab = Vocabulary(("<0xF0>", "<0x9F>", "<0x9A>", "<0x80>", "\u2581go"), "llama", "hand-made")
    assert vocab.decode([0, 1, 2, 3, 4]) == "🚀 go"
    # One piece alone is half a character: shown as U+FFFD, not an exception.
    assert vocab.names([0, 4]) == ["\ufffd", " go"]


def test_token_types_decide_what_is_literal() -> None:
    odd = "<｜end▁of▁sentence｜>"  # a control token outside GPT-2's table
    typed = Vocabulary(("Ġhi", odd), "gpt2", "hand-made", (1, CONTROL))
    assert typed.decode([0, 1]) == " hi" + odd
    untyped = Vocabulary(("Ġhi", odd), "gpt2", "hand-made")
    with pytest.raises(UndecodableToken, match="not in GPT-2's byte table"):
        untyped.decode([1])


def test_refusals_are_input_errors_with_a_reason() -> None:
    with pytest.raises(InputError, match="not one this decoder knows"):
        Vocabulary(("a",), "bert", "hand-made")
    vocab = Vocabulary(("a", "b"), "llama", "hand-made")
    for bad in (-1, 2, 10**12):
        with pytest.raises(InputError, match="outside the vocabulary of 2 tokens"):
            vocab.decode([bad])


def test_a_token_type_array_that_is_not_integers_is_not_used() -> None:
    vocab = Vocabulary(("Ġx",), "gpt2", "hand-made", ("3",))  # type: ignore[arg-type]
    assert vocab.token_types == ()
    assert vocab.decode([0]) == " x"


@pytest.fixture(scope="module")
def cl100k_as_gguf() -> Vocabulary:
    from gguf.vocab import bytes_to_unicode

    enc, table = cl100k(), bytes_to_unicode()
    tokens = tuple(
        "".join(table[b] for b in enc.decode_single_token_bytes(i))
        for i in range(CL100K_VOCAB_SIZE)
    )
    return Vocabulary(tokens, "gpt2", "cl100k_base as a GGUF writes it")


def test_byte_level_ids_decode_to_the_text_tiktoken_encoded(cl100k_as_gguf):
    ids = encode(TEXT)
    assert cl100k_as_gguf.decode(ids) == TEXT == decode_cl100k(ids)


def test_a_character_split_across_tokens_mends_only_when_decoded_together(cl100k_as_gguf):
    ids = encode("🙂")
    assert len(ids) > 1  # cl100k_base writes this emoji as more than one token
    assert cl100k_as_gguf.decode(ids) == "🙂"
    pieces = cl100k_as_gguf.names(ids)
    assert len(pieces) == len(ids) and "🙂" not in "".join(pieces)
    assert b"".join(cl100k_as_gguf.piece_bytes(i) for i in ids) == "🙂".encode()


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40))
def test_any_text_round_trips_through_the_byte_level_table(cl100k_as_gguf, text):
    assert cl100k_as_gguf.decode(encode(text)) == text


def test_sentencepiece_spaces_and_byte_pieces(gemma_vocabulary):
    gemma = gemma_vocabulary
    assert gemma.model == "llama"
    index = {piece: i for i, piece in enumerate(gemma.tokens)}
    ids = [index["▁Hello"], index["<0xE2>"], index["<0x82>"], index["<0xAC>"]]
    assert gemma.decode(ids) == " Hello€"
    assert gemma.piece_bytes(index["<0x41>"]) == b"A"
