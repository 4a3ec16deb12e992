"""Decode token ids (an Ollama ``context`` array) with a model's own vocabulary.

The vocabulary is the ``tokenizer.ggml.tokens`` array of the model's GGUF file,
read from the store's blob or returned by ``/api/show`` with ``verbose``, with
its ``tokenizer.ggml.token_type`` array where the source has it. Token strings
become bytes through the GGUF package's one decoder,
:func:`~claims.probes.files.gguf_file.token_strings.token_bytes` (``gpt2``
byte-level BPE or ``llama`` SentencePiece), and fail the way it does: an
:class:`~claims.probes.files.gguf_file.token_strings.UndecodableToken`.

Control tokens (``<|im_start|>``) are their literal names, as Ollama's template
shows them. For phi4 the ordinary ids also coincide with cl100k_base, so
:func:`decode_cl100k` offers an independent cross-check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from claims.probes.errors import InputError
from claims.probes.files.gguf_file.token_strings import check_tokenizer_model, token_bytes
from claims.probes.tokens.cl100k_base import decode

__all__ = ["Vocabulary", "decode_cl100k"]


@dataclass(frozen=True)
class Vocabulary:
    """A model's token strings and the convention they are written in."""

    tokens: tuple[str, ...]
    model: str  # tokenizer.ggml.model: "gpt2" or "llama"
    source: str  # where the strings came from, for the evidence
    token_types: tuple[int, ...] = ()  # tokenizer.ggml.token_type, id order; () if unknown

    def __post_init__(self) -> None:
        check_tokenizer_model(self.model)
        if not all(type(t) is int for t in self.token_types):
            object.__setattr__(self, "token_types", ())  # not an integer array: not used

    def piece_bytes(self, token_id: int) -> bytes:
        """The bytes one token stands for."""
        if not 0 <= token_id < len(self.tokens):
            raise InputError(
                f"token id {token_id} is outside the vocabulary of {len(self.tokens)} tokens",
                field="context",
            )
        kind = self.token_types[token_id] if token_id < len(self.token_types) else None
        return token_bytes(self.tokens[token_id], self.model, kind)

    def decode(self, ids: Sequence[int]) -> str:
        """The text of a run of ids (bytes joined first, so split characters mend)."""
        return b"".join(self.piece_bytes(i) for i in ids).decode("utf-8", errors="replace")

    def names(self, ids: Sequence[int]) -> list[str]:
        """Each id decoded on its own (as Week 2's decode_tokens.py prints them)."""
        return [self.decode([i]) for i in ids]


def decode_cl100k(ids: Sequence[int], specials: dict[int, str] | None = None) -> str:
    """Decode with cl100k_base (offline), naming ids above it from ``specials``."""

    return decode(list(ids), specials)

