"""The one GGUF token-string decoder: each convention, its failure contract, hostile tokens."""

from __future__ import annotations

from pathlib import Path

import gguf
import pytest
from gguf.vocab import bytes_to_unicode
from hypothesis import given
from hypothesis import strategies as st

from claims.probes.errors import InputError
from claims.probes.files.gguf_file import read_header
from claims.probes.files.gguf_file.token_strings import (
    KNOWN_TOKENIZER_MODELS,
    UndecodableToken,
    check_tokenizer_model,
    token_bytes,
)

B2U = bytes_to_unicode()
CONTROL, USER_DEFINED = int(gguf.TokenType.CONTROL), int(gguf.TokenType.USER_DEFINED)


def gpt2_form(raw: bytes) -> str:
    return "".join(B2U[b] for b in raw)


# --- the two conventions ----------------------------------------------------------------
@given(st.binary(max_size=64))
def test_gpt2_form_round_trips(raw: bytes) -> None:
    assert token_bytes(gpt2_form(raw), "gpt2") == raw


@given(st.text(max_size=40).filter(lambda s: "\u2581" not in s))
def test_sentencepiece_text_is_its_utf8(text: str) -> None:
    # hypothesis' text() never draws surrogates, so every draw is encodable
    if text.startswith("<0x") and len(text) == 6:
        return
    assert token_bytes(text, "llama") == text.encode("utf-8")


def test_every_byte_piece_is_its_byte() -> None:
    for b in range(256):
        assert token_bytes(f"<0x{b:02X}>", "llama") == bytes([b])
        assert token_bytes(f"<0x{b:02x}>", "llama") == bytes([b])


def test_known_forms() -> None:
    assert token_bytes("Ġthe", "gpt2") == b" the"
    assert token_bytes("Ċ", "gpt2") == b"\n"
    assert token_bytes("▁the", "llama") == b" the"
    assert token_bytes("<0x0A>", "llama") == b"\n"
    assert token_bytes("<unused0>", "llama") == b"<unused0>"
    assert token_bytes("<|im_start|>", "gpt2") == b"<|im_start|>"  # ASCII maps to itself


def test_control_and_user_defined_tokens_are_their_own_text() -> None:
    # The numbers GGUF files store (llama.cpp's llama_token_type), as gguf-py names them.
    assert (CONTROL, USER_DEFINED) == (3, 4)
    # A control token outside GPT-2's table (DeepSeek writes full-width bars and '▁').
    odd = "<｜begin▁of▁sentence｜>"
    with pytest.raises(UndecodableToken):
        token_bytes(odd, "gpt2")
    assert token_bytes(odd, "gpt2", CONTROL) == odd.encode("utf-8")
    assert token_bytes("a b", "gpt2", USER_DEFINED) == b"a b"
    # Under SentencePiece a control token keeps its '▁' (it is not a space there).
    assert token_bytes("<start▁turn>", "llama", CONTROL) == "<start▁turn>".encode()
    # NORMAL, BYTE and the rest follow the model's convention.
    assert token_bytes("Ġx", "gpt2", int(gguf.TokenType.NORMAL)) == b" x"
    assert token_bytes("<0x41>", "llama", int(gguf.TokenType.BYTE)) == b"A"


# --- the failure contract ---------------------------------------------------------------
@pytest.mark.parametrize("model", [None, "bert", "t5", "rwkv", "", "GPT2", 2])
def test_an_unknown_tokenizer_model_is_refused_not_guessed(model: object) -> None:
    with pytest.raises(UndecodableToken, match="not one this decoder knows") as info:
        token_bytes("abc", model)  # type: ignore[arg-type]
    assert info.value.field == "tokenizer.ggml.model"
    assert isinstance(info.value, InputError)
    with pytest.raises(UndecodableToken):
        check_tokenizer_model(model)


def test_the_known_models() -> None:
    assert KNOWN_TOKENIZER_MODELS == ("gpt2", "llama")
    for model in KNOWN_TOKENIZER_MODELS:
        assert check_tokenizer_model(model) == model


@pytest.mark.parametrize(
    "token",
    [
        "a b",  # a plain space never appears in byte-level form
        "\u2581the",  # SentencePiece's space is no GPT-2 byte
        "\x00",  # byte 0 is written 'Ā' in byte-level form, never as itself
        "tab\there",
        "emoji 🚀",
    ],
)
def test_a_character_outside_gpt2s_table_is_refused(token: str) -> None:
    with pytest.raises(UndecodableToken, match="not in GPT-2's byte table") as info:
        token_bytes(token, "gpt2")
    assert info.value.field == "tokenizer.ggml.tokens"


# --- hostile tokens ---------------------------------------------------------------------
@pytest.mark.parametrize("model", ["gpt2", "llama"])
def test_a_lone_surrogate_is_refused_with_a_message(model: str) -> None:
    # JSON from a server may carry "\ud800"; GGUF files are strict UTF-8.
    with pytest.raises(UndecodableToken, match=r"UTF-8 cannot encode|byte table"):
        token_bytes("x\ud800y", model, CONTROL)
    if model == "llama":
        with pytest.raises(UndecodableToken, match="UTF-8 cannot encode"):
            token_bytes("\udcff", model)


@pytest.mark.parametrize("token", [None, 42, b"bytes", ["a"]])
def test_a_token_that_is_not_a_string_is_refused(token: object) -> None:
    with pytest.raises(UndecodableToken, match="not a string"):
        token_bytes(token, "llama")  # type: ignore[arg-type]


def test_error_messages_are_short_and_escaped() -> None:
    hostile = "\x1b[31mred\u202e" + "Z" * 10_000 + " "
    with pytest.raises(UndecodableToken) as info:
        token_bytes(hostile, "gpt2")
    text = str(info.value)
    assert len(text) < 200
    assert "\x1b" not in text and "\u202e" not in text
    assert "\\x1b" in text and "..." in text
    with pytest.raises(UndecodableToken) as info:
        token_bytes("x", "\x1b]0;title\x07" + "m" * 1000)
    assert "\x1b" not in str(info.value) and len(str(info.value)) < 200


@pytest.mark.parametrize("kind", [None, "3", 3.0, [3], {"x": 1}, True])
def test_a_token_type_that_is_not_an_integer_is_ignored(kind: object) -> None:
    # bool is an int subclass but no GGUF token type: True must not read as a type
    assert token_bytes("Ġx", "gpt2", kind) == b" x"  # type: ignore[arg-type]


def test_near_miss_byte_pieces_are_text() -> None:
    assert token_bytes("<0xZZ>", "llama") == b"<0xZZ>"
    assert token_bytes("<0x0A0>", "llama") == b"<0x0A0>"
    assert token_bytes("<0x0A>\n", "llama") == b"<0x0A>\n"
    assert token_bytes("<0x0A>", "gpt2") == b"<0x0A>"  # no byte pieces in byte-level BPE


# --- a real vocabulary ------------------------------------------------------------------
def test_the_bundled_gemma_vocabulary_decodes_whole(gemma_gguf: Path) -> None:
    """Every token of the real Gemma 3 270M file, with its type: none refused, and the
    256 BYTE tokens are exactly the bytes 0..255."""
    header = read_header(gemma_gguf)
    assert header.tokenizer.model == "llama"
    tokens = header.array("tokenizer.ggml.tokens")[:]
    types = header.array("tokenizer.ggml.token_type")[:]
    assert len(tokens) == len(types) == header.tokenizer.token_count
    byte_values = []
    for token, kind in zip(tokens, types, strict=True):
        raw = token_bytes(token, "llama", kind)
        if kind == int(gguf.TokenType.BYTE):
            byte_values.append(raw)
    assert sorted(byte_values) == [bytes([b]) for b in range(256)]
