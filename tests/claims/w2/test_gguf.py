"""W2 claims about the model file itself, checked on GGUF files on disk.

The bundled Gemma 3 270M file and generated files are always there; phi4's
file is read only from a real Ollama store (``--ollama-models-dir`` or
``$OLLAMA_MODELS``) that holds it, otherwise those claims are not run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from claims.probes.files.gguf_file import GGUFHeader, read_header, read_magic
from claims.probes.tokens.vocab import compare_with_cl100k
from claims.testkit import ProbeError, not_run

pytestmark = pytest.mark.offline

PHI4 = "phi4"
CHAT_MARKERS = ("<|im_start|>", "<|im_end|>", "<|im_sep|>")


def _hex(data: bytes) -> str:
    return " ".join(f"{b:02x}" for b in data)


@pytest.mark.claim("W2-GGUF-MAGIC")
def test_generated_gguf_starts_with_magic(check, make_gguf):
    path = make_gguf()
    check.against("magic bytes", _hex(read_magic(path)))


@pytest.mark.claim("W2-GGUF-MAGIC")
def test_real_gemma_gguf_starts_with_magic(check, gemma_gguf):
    check.fact("gemma_gguf", str(gemma_gguf))
    check.against("magic bytes", _hex(read_magic(gemma_gguf)))


# --- the tokenizer travels inside the file -----------------------------------------------
def _embedding_rows(header: GGUFHeader) -> int | None:
    """Rows of the token embedding matrix (its vocabulary dimension, ne[1])."""
    for t in header.tensors:
        if t.name == "token_embd.weight" and len(t.dims) == 2:
            return t.dims[1]
    return None


@pytest.mark.claim("W2-TOKENIZER-TRAVELS")
def test_gemma_file_carries_its_tokenizer(check, gemma_gguf):
    header = read_header(gemma_gguf)
    tok = header.tokenizer
    check.fact("gemma_gguf", str(gemma_gguf))
    check.attach("tokenizer fields", tok.to_json(), kind="json")
    check.measure(
        "tokenizer.* keys in the file",
        len(tok.keys),
        holds=len(tok.keys) > 0,
        expected="the file carries tokenizer.* metadata",
    )
    check.measure("tokenizer model", tok.model, holds=bool(tok.model), expected="named in the file")
    check.measure(
        "vocabulary entries",
        tok.token_count,
        holds=bool(tok.token_count) and tok.token_count == _embedding_rows(header),
        expected="a full vocabulary, one entry per row of token_embd.weight",
        note=f"token_embd.weight has {_embedding_rows(header)} rows",
    )
    specials = {name: header.tokens([tid])[tid] for name, tid in tok.special_ids.items()}
    check.measure(
        "special token ids",
        specials,
        holds=bool(specials) and all(specials.values()),
        expected="special ids (bos, eos, ...) resolve to token strings in the file",
    )
    # The chat-template half of the claim: this file has none, so it cannot confirm it.
    check.observe(
        "chat template in the file",
        tok.has_chat_template,
        note="the Gemma 3 270M file carries no tokenizer.chat_template: the template half of "
        "the claim is not confirmed by this file",
    )
    if not tok.has_chat_template:
        check.note(
            "Not confirmed here: the bundled Gemma file has no chat template, so only the "
            "vocabulary half of the claim is checked on it (phi4's template: W2-GGUF-TOKENIZER)."
        )
    # "A model of another family brings a different vocabulary": Gemma's ids against cl100k_base.
    # The array itself, not a list of it: only the ids cl100k_base has are decoded.
    comparison = compare_with_cl100k(header.array("tokenizer.ggml.tokens"), tok.model)
    check.attach("Gemma vocabulary vs cl100k_base", comparison.to_json(), kind="json")
    check.against(
        "ids shared with cl100k_base",
        comparison.fraction * 100,
        unit="%",
        note=f"ids naming the same bytes as in cl100k_base: {comparison.matching:,} of "
        f"{comparison.compared:,}",
    )


@pytest.mark.claim("W2-TOKENIZER-TRAVELS")
def test_generated_file_carries_tokenizer_and_template(check, make_gguf):
    template = (
        "{% for m in messages %}<|im_start|>{{ m.role }}<|im_sep|>{{ m.content }}<|im_end|>"
        "{% endfor %}"
    )
    tokens = ["<|endoftext|>", "a", "b", "<|im_start|>", "<|im_end|>", "<|im_sep|>"]
    path = make_gguf(
        metadata={
            "tokenizer.ggml.model": "gpt2",
            "tokenizer.ggml.pre": "default",
            "tokenizer.ggml.tokens": tokens,
            "tokenizer.ggml.eos_token_id": 0,
            "tokenizer.chat_template": template,
        }
    )
    header = read_header(path)
    tok = header.tokenizer
    check.measure(
        "vocabulary read back",
        header.get("tokenizer.ggml.tokens"),
        holds=header.get("tokenizer.ggml.tokens") == tokens,
        expected="the vocabulary written into the file",
    )
    check.measure(
        "chat template read back",
        tok.has_chat_template,
        holds=header.get("tokenizer.chat_template") == template,
        expected="the template written into the file",
    )
    check.measure(
        "special ids",
        tok.special_ids,
        holds=tok.special_ids == {"eos": 0},
        expected="eos = 0 as written",
    )


# --- phi4's tokenizer, from a real Ollama store -----------------------------------------------
def _phi4_header(store: Any, check: Any) -> tuple[GGUFHeader, Path]:
    """phi4's model blob in the store under test, or not run with the reason."""
    try:
        blob = store.store.model_blob_path(PHI4)
    except ProbeError as exc:
        not_run(
            f"no {PHI4} in the {store.source} Ollama store at {store.root} "
            f"({getattr(exc, 'problem', exc)}); "
            f"pass --ollama-models-dir pointing at a store that holds {PHI4}"
        )
    check.fact("phi4_blob", str(blob))
    return read_header(blob), blob


@pytest.mark.claim("W2-GGUF-TOKENIZER")
def test_phi4_gguf_tokenizer_fields(check, store):
    header, _ = _phi4_header(store, check)
    tok = header.tokenizer
    check.attach("tokenizer fields", tok.to_json(), kind="json")
    check.against("tokenizer model", tok.model, model=PHI4)
    check.against("tokenizer pre", tok.pre, model=PHI4)
    check.against("token count", tok.token_count, model=PHI4)
    template = header.get("tokenizer.chat_template") or ""
    check.attach("chat template", template)
    check.against("template markers", [m for m in CHAT_MARKERS if m in template], model=PHI4)


@pytest.mark.claim("W2-SPECIAL-IDS")
def test_phi4_special_token_ids(check, store):
    header, _ = _phi4_header(store, check)
    found = header.tokens([100257, 100264, 100265, 100266])
    for tid, text in found.items():
        check.against(str(tid), text, model=PHI4)


@pytest.mark.claim("W2-CL100K-MATCH")
def test_phi4_ordinary_ids_are_cl100k(check, store):
    header, _ = _phi4_header(store, check)
    tokens = header.array("tokenizer.ggml.tokens")[:]
    comparison = compare_with_cl100k(tokens, header.tokenizer.model)
    check.attach("phi4 vocabulary vs cl100k_base", comparison.to_json(), kind="json")
    check.measure(
        "ordinary ids naming the same bytes",
        comparison.matching,
        holds=comparison.matching == comparison.cl100k_size,
        expected=f"all {comparison.cl100k_size:,} of cl100k_base's ordinary ids",
    )
    extra = len(tokens) - comparison.cl100k_size
    check.against("phi4's own tokens above cl100k_base's ids", extra > 0, model=PHI4,
                  note=f"{extra:,} entries above cl100k_base's {comparison.cl100k_size:,} "
                  "ordinary ids")
