"""W2 token claims, checked with cl100k_base loaded offline."""

from __future__ import annotations

import pytest

from claims.probes.tokens import cl100k_base

pytestmark = pytest.mark.offline


@pytest.mark.claim("W2-PROMPT-ENCODE")
def test_prompt_encodes_to_context_ids(check, catalog):
    prompt = catalog.get("W2-PROMPT-ENCODE").figure("prompt").text
    ids = cl100k_base.encode(prompt)
    check.against("prompt ids", ids)


@pytest.mark.claim("W2-TOKEN-DECODES")
def test_sample_ids_decode_to_printed_pieces(check, catalog):
    claim = catalog.get("W2-TOKEN-DECODES")
    for fig in claim.stated:
        (piece,) = cl100k_base.decode_each([int(fig.name)])
        check.against(fig.name, piece)
