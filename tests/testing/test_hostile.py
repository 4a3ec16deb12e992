"""claims.testing.hostile: the corpus's attacks are what they say, and the detector sees them."""

from __future__ import annotations

from claims.probes.files.gguf_file import read_header
from claims.probes.files.ollama_store import OllamaStore
from claims.terminal import safe
from claims.testing.hostile import (
    INVISIBLE,
    TERMINAL_ATTACK,
    hostile_phi4_store,
    raw_terminal_bytes,
)


def test_the_detector_finds_each_raw_attack_and_nothing_in_its_escaped_form():
    assert raw_terminal_bytes(TERMINAL_ATTACK) == ["U+001B", "U+0007", "U+001B", "U+202E"]
    assert len(raw_terminal_bytes(INVISIBLE)) == len(INVISIBLE)
    assert raw_terminal_bytes(safe(TERMINAL_ATTACK + INVISIBLE)) == []
    assert raw_terminal_bytes("plain\ttext\nüml 日本 🙂") == []


def test_the_hostile_store_holds_phi4_with_the_attack_in_its_tokenizer(tmp_path):
    store = OllamaStore(hostile_phi4_store(tmp_path / "store"))
    header = read_header(store.model_blob_path("phi4"))
    assert header.get("tokenizer.ggml.model") == TERMINAL_ATTACK
