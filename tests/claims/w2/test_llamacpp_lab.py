"""W2-LLAMACPP-RUN decided by the lab's full investigation of reusing Ollama's blob in
llama.cpp (fixtures/lab/week-02-first-local-model/ollama-model-in-llamacpp.md): the
labelled lines its scripts print from llama-cli's log."""

from __future__ import annotations

import pytest

from claims.probes.files.lab_notes import labelled_outputs
from claims.testing import lab

pytestmark = pytest.mark.offline

NOTE = "week-02-first-local-model/ollama-model-in-llamacpp.md"
MODEL = "phi4"


@pytest.mark.claim("W2-LLAMACPP-RUN", source="recorded")
def test_llamacpp_run_as_the_lab_captured_it(check) -> None:
    out = labelled_outputs(lab.lab_dir() / NOTE)
    check.fact("lab note", f"{lab.PROVENANCE}: {NOTE}")
    digest = out.get("model digest", "").removeprefix("sha256:")
    check.against("digest head", digest[:4], model=MODEL, note=out.get("model digest"))
    check.against("digest tail", digest[-4:], model=MODEL)
    version = out.get("llama.cpp", "")
    commit = version.rsplit("(", 1)[-1].rstrip(")") if "(" in version else version
    check.against("llama.cpp commit", commit, note=f"llama-cli --version: {version}")
    check.against("device", out.get("device"))
    done, _, total = out.get("GPU layers", "").partition("/")
    check.against("layers offloaded", int(done) if done.isdigit() else None, model=MODEL)
    check.against("model layers", int(total) if total.isdigit() else None, model=MODEL)
    check.against("reply", out.get("assistant"), model=MODEL)
