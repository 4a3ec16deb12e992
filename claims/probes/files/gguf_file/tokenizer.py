"""The tokenizer a GGUF carries: tokenizer.ggml.* and tokenizer.chat_template.

Read from the header's metadata only; the token strings themselves stay on
disk (their count is the array's count) until asked for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claims.probes.files.gguf_file.view import HeaderView

__all__ = ["TokenizerInfo", "tokenizer_info"]


@dataclass(frozen=True)
class TokenizerInfo:
    """The tokenizer fields a GGUF carries (tokenizer.ggml.* and tokenizer.chat_template)."""

    model: str | None
    pre: str | None
    token_count: int | None
    special_ids: dict[str, int]
    has_chat_template: bool
    chat_template_bytes: int | None  # UTF-8 bytes of the template
    keys: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "keys": list(self.keys)}


def tokenizer_info(header: HeaderView) -> TokenizerInfo:
    """The tokenizer fields of ``header``: model, pre-tokenizer, vocabulary size,
    special token ids (bos, eos, ...) and the chat template's size."""
    keys = tuple(k for k in header.fields if k.startswith("tokenizer."))
    tokens = header.fields.get("tokenizer.ggml.tokens")
    specials = {
        k.removeprefix("tokenizer.ggml.").removesuffix("_token_id"): v
        for k in keys
        if k.startswith("tokenizer.ggml.")
        and k.endswith("_token_id")
        and isinstance(v := header.get(k), int)
        and not isinstance(v, bool)
    }
    template = header.fields.get("tokenizer.chat_template")
    model = header.get("tokenizer.ggml.model")
    pre = header.get("tokenizer.ggml.pre")
    return TokenizerInfo(
        model=model if isinstance(model, str) else None,
        pre=pre if isinstance(pre, str) else None,
        token_count=tokens.array.count if tokens is not None and tokens.array is not None else None,
        special_ids=specials,
        has_chat_template=template is not None,
        chat_template_bytes=(template.nbytes - 8)
        if template is not None and template.array is None
        else None,
        keys=keys,
    )
