"""A GGUF vocabulary compared with another vocabulary, id by id, as raw bytes.

GGUF token strings are stored in the tokenizer's own text form, not as the
bytes they stand for:

* ``tokenizer.ggml.model = "gpt2"`` (byte-level BPE: GPT-2, cl100k-style
  vocabularies such as phi4's): every byte is written as one printable Unicode
  character (space -> 'Ġ', newline -> 'Ċ'), GPT-2's ``bytes_to_unicode`` table;
* ``"llama"`` (SentencePiece, e.g. Gemma): '▁' stands for a space and byte
  fallback tokens are written ``<0x0A>``.

:func:`token_bytes` undoes that, so a GGUF vocabulary can be compared with
cl100k_base's ranks (``tiktoken``'s ``decode_single_token_bytes``) or with any
other vocabulary. :func:`compare_with_cl100k` counts, over cl100k's ordinary
ids (0-100,255), how many ids name the same bytes in both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from claims.probes.errors import InputError

__all__ = ["VocabularyComparison", "compare_with_cl100k", "token_bytes"]

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


@lru_cache(maxsize=1)
def _gpt2_decoder() -> dict[str, int]:
    # gguf-py ships GPT-2's table (copied from transformers); its inverse turns
    # a byte-level token string back into bytes.
    from gguf.vocab import bytes_to_unicode

    return {char: byte for byte, char in bytes_to_unicode().items()}


def token_bytes(token: str, tokenizer_model: str | None) -> bytes:
    """The bytes a GGUF token string stands for, under the file's tokenizer model.

    Raises InputError for a byte-level token holding a character outside
    GPT-2's table (it cannot stand for any byte sequence).
    """
    if tokenizer_model == "gpt2":
        decoder = _gpt2_decoder()
        try:
            return bytes(decoder[ch] for ch in token)
        except KeyError as exc:
            raise InputError(
                f"token {token[:40]!r} holds {exc.args[0]!r}, which is not in GPT-2's byte table",
                field="tokenizer.ggml.tokens",
            ) from None
    if tokenizer_model == "llama":
        m = _BYTE_TOKEN.fullmatch(token)
        if m:
            return bytes([int(m.group(1), 16)])
        return token.replace("\u2581", " ").encode("utf-8")
    return token.encode("utf-8")


@dataclass(frozen=True)
class VocabularyComparison:
    """How many of cl100k_base's ordinary ids name the same bytes in a GGUF vocabulary."""

    compared: int  # ids looked at: 0 .. min(len(vocabulary), 100,256) - 1
    matching: int
    gguf_size: int  # entries in the GGUF vocabulary
    cl100k_size: int  # ordinary (mergeable) ids in cl100k_base
    undecodable: int  # byte-level tokens that are not valid under GPT-2's table
    first_mismatches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def fraction(self) -> float:
        return self.matching / self.compared if self.compared else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "fraction": self.fraction}


def compare_with_cl100k(
    tokens: Sequence[str], tokenizer_model: str | None, *, show: int = 10
) -> VocabularyComparison:
    """Compare ``tokens`` (a GGUF vocabulary, id order) with cl100k_base id by id."""
    from claims.probes.tokens.cl100k_base import CL100K_VOCAB_SIZE, cl100k

    enc = cl100k()
    n = min(len(tokens), CL100K_VOCAB_SIZE)
    ours = tokens[:n]
    matching = undecodable = 0
    mismatches: list[dict[str, Any]] = []
    for tid, text in enumerate(ours):
        try:
            got = token_bytes(text, tokenizer_model)
        except InputError:
            undecodable += 1
            got = None
        want = enc.decode_single_token_bytes(tid)
        if got == want:
            matching += 1
        elif len(mismatches) < show:
            mismatches.append(
                {
                    "id": tid,
                    "gguf": text,
                    "gguf_bytes": None if got is None else got.hex(),
                    "cl100k_bytes": want.hex(),
                }
            )
    return VocabularyComparison(
        n, matching, len(tokens), CL100K_VOCAB_SIZE, undecodable, mismatches
    )
