"""The engine's tokenization set against the token strings stored in the GGUF file.

:func:`compare_vocabulary` tokenizes a text with llama.cpp and looks every id
up in the file's own token list (read by the GGUF header probe, not by the
engine): two independent readings of the same vocabulary.
:func:`reconstruct_text` joins stored token strings back into text the way the
file's tokenizer model encodes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claims.probes.files.gguf_file import GGUFHeader
from claims.probes.files.gguf_file.token_strings import SPM_SPACE, UndecodableToken, token_bytes

if TYPE_CHECKING:
    from claims.probes.live.engine.model import Engine

__all__ = ["SPM_SPACE", "VocabComparison", "compare_vocabulary", "reconstruct_text"]


@dataclass(frozen=True)
class VocabComparison:
    """The engine's tokenization of ``text`` set against the file's vocabulary."""

    text: str
    token_ids: tuple[int, ...]
    engine_pieces: tuple[str, ...]
    file_pieces: tuple[str | None, ...]
    engine_vocab_size: int
    file_vocab_size: int
    file_reconstruction: str | None
    engine_detokenized: str

    @property
    def mismatches(self) -> list[dict[str, Any]]:
        """Ids whose token string differs between engine and file (or is outside the file)."""
        out = []
        for tid, eng, fil in zip(self.token_ids, self.engine_pieces, self.file_pieces, strict=True):
            if fil is None or eng != fil:
                out.append({"id": tid, "engine": eng, "file": fil})
        return out


def reconstruct_text(
    pieces: list[str], tokenizer_model: str | None, *, add_space_prefix: bool = False
) -> str | None:
    """Join token strings back into text, the way the file's tokenizer model stores them.

    Each piece becomes bytes through the GGUF package's decoder
    (:func:`~claims.probes.files.gguf_file.token_strings.token_bytes`); where it
    refuses a piece or the tokenizer model, the result is None (not
    reconstructed). When a SentencePiece vocabulary prefixes a space to the text
    (``add_space_prefix``) that space is dropped.
    """
    try:
        raw = b"".join(token_bytes(piece, tokenizer_model) for piece in pieces)
    except UndecodableToken:
        return None  # a model or a piece the decoder refuses: no reconstruction, not a guess
    text = raw.decode("utf-8", errors="replace")
    if tokenizer_model == "llama" and add_space_prefix and text.startswith(" "):
        return text[1:]
    return text


def compare_vocabulary(engine: Engine, header: GGUFHeader, text: str) -> VocabComparison:
    """Tokenize ``text`` with the engine; look every id up in the file's own token list.

    The file's token strings come from the GGUF header reader, not from the
    engine, so the comparison is between two independent readings of the file.
    """
    tokenizer = header.tokenizer
    file_vocab_size = tokenizer.token_count or 0
    ids = engine.tokenize(text, add_bos=False, special=False)
    engine_pieces = tuple(engine.token_text(t) for t in ids)
    inside = sorted({t for t in ids if 0 <= t < file_vocab_size})
    stored = header.tokens(inside) if inside else {}
    file_pieces = tuple(stored.get(t) for t in ids)
    known = [p for p in file_pieces if p is not None]
    rebuilt = None
    if len(known) == len(ids):
        rebuilt = reconstruct_text(
            known,
            tokenizer.model,
            add_space_prefix=header.get("tokenizer.ggml.add_space_prefix") is True,
        )
    return VocabComparison(
        text=text,
        token_ids=tuple(ids),
        engine_pieces=engine_pieces,
        file_pieces=file_pieces,
        engine_vocab_size=engine.vocab_size,
        file_vocab_size=file_vocab_size,
        file_reconstruction=rebuilt,
        engine_detokenized=engine.detokenize(ids),
    )
