"""A GGUF vocabulary compared with cl100k_base, id by id, as raw bytes.

GGUF token strings are stored in the tokenizer's own text form, not as the
bytes they stand for; :func:`~claims.probes.files.gguf_file.token_strings.token_bytes`
undoes that, so a GGUF vocabulary can be set beside cl100k_base's ranks
(``tiktoken``'s ``decode_single_token_bytes``). :func:`compare_with_cl100k`
counts, over cl100k's ordinary ids (0-100,255), how many ids name the same
bytes in both; a token the decoder refuses is counted as undecodable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from claims.probes.files.gguf_file.token_strings import (
    UndecodableToken,
    check_tokenizer_model,
    token_bytes,
)
from claims.probes.tokens.cl100k_base import CL100K_VOCAB_SIZE, cl100k

__all__ = ["VocabularyComparison", "compare_with_cl100k"]


@dataclass(frozen=True)
class VocabularyComparison:
    """How many of cl100k_base's ordinary ids name the same bytes in a GGUF vocabulary."""

    compared: int  # ids looked at: 0 .. min(len(vocabulary), 100,256) - 1
    matching: int
    gguf_size: int  # entries in the GGUF vocabulary
    cl100k_size: int  # ordinary (mergeable) ids in cl100k_base
    undecodable: int  # tokens the decoder refuses (e.g. outside GPT-2's byte table)
    first_mismatches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def fraction(self) -> float:
        return self.matching / self.compared if self.compared else 0.0

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "fraction": self.fraction}


def compare_with_cl100k(
    tokens: Sequence[str], tokenizer_model: str | None, *, show: int = 10
) -> VocabularyComparison:
    """Compare ``tokens`` (a GGUF vocabulary, id order) with cl100k_base id by id.

    A tokenizer model the decoder does not know raises its UndecodableToken
    (an InputError) before any id is compared.
    """
    check_tokenizer_model(tokenizer_model)
    enc = cl100k()
    n = min(len(tokens), CL100K_VOCAB_SIZE)
    ours = tokens[:n]
    matching = undecodable = 0
    mismatches: list[dict[str, Any]] = []
    for tid, text in enumerate(ours):
        try:
            got = token_bytes(text, tokenizer_model)
        except UndecodableToken:
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
