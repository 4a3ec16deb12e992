"""The engine's tokenization set against the token strings stored in the GGUF file.

:func:`compare_vocabulary` tokenizes a text with llama.cpp and looks every id
up in the file's own token list (read by the GGUF header probe, not by the
engine): two independent readings of the same vocabulary.
:func:`reconstruct_text` joins stored token strings back into text the way the
file's tokenizer model encodes them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gguf.vocab import bytes_to_unicode

from claims.probes.files.gguf_file import GGUFHeader

if TYPE_CHECKING:
    from claims.probes.live.engine.model import Engine

__all__ = ["SPM_SPACE", "VocabComparison", "compare_vocabulary", "reconstruct_text"]

_BYTE_TOKEN_RE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
SPM_SPACE = "\u2581"


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


@functools.cache
def _gpt2_byte_decoder() -> dict[str, int]:
    # GPT-2's reversible byte <-> printable character map, the way byte-level BPE
    # vocabularies such as phi4's store tokens; gguf-py keeps the table its
    # converters write vocabularies with.
    return {ch: b for b, ch in bytes_to_unicode().items()}


def reconstruct_text(
    pieces: list[str], tokenizer_model: str | None, *, add_space_prefix: bool = False
) -> str | None:
    """Join token strings back into text, the way the file's tokenizer model stores them.

    ``llama`` (SentencePiece): U+2581 is a space and ``<0xNN>`` a raw byte;
    ``gpt2`` (byte-level BPE): every character stands for one byte. Other
    tokenizer models return None (not reconstructed here). When the vocabulary
    prefixes a space to the text (``add_space_prefix``) that space is dropped.
    """
    if tokenizer_model == "llama":
        out = bytearray()
        for piece in pieces:
            m = _BYTE_TOKEN_RE.fullmatch(piece)
            if m:
                out.append(int(m.group(1), 16))
            else:
                out.extend(piece.replace(SPM_SPACE, " ").encode("utf-8"))
        text = out.decode("utf-8", errors="replace")
        return text[1:] if add_space_prefix and text.startswith(" ") else text
    if tokenizer_model == "gpt2":
        table = _gpt2_byte_decoder()
        try:
            raw = bytes(table[ch] for piece in pieces for ch in piece)
        except KeyError:
            return None
        return raw.decode("utf-8", errors="replace")
    return None


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
