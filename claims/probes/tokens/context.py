"""Decode token ids (an Ollama ``context`` array) with a model's own vocabulary.

The vocabulary is the ``tokenizer.ggml.tokens`` array of the model's GGUF file,
read from the store's blob or returned by ``/api/show`` with ``verbose``. Two
token-string conventions cover the models Ollama ships:

* ``gpt2`` (byte-level BPE, e.g. phi4, llama 3, qwen): every byte is written as
  one printable character; the table is GPT-2's ``bytes_to_unicode``, taken from
  the ``gguf`` package rather than rewritten here.
* ``llama`` (SentencePiece, e.g. gemma, llama 2): ``▁`` stands for a space and
  ``<0xNN>`` pieces are raw bytes.

Control tokens (``<|im_start|>``) are returned as their literal names, as
Ollama's template shows them. For phi4 the ordinary ids also coincide with
cl100k_base, so :func:`decode_cl100k` offers an independent cross-check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from claims.probes.errors import InputError

__all__ = ["Vocabulary", "decode_cl100k"]

_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


@lru_cache(maxsize=1)
def _byte_decoder() -> dict[str, int]:
    from gguf.vocab import bytes_to_unicode

    return {char: byte for byte, char in bytes_to_unicode().items()}


@dataclass(frozen=True)
class Vocabulary:
    """A model's token strings and the convention they are written in."""

    tokens: tuple[str, ...]
    model: str  # tokenizer.ggml.model: "gpt2" or "llama"
    source: str  # where the strings came from, for the evidence

    def __post_init__(self) -> None:
        if self.model not in ("gpt2", "llama"):
            raise InputError(
                f"tokenizer model {self.model!r} is not one this decoder knows (gpt2, llama)",
                field="tokenizer.ggml.model",
            )

    def piece_bytes(self, token_id: int) -> bytes:
        """The bytes one token stands for."""
        if not 0 <= token_id < len(self.tokens):
            raise InputError(
                f"token id {token_id} is outside the vocabulary of {len(self.tokens)} tokens",
                field="context",
            )
        piece = self.tokens[token_id]
        if self.model == "gpt2":
            table = _byte_decoder()
            if all(c in table for c in piece):
                return bytes(table[c] for c in piece)
            return piece.encode("utf-8")  # a control token written literally
        m = _BYTE_PIECE.fullmatch(piece)
        if m is not None:
            return bytes([int(m.group(1), 16)])
        return piece.replace("\u2581", " ").encode("utf-8")

    def decode(self, ids: Sequence[int]) -> str:
        """The text of a run of ids (bytes joined first, so split characters mend)."""
        return b"".join(self.piece_bytes(i) for i in ids).decode("utf-8", errors="replace")

    def names(self, ids: Sequence[int]) -> list[str]:
        """Each id decoded on its own (as Week 2's decode_tokens.py prints them)."""
        return [self.decode([i]) for i in ids]


def decode_cl100k(ids: Sequence[int], specials: dict[int, str] | None = None) -> str:
    """Decode with cl100k_base (offline), naming ids above it from ``specials``."""
    from claims.probes.tokens.cl100k_base import decode

    return decode(list(ids), specials)

