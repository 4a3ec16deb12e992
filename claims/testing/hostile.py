"""A hostile corpus for testing the instrument: text, stores and evidence made to attack it.

Issue 22 lists what a hostile file or server tried against the suite's pytest
path; the tests under tests/ build these inputs from here, so each attack is
one named value with one exact expectation beside it:

* :data:`TERMINAL_ATTACK` - text that retitles the window, clears the screen and
  reverses the line when printed raw; :data:`INVISIBLE` - format and blank
  code points that make two names look alike; :func:`raw_terminal_bytes` finds
  any of them left raw in a terminal capture.
* :func:`hostile_phi4_store` - an Ollama store whose ``phi4`` GGUF carries the
  attack in ``tokenizer.ggml.model`` (the W2-GGUF-TOKENIZER repro).
* :func:`evidence_variant` - an evidence file of the suite's shape with one
  hostile edit (NaN, a 5000-digit integer, ``attachments: 7``, a verdict its
  checks contradict).

The hostile modes of the fake Ollama server live with the fake
(:mod:`claims.testing.fake_ollama`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from claims.probes.files.ollama_store.manifest import MODEL_MEDIA_TYPE
from claims.testing.store_builder import StoreWriter
from claims.verdicts import Verdict

__all__ = [
    "INVISIBLE",
    "TERMINAL_ATTACK",
    "hostile_phi4_store",
    "raw_terminal_bytes",
    "write_gguf_with_tokenizer_model",
]

# OSC 0 (window title), ED 2 (clear screen), a right-to-left override.
TERMINAL_ATTACK = "gpt2\x1b]0;PWNED\x07\x1b[2J\u202e"
# Each draws nothing (or a blank letter): the invisible characters the issue names.
INVISIBLE = "\u200b\u2060\u00ad\U000e0041\u180e\u3164\ufff9\u034f"

# What must never reach a terminal raw: C0 controls but newline and tab (CR too:
# pytest writes none to a pipe), DEL, C1, the bidi controls, the invisible
# characters above.
_RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069"
    "\u00ad\u180e\u3164\ufff9-\ufffb\u034f\ufeff\U000e0000-\U000e007f]"
)


def raw_terminal_bytes(text: str) -> list[str]:
    """The forbidden code points ``text`` holds raw (as ``U+XXXX``), in order of appearance."""
    return [f"U+{ord(c):04X}" for c in _RAW.findall(text)]


def write_gguf_with_tokenizer_model(
    path: Path, tokenizer_model: str, *, arch: str = "phi3"
) -> Path:
    """A small complete GGUF (one tensor) whose ``tokenizer.ggml.model`` is the text given."""
    import gguf
    import numpy as np

    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_block_count(1)
    writer.add_context_length(256)
    writer.add_embedding_length(8)
    writer.add_tokenizer_model(tokenizer_model)
    writer.add_tokenizer_pre("dbrx" + INVISIBLE)
    tokens = ["<|endoftext|>", "a\x1b[2J", "b"] + [f"t{i}" for i in range(29)]
    writer.add_token_list(tokens)
    writer.add_token_types([3] + [1] * (len(tokens) - 1))
    writer.add_eos_token_id(0)
    writer.add_chat_template("<|im_start|>\x1b]0;PWNED\x07")
    writer.add_tensor("token_embd.weight", np.zeros((len(tokens), 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def hostile_phi4_store(root: Path) -> Path:
    """An Ollama store under ``root`` whose ``phi4:latest`` GGUF holds :data:`TERMINAL_ATTACK`."""

    writer = StoreWriter(root)
    gguf_path = write_gguf_with_tokenizer_model(root / "phi4.gguf", TERMINAL_ATTACK)
    blob, _ = writer.blob_file(gguf_path, MODEL_MEDIA_TYPE, link="copy")
    gguf_path.unlink()
    writer.model("phi4:latest", [blob], family="phi3\x1b[2J", model_type="14.7B\u202e")
    return root


def evidence_variant(base: dict[str, Any], case: str) -> str:
    """The text of ``base`` (a valid evidence document) with one hostile edit named ``case``."""
    doc = json.loads(json.dumps(base))
    claim = next(c for c in doc["claims"] if c.get("checks"))
    check = claim["checks"][0]
    if case == "nan-measured":
        check.setdefault("measurements", [{}])[0]["measured"] = "__NAN__"
        return json.dumps(doc).replace('"__NAN__"', "NaN")
    if case == "infinity-in-facts":
        doc["run"].setdefault("facts", {})["x"] = "__INF__"
        return json.dumps(doc).replace('"__INF__"', "-Infinity")
    if case == "digits-5000":
        doc["run"]["x"] = "__BIG__"
        return json.dumps(doc).replace('"__BIG__"', "9" * 5000)
    if case == "attachments-7":
        check["attachments"] = 7
        return json.dumps(doc)
    if case == "verdict-contradicts-checks":
        claim["verdict"] = Verdict.REPRODUCED
        for c in claim["checks"]:
            c["verdict"] = Verdict.REFUTED
            c["outcome"] = "failed"
        return json.dumps(doc)
    raise ValueError(f"unknown evidence case {case!r}")
