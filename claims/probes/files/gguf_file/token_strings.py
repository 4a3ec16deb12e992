"""GGUF token strings turned back into the bytes they stand for: the one decoder.

A GGUF vocabulary (``tokenizer.ggml.tokens``) stores each token in its
tokenizer's own text form, not as bytes. Which form is set by
``tokenizer.ggml.model`` and, per token, by ``tokenizer.ggml.token_type``
(gguf-py's :class:`gguf.TokenType`):

* ``"gpt2"`` (byte-level BPE: GPT-2, llama 3, qwen, phi4's cl100k-style
  vocabulary): every byte is written as one printable character, GPT-2's
  ``bytes_to_unicode`` table (space -> 'Ġ', newline -> 'Ċ');
* ``"llama"`` (SentencePiece: gemma, llama 2): '▁' (U+2581) stands for a space
  and a byte-fallback token is written ``<0xNN>``;
* under either, a ``CONTROL`` or ``USER_DEFINED`` token (``<|im_start|>``,
  ``<start_of_turn>``) is its own text, UTF-8 encoded, as llama.cpp's
  ``token_to_piece`` renders it.

Failure contract (the same for every caller): :func:`token_bytes` returns the
bytes, or raises :class:`UndecodableToken` (an
:class:`~claims.probes.errors.InputError` with ``field="tokenizer.ggml.tokens"``)
naming the token, shortened and escaped, and why. It never falls back to
another convention on its own: a caller that wants a fallback (count the
token as undecodable, give up on a reconstruction) catches the error and says
so. The reasons it raises:

* the tokenizer model is not ``gpt2`` or ``llama`` (a convention this module
  does not know; guessing UTF-8 would compare the wrong bytes);
* a byte-level token holds a character outside GPT-2's table (no byte
  sequence is written that way);
* a token that is its own text cannot be encoded as UTF-8 (a lone surrogate,
  which JSON from a server may carry; GGUF files are strict UTF-8).

Why hand-written: gguf-py 0.19.0 (the pinned ``gguf`` package) has the
encoder side only. ``gguf.vocab.bytes_to_unicode`` maps bytes to characters,
and its converters write ``<0xNN>`` pieces, but it has no function that reads
a token string back into bytes (searched: ``gguf/vocab.py``,
``gguf/gguf_reader.py``). So the table and the token types come from gguf-py
and the inverse is the few lines below.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gguf.constants import TokenType

from claims.probes.errors import InputError

__all__ = [
    "KNOWN_TOKENIZER_MODELS",
    "SPM_SPACE",
    "UndecodableToken",
    "check_tokenizer_model",
    "token_bytes",
]

KNOWN_TOKENIZER_MODELS = ("gpt2", "llama")
SPM_SPACE = "\u2581"  # SentencePiece's visible space
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
# Tokens that are their own text, in gguf-py's numbering of tokenizer.ggml.token_type.
_LITERAL_TYPES = frozenset({int(TokenType.CONTROL), int(TokenType.USER_DEFINED)})
_SHOWN_CHARS = 40  # of a token quoted in an error message


class UndecodableToken(InputError):
    """A token string that does not stand for any bytes under its tokenizer's convention."""


@lru_cache(maxsize=1)
def _gpt2_byte_decoder() -> dict[str, int]:
    from gguf.vocab import bytes_to_unicode

    return {char: byte for byte, char in bytes_to_unicode().items()}


def _shown(token: str) -> str:
    cut = token[:_SHOWN_CHARS]
    return repr(cut) + ("..." if len(token) > _SHOWN_CHARS else "")


def check_tokenizer_model(tokenizer_model: object) -> str:
    """``tokenizer_model`` if this module decodes it; UndecodableToken otherwise."""
    if tokenizer_model not in KNOWN_TOKENIZER_MODELS:
        shown = repr(tokenizer_model)[:_SHOWN_CHARS]
        raise UndecodableToken(
            f"tokenizer model {shown} is not one this decoder knows "
            f"({', '.join(KNOWN_TOKENIZER_MODELS)})",
            field="tokenizer.ggml.model",
        )
    return str(tokenizer_model)


def _utf8(token: str) -> bytes:
    try:
        return token.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UndecodableToken(
            f"token {_shown(token)} holds {token[exc.start]!r}, which UTF-8 cannot encode",
            field="tokenizer.ggml.tokens",
        ) from None


def token_bytes(token: str, tokenizer_model: str | None, token_type: int | None = None) -> bytes:
    """The bytes one GGUF token string stands for (see the module's failure contract).

    ``token_type`` is the token's ``tokenizer.ggml.token_type`` entry where the
    caller has it; without it (or with a value that is not an integer) every
    token is read under the model's convention.
    """
    model = check_tokenizer_model(tokenizer_model)
    if not isinstance(token, str):
        raise UndecodableToken(
            f"token is a {type(token).__name__}, not a string", field="tokenizer.ggml.tokens"
        )
    if type(token_type) is int and token_type in _LITERAL_TYPES:
        return _utf8(token)
    if model == "gpt2":
        decoder = _gpt2_byte_decoder()
        try:
            return bytes(decoder[ch] for ch in token)
        except KeyError as exc:
            raise UndecodableToken(
                f"token {_shown(token)} holds {exc.args[0]!r}, which is not in GPT-2's byte table",
                field="tokenizer.ggml.tokens",
            ) from None
    m = _BYTE_PIECE.fullmatch(token)
    if m is not None:
        return bytes([int(m.group(1), 16)])
    return _utf8(token.replace(SPM_SPACE, " "))
