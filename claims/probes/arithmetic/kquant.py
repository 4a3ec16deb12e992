"""Which ggml type llama.cpp's Q4_K_M recipe gives each tensor of a llama-style model.

llama.cpp (``src/llama-quant.cpp``, ``llama_tensor_get_type``) starts every
matrix of a Q4_K_M file at Q4_K and promotes a few: the output matrix (or the
token embedding standing in for a tied one) to Q6_K, and ``attn_v`` and
``ffn_down`` to Q6_K in the layers its ``use_more_bits`` rule picks: the first
and last eighth of the layers (integer eighths) and every third layer between.
Norm vectors stay F32. This module restates that rule so a census of tensor
types by format (a count per ggml type, such as Week 4's lab record) can be
compared with what the recipe predicts, and a role's types read off it.

Counts are tensor counts; ``n_layers`` is the number of transformer blocks.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from claims.probes.errors import InputError

__all__ = [
    "LLAMA_BLOCK_MATRICES",
    "LLAMA_BLOCK_VECTORS",
    "Q4KMRecipe",
    "layers_from_census",
    "q4_k_m_recipe",
    "use_more_bits",
]

# The matrices and F32 vectors of one llama block, as GGUF names their roles.
LLAMA_BLOCK_MATRICES = (
    "attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down",
)
LLAMA_BLOCK_VECTORS = ("attn_norm", "ffn_norm")
# Outside the blocks: one quantised matrix (token_embd, tied to the output) and the
# F32 vectors output_norm and rope_freqs (llama 3's long-context frequency factors).
_TOP_MATRICES = 1
_TOP_VECTORS = 2


def use_more_bits(layer: int, n_layers: int) -> bool:
    """llama.cpp's rule for the layers whose attn_v / ffn_down a _M mix promotes."""
    eighth = n_layers // 8
    return layer < eighth or layer >= 7 * n_layers // 8 or (layer - eighth) % 3 == 2


@dataclass(frozen=True)
class Q4KMRecipe:
    """The types the Q4_K_M recipe gives a llama model with ``n_layers`` blocks."""

    n_layers: int

    def role_types(self, role: str) -> list[str]:
        """The ggml type of ``role`` in each block, layer 0 first."""
        if role not in LLAMA_BLOCK_MATRICES:
            raise InputError(f"not a llama block matrix role: {role!r}")
        if role in ("attn_v", "ffn_down"):
            return ["Q6_K" if use_more_bits(i, self.n_layers) else "Q4_K"
                    for i in range(self.n_layers)]
        return ["Q4_K"] * self.n_layers

    def census(self) -> dict[str, int]:
        """Tensors per ggml type over the whole file (blocks, embedding, norms)."""
        counts: Counter[str] = Counter()
        for role in LLAMA_BLOCK_MATRICES:
            counts.update(self.role_types(role))
        counts["Q6_K"] += _TOP_MATRICES  # the tied token embedding / output matrix
        counts["F32"] += len(LLAMA_BLOCK_VECTORS) * self.n_layers + _TOP_VECTORS
        return dict(counts)


def q4_k_m_recipe(n_layers: int) -> Q4KMRecipe:
    if n_layers < 1:
        raise InputError(f"a model has at least one layer, not {n_layers}")
    return Q4KMRecipe(n_layers)


def layers_from_census(census: dict[str, int]) -> tuple[int | None, int | None]:
    """The block count a llama census implies, read two ways: from its quantised
    matrices (7 per block + 1) and from its F32 vectors (2 per block + 2). Each is
    None when the count does not fit that layout; both agree for a llama file."""
    matrices = sum(n for t, n in census.items() if t not in ("F32", "F16", "BF16"))
    vectors = census.get("F32", 0)
    per_m, per_v = len(LLAMA_BLOCK_MATRICES), len(LLAMA_BLOCK_VECTORS)
    from_m = (matrices - _TOP_MATRICES) // per_m if (matrices - _TOP_MATRICES) % per_m == 0 \
        else None
    from_v = (vectors - _TOP_VECTORS) // per_v if (vectors - _TOP_VECTORS) % per_v == 0 \
        else None
    return from_m, from_v
