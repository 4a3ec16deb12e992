"""MC claims about the GGUF format, measured on the bundled Gemma 3 270M file
and on generated files: alignment of tensor data, and a file that describes
itself (weights, hyperparameters, vocabulary, chat template)."""

from __future__ import annotations

import mmap

import pytest

from claims.probes.files.gguf_file import GGUFHeader, read_header

pytestmark = pytest.mark.offline

PAGE = mmap.PAGESIZE


def _record_alignment(check, header: GGUFHeader, *, stated_default: bool) -> None:
    """Measure alignment facts straight from the tensor infos (layout not enforced on read)."""
    align = header.alignment
    file_offsets = [header.data_offset + t.offset for t in header.tensors]
    misaligned = [t.name for t in header.tensors if t.offset % align]
    check.observe("alignment source", header.layout()["alignment_from"])
    if stated_default:
        check.against("alignment", align, unit="B")
    check.measure(
        "data section offset",
        header.data_offset,
        unit="B",
        holds=header.data_offset % align == 0,
        expected=f"a multiple of {align}",
    )
    check.measure(
        "tensors whose data offset is not a multiple of the alignment",
        misaligned,
        holds=not misaligned,
        expected="none",
    )
    check.observe("OS page size", PAGE, unit="B")
    page_aligned = header.data_offset % PAGE == 0 and all(off % PAGE == 0 for off in file_offsets)
    unaligned_pages = sum(off % PAGE != 0 for off in file_offsets)
    check.against(
        "page aligned",
        page_aligned,
        note=f"data section at {header.data_offset:,} B ({header.data_offset % PAGE} B past a "
        f"page); {unaligned_pages} of {len(file_offsets)} tensors start off a page boundary",
    )


@pytest.mark.claim("MC-GGUF-ALIGN")
def test_gemma_tensor_data_alignment(check, gemma_gguf):
    check.fact("gemma_gguf", str(gemma_gguf))
    header = read_header(gemma_gguf, verify_layout=False)
    _record_alignment(check, header, stated_default=True)


@pytest.mark.claim("MC-GGUF-ALIGN")
def test_generated_file_default_alignment(check, make_gguf):
    import numpy as np

    path = make_gguf(
        tensors={
            "a": np.ones(5, dtype=np.float32),  # 20 B: the next tensor needs padding
            "b": np.ones((3, 7), dtype=np.float32),
            "c": np.ones(1, dtype=np.float16),
        }
    )
    _record_alignment(check, read_header(path, verify_layout=False), stated_default=True)


@pytest.mark.claim("MC-GGUF-ALIGN")
def test_generated_file_custom_alignment(check, make_gguf):
    """general.alignment overrides the default, and offsets follow it."""
    import numpy as np

    written = 64  # what the test writes into general.alignment (not the default 32)
    path = make_gguf(
        alignment=written,
        tensors={"a": np.ones(5, dtype=np.float32), "b": np.ones(9, dtype=np.float32)},
    )
    header = read_header(path, verify_layout=False)
    check.measure(
        "alignment from general.alignment",
        header.alignment,
        unit="B",
        holds=header.alignment == written,
        expected=f"{written} as written",
    )
    _record_alignment(check, header, stated_default=False)


# --- self-describing ---------------------------------------------------------------------------
HYPERPARAMETERS = ("context_length", "embedding_length", "block_count", "attention.head_count")


@pytest.mark.claim("MC-GGUF-SELF-DESCRIBING")
def test_gemma_file_describes_itself(check, gemma_gguf):
    header = read_header(gemma_gguf)
    arch = header.get("general.architecture")
    check.fact("gemma_gguf", str(gemma_gguf))
    check.measure(
        "architecture",
        arch,
        holds=isinstance(arch, str) and bool(arch),
        expected="general.architecture names it",
    )
    present = {k: header.get(f"{arch}.{k}") for k in HYPERPARAMETERS}
    check.measure(
        "hyperparameters",
        present,
        holds=all(v is not None for v in present.values()),
        expected=f"{', '.join(HYPERPARAMETERS)} under the architecture's prefix",
    )
    check.measure(
        "weights",
        {"tensors": header.tensor_count, "bytes": header.tensor_data_bytes},
        holds=header.tensor_count > 0
        and header.tensor_data_bytes > 0
        and header.data_offset + header.tensor_data_bytes <= header.file_size,
        expected="tensor infos and their data in the same file",
    )
    embd = next((t for t in header.tensors if t.name == "token_embd.weight"), None)
    tokens = header.tokenizer.token_count
    check.measure(
        "vocabulary",
        tokens,
        holds=bool(tokens) and embd is not None and embd.dims[-1] == tokens,
        expected="tokenizer.ggml.tokens, one entry per embedding row",
    )
    blocks = present.get("block_count")
    layers = {t.name.split(".")[1] for t in header.tensors if t.name.startswith("blk.")}
    check.measure(
        "layers described vs stored",
        {"block_count": blocks, "blk.* layers": len(layers)},
        holds=blocks == len(layers),
        expected="the metadata's block count matches the tensors",
    )
    metadata_end = max(f.value_offset + f.nbytes for f in header.fields.values())
    check.measure(
        "metadata at the start of the file",
        metadata_end,
        unit="B",
        holds=metadata_end <= header.data_offset,
        expected="all key/value pairs before the tensor data",
    )
    check.observe(
        "chat template in the file",
        header.tokenizer.has_chat_template,
        note="the Gemma 3 270M file carries no chat template: "
        "that part is not confirmed by this file",
    )
    if not header.tokenizer.has_chat_template:
        check.note(
            "Not confirmed here: the bundled Gemma file has no tokenizer.chat_template; the "
            "template part is checked on a generated file and, with a store holding phi4, "
            "under W2-GGUF-TOKENIZER."
        )


@pytest.mark.claim("MC-GGUF-SELF-DESCRIBING")
def test_generated_file_carries_its_chat_template(check, make_gguf):
    template = (
        "{% for m in messages %}<start_of_turn>{{ m.role }}\n{{ m.content }}<end_of_turn>\n"
        "{% endfor %}"
    )
    context = 128
    path = make_gguf(
        metadata={
            "tokenizer.ggml.model": "llama",
            "tokenizer.ggml.tokens": ["<pad>", "a", "b"],
            "tokenizer.chat_template": template,
        },
        context_length=context,
    )
    header = read_header(path)
    check.measure(
        "chat template",
        header.tokenizer.chat_template_bytes,
        holds=header.get("tokenizer.chat_template") == template,
        unit="B",
        expected="the template travels in the file and reads back unchanged",
    )
    check.measure(
        "hyperparameters",
        header.get("llama.context_length"),
        holds=header.get("llama.context_length") == context,
        expected="context length as written",
    )


# --- K-quant mixes, per tensor role -------------------------------------------------------------
LLAMA = "llama3.2:3b"
ROLES = ("attn_k", "attn_v", "ffn_gate", "ffn_down")


def _bits_per_weight(type_name: str) -> float:
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    block, size = GGML_QUANT_SIZES[GGMLQuantizationType[type_name]]
    return size * 8 / block


def _is_4bit(type_name: str) -> bool:
    """A 4-bit ggml format: Q4_0, Q4_1, Q4_K, IQ4_NL, IQ4_XS (4 bits plus block scales)."""
    return type_name.startswith(("Q4_", "IQ4_"))


@pytest.mark.claim("MC-KQUANT-MIX")
def test_q4_k_m_roles_llama32(check, store):
    from claims.testkit import ProbeError, not_run

    try:
        blob = store.store.model_blob_path(LLAMA)
    except ProbeError as exc:
        not_run(
            f"no {LLAMA} in the {store.source} Ollama store at {store.root} "
            f"({getattr(exc, 'problem', exc)}); the bundled Gemma file cannot judge K-quant "
            f"roles (its 640-wide rows force Q5_0/Q8_0); pass --ollama-models-dir pointing at a "
            f"store with {LLAMA}"
        )
    check.fact(f"{LLAMA} blob", str(blob))
    header = read_header(blob)
    check.observe("general.file_type", header.file_type[1] if header.file_type else None)
    by_role: dict[str, dict[str, int]] = {}
    for role in ROLES:
        types = [
            t.type_name
            for t in header.tensors
            if (parts := t.name.split("."))[0] == "blk" and parts[2:3] == [role]
        ]
        check.measure(
            f"{role} tensors",
            len(types),
            holds=bool(types),
            expected="one per layer, to judge the role by",
        )
        census: dict[str, int] = {}
        for name in types:
            census[name] = census.get(name, 0) + 1
        by_role[role] = census
        above = [name for name in types if not _is_4bit(name) and _bits_per_weight(name) > 4.5]
        four = [name for name in types if _is_4bit(name)]
        if role == "ffn_down":
            check.against(
                "ffn_down at 4-bit",
                bool(types) and len(four) == len(types),
                model=LLAMA,
                note=f"{len(four)} of {len(types)} layers 4-bit: {census}",
            )
        else:
            check.against(
                f"{role} above 4-bit",
                bool(types) and len(above) == len(types),
                model=LLAMA,
                note=f"{len(above)} of {len(types)} layers above 4-bit: {census}",
            )
    check.attach("ggml types per tensor role", by_role, kind="json")
    check.attach("tensor census", header.census, kind="json")


# --- the dump command -------------------------------------------------------------------------
def _run_side_by_side(*commands: list[str], timeout: float = 60
                      ) -> list[tuple[int, str, str]]:
    """(exit status, stdout, stderr) of each command, all started at once: two interpreters
    starting one after the other were a tenth of the main job's test time."""
    import subprocess

    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True) for argv in commands]
    done = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=timeout)
            done.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return done


@pytest.mark.claim("MC-GGUF-DUMP")
def test_gguf_dump_command(check, make_gguf):
    import sys

    path = make_gguf(metadata={"tokenizer.ggml.tokens": ["a", "b", "c"]})
    stated = check.premise_text("command")
    argv = [sys.executable, *stated.split()[1:], str(path)]  # "python" -> this interpreter
    # What does work: the package's dump script (console script gguf-dump).
    alt = [sys.executable, "-m", "gguf.scripts.gguf_dump", str(path)]
    (code, out, err), (alt_code, alt_out, _) = _run_side_by_side(argv, alt)
    check.attach(
        "python -m gguf.dump",
        f"$ {' '.join(argv)}\nexit {code}\n{out[-2000:]}{err[-2000:]}",
        kind="text",
    )
    check.against(
        "command runs",
        code == 0,
        note=(err.strip().splitlines() or [""])[-1][:200],
    )
    check.attach(
        "python -m gguf.scripts.gguf_dump",
        f"$ {' '.join(alt)}\nexit {alt_code}\n{alt_out[-3000:]}",
        kind="text",
    )
    shows = all(
        s in alt_out
        for s in ("general.architecture", "llama.context_length", "tokenizer.ggml.tokens", "weight")
    )
    check.measure(
        "gguf.scripts.gguf_dump prints metadata and tensors",
        alt_code,
        holds=alt_code == 0 and shows,
        expected="exit 0, listing architecture, context length, vocabulary and tensors",
    )
