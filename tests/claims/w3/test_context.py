"""W3-FAMILY-128K: the family's 128K against this checkpoint's 32,768 and the tokenizer's
131,072, on the transcribed files (offline) and on the card at the pinned revision (hub)."""

from __future__ import annotations

import re

import pytest

K = 1024  # Qwen's card writes 128K for 131,072 tokens


@pytest.mark.claim("W3-FAMILY-128K", source="recorded")
@pytest.mark.offline
def test_tokenizer_cap_is_the_family_128k_not_the_native_context(check, qwen_snapshot):
    cap = int(qwen_snapshot.tokenizer_config()["model_max_length"])
    native = int(qwen_snapshot.config()["max_position_embeddings"])
    check.against("family context", cap / K, note=f"tokenizer model_max_length {cap:,} / 1,024")
    check.against("native context", native, unit="tokens",
                  note="config.json max_position_embeddings")
    check.against("tokenizer cap", cap, unit="tokens",
                  note="tokenizer_config.json model_max_length")
    check.measure("native context below the family's", native, unit="tokens",
                  holds=native < cap, expected=f"less than {cap:,}")


@pytest.mark.claim("W3-FAMILY-128K")
@pytest.mark.hub
def test_card_states_128k_for_the_family(check, qwen_hub_files, tmp_path):
    from claims.probes.files import hf_repo

    card = hf_repo.download_files(["README.md"], tmp_path / "hf-cache")
    text = (card.root / "README.md").read_text("utf-8")
    found = sorted({int(m) for m in re.findall(r"\b(\d+)K tokens\b", text)})
    check.observe("'<n>K tokens' on the card", found)
    check.against("family context", max(found) if found else 0, note="README.md, pinned revision")
    native = int(qwen_hub_files.config()["max_position_embeddings"])
    check.against("native context", native, unit="tokens",
                  note="config.json at the pinned revision")
