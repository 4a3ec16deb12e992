"""Hostile GGUF files: our reader against the corpus, the CLI on it, and what
gguf.GGUFReader does with the same files.

The corpus lives in fixtures/hostile/gguf/ and is built by
fixtures/hostile/make_gguf_corpus.py; MANIFEST.json says, per case, which
error class our reader must raise, at which byte offset, naming which field.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import resource
import select
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import gguf
import numpy as np
import pytest

from claims.cli import main as cli_main
from claims.probes.errors import InputError
from claims.probes.files import gguf_file
from claims.probes.files.gguf_file import read_header
from claims.testing.gguf_corpus import (
    corpus_builder,
    corpus_dir,
    counting_reads,
    read_everything,
)

ROOT = Path(__file__).resolve().parents[3]
CORPUS = corpus_dir()
MANIFEST: dict[str, dict[str, Any]] = json.loads(
    (CORPUS / "MANIFEST.json").read_text(encoding="utf-8")
)
HOSTILE = sorted(name for name, case in MANIFEST.items() if case["error"])
VALID = sorted(name for name, case in MANIFEST.items() if not case["error"])

TIME_LIMIT_S = 1.0  # CPU seconds of a CLI subprocess, interpreter start included
HANG_LIMIT_S = 10.0  # wall clock for a subprocess on a loaded machine
MEMORY_LIMIT_BYTES = 4 << 20  # Python allocations while reading a file of at most a few hundred KB


# --- the corpus itself -------------------------------------------------------------------
def test_corpus_on_disk_is_what_the_script_builds() -> None:
    lines: list[str] = []
    assert corpus_builder().main(["--check"], out=lines.append) == 0, lines


def test_corpus_covers_the_issue_list() -> None:
    names = set(MANIFEST)
    for needed in (
        "truncated-at-",
        "truncated-tensor-data",
        "bad-magic-",
        "version-",
        "kv-count-2e60",
        "string-length-2e63",
        "unknown-value-type",
        "unknown-tensor-type",
        "nested-arrays-10000-deep",
        "key-not-utf8",
        "key-empty",
        "key-duplicate",
        "alignment-zero",
        "alignment-48",
        "tensor-offset-misaligned",
        "tensor-offset-past-end",
    ):
        assert any(n.startswith(needed) for n in names), needed
    # every field boundary of the base header has its own truncation
    assert sum(n.startswith("truncated-at-") for n in names) >= 30


@pytest.mark.parametrize("little", [True, False], ids=["little", "big"])
def test_valid_base_is_byte_identical_to_gguf_writer(tmp_path: Path, little: bool) -> None:
    """The hand-made builder writes exactly what gguf.GGUFWriter writes."""
    b = corpus_builder()
    order: Literal["<", ">"] = "<" if little else ">"
    endian = gguf.GGUFEndian.LITTLE if little else gguf.GGUFEndian.BIG
    built = b.build(b.base_spec(order))
    data = built.data[built.at("data") :]
    path = tmp_path / "writer.gguf"
    w = gguf.GGUFWriter(str(path), "llama", endianess=endian)
    w.add_block_count(1)
    w.add_bool("general.flag", True)
    w.add_array("tokenizer.ggml.tokens", ["a", "bc", "def"])
    w.add_array("tokenizer.ggml.scores", [0.0, -1.0, -2.0])
    # Native-order arrays; the writer swaps them to the file's byte order.
    dtype = np.dtype(np.float32).newbyteorder(order)
    w.add_tensor("w", np.frombuffer(data[:32], dtype=dtype).astype(np.float32))
    w.add_tensor(
        "q",
        np.frombuffer(data[32:66], dtype=np.uint8).copy(),
        raw_dtype=gguf.GGMLQuantizationType.Q8_0,
    )
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    assert path.read_bytes() == built.data


# --- our reader: a specific error, naming file, offset and field, fast, bounded ----------
@pytest.mark.parametrize("name", HOSTILE)
def test_reader_rejects_hostile_case(name: str) -> None:
    case = MANIFEST[name]
    path = CORPUS / case["file"]
    expected = getattr(gguf_file, case["error"])
    tracemalloc.start()
    try:
        with counting_reads() as work, pytest.raises(InputError) as info:
            read_everything(path)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    err = info.value
    assert type(err) is expected, f"{name}: {type(err).__name__}: {err}"
    assert isinstance(err, gguf_file.GGUFFormatError)
    message = str(err)
    assert message.startswith(str(path)), message
    assert err.offset is not None and f"offset {err.offset}" in message, message
    assert err.field, message
    if case["offset"] is not None:
        assert err.offset == case["offset"], message
    else:  # a truncation: reported at or before the cut
        assert 0 <= err.offset <= case["bytes"], message
    if case["field"] is not None:
        assert case["field"] in err.field, message
    assert "\n" not in message
    # Fast, counted where no busy machine can move it: each opening of the file reads a
    # byte at most once, and no count from the file drives more requests than the file has
    # bytes (each request decodes at least one; a loop run on a lying count outnumbers them).
    assert work.bytes_read <= work.opens * case["bytes"], f"{name}: {work}"
    assert work.calls <= max(case["bytes"], 1), f"{name}: {work.calls:,} requests"
    assert peak < MEMORY_LIMIT_BYTES, f"{name}: {peak:,} bytes allocated"


@pytest.mark.parametrize("name", VALID)
def test_reader_accepts_valid_case(name: str) -> None:
    header = read_header(CORPUS / MANIFEST[name]["file"])
    assert header.get("tokenizer.ggml.tokens") == ["a", "bc", "def"]
    assert [t.name for t in header.tensors] == ["w", "q"]


# --- the CLI on the corpus -------------------------------------------------------------------
@pytest.mark.parametrize("name", HOSTILE + VALID)
def test_cli_in_process(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / MANIFEST[name]["file"]
    code = cli_main(["inspect", "gguf", str(path), "--json"])
    out, err = capsys.readouterr()
    if MANIFEST[name]["error"]:
        assert code == 2
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"claims: {path}, offset "), err
    else:
        assert code == 0 and err == ""
        assert json.loads(out)["tensor_count"] == 2


def _one_per_error_class() -> list[str]:
    chosen: dict[str | None, str] = {}
    for name in sorted(MANIFEST):
        chosen.setdefault(MANIFEST[name]["error"], name)
    extra = [
        "nested-arrays-10000-deep",
        "kv-count-max",
        "uint8-array-count-2e62",
        "valid-big-endian",
    ]
    return sorted(set(chosen.values()) | {n for n in extra if n in MANIFEST})


@pytest.mark.slow
@pytest.mark.parametrize("name", _one_per_error_class())
def test_cli_subprocess(name: str) -> None:
    path = CORPUS / MANIFEST[name]["file"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "claims", "inspect", "gguf", str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert "Traceback" not in proc.stderr
    if MANIFEST[name]["error"]:
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == ""
        lines = proc.stderr.splitlines()
        assert len(lines) == 1, proc.stderr
        assert str(path) in lines[0] and "offset" in lines[0]
    else:
        assert proc.returncode == 0, proc.stderr
        assert "tensor_census" in proc.stdout
    # The second is the command's own work, interpreter start and imports
    # included: CPU time, which a busy CI machine does not inflate the way it
    # inflates wall time. Wall time only guards against a hang.
    assert cpu < TIME_LIMIT_S, f"{cpu:.2f} s of CPU including interpreter start"
    assert elapsed < HANG_LIMIT_S, f"{elapsed:.2f} s wall"


# --- gguf.GGUFReader on the same corpus ------------------------------------------------------
# Runs in a child process with a memory cap, one JSON line per file, so a hang
# or a runaway allocation costs that file a timeout and nothing else.
_WORKER = r"""
import json, resource, sys, time
cap = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
import gguf
for path in sys.argv[2:]:
    start = time.perf_counter()
    try:
        reader = gguf.GGUFReader(path)
        for f in reader.fields.values():
            f.contents()
        out = {"outcome": "accepted"}
    except BaseException as exc:
        out = {"outcome": "raised", "exception": type(exc).__name__, "message": str(exc)[:200]}
    out["path"] = path
    out["seconds"] = round(time.perf_counter() - start, 4)
    print(json.dumps(out), flush=True)
"""
PER_FILE_TIMEOUT_S = 2.0  # GGUFReader reads these few-hundred-byte files in milliseconds
WORKER_MEMORY_CAP = 4 << 30


def observe_gguf_reader(paths: list[str]) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    pending = list(paths)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    while pending:
        proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(WORKER_MEMORY_CAP), *pending],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        assert proc.stdout is not None
        deadline = time.monotonic() + PER_FILE_TIMEOUT_S + 10.0  # the first file pays for imports
        try:
            while pending:
                ready, _, _ = select.select(
                    [proc.stdout], [], [], max(0.0, deadline - time.monotonic())
                )
                if not ready:
                    results[pending.pop(0)] = {"outcome": "timeout", "seconds": PER_FILE_TIMEOUT_S}
                    break
                line = proc.stdout.readline()
                if not line:
                    proc.wait()
                    results[pending.pop(0)] = {"outcome": "crashed", "returncode": proc.returncode}
                    break
                record = json.loads(line)
                results[record["path"]] = record
                pending.remove(record["path"])
                deadline = time.monotonic() + PER_FILE_TIMEOUT_S
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
    return results


def _clear(record: dict[str, Any], path: str) -> bool:
    """An error a user can act on: raised, and naming the file."""
    return record["outcome"] == "raised" and path in record.get("message", "")


@pytest.mark.slow
def test_gguf_reader_on_the_corpus(record_property: Any) -> None:
    paths = {name: str(CORPUS / MANIFEST[name]["file"]) for name in MANIFEST}
    results = observe_gguf_reader(list(paths.values()))
    table = []
    for name in sorted(MANIFEST):
        r = results[paths[name]]
        kind = r["outcome"] if r["outcome"] != "raised" else r["exception"]
        table.append(
            {
                "case": name,
                "ours": MANIFEST[name]["error"] or "ok",
                "gguf.GGUFReader": kind,
                "message": r.get("message", "")[:80],
            }
        )
    summary = Counter(row["gguf.GGUFReader"] for row in table if row["ours"] != "ok")
    record_property("gguf_reader_outcomes", dict(summary))
    record_property("gguf_reader_table", table)
    print(
        f"gguf {importlib.metadata.version('gguf')} GGUFReader on {len(HOSTILE)} hostile cases:",
        dict(summary),
    )
    for row in table:
        print(
            f"  {row['case']:<40} ours={row['ours']:<20} "
            f"GGUFReader={row['gguf.GGUFReader']:<18} {row['message']}"
        )

    # The valid files anchor the comparison: GGUFReader must read them.
    for name in VALID:
        assert results[paths[name]]["outcome"] == "accepted", results[paths[name]]
    # What was measured (gguf 0.19.0): 7 cases accepted silently, IndexError on
    # most truncations, RecursionError on the deep nesting, a hang on the uint8
    # array of 2^62 items. Asserted loosely, so a gguf release that improves
    # some of it does not break the suite: GGUFReader does not give a clear
    # error (raised, naming the file) on the whole hostile corpus.
    unclear = [
        row["case"]
        for row in table
        if row["ours"] != "ok" and not _clear(results[paths[row["case"]]], paths[row["case"]])
    ]
    assert unclear, (
        "gguf.GGUFReader now raises a clear error on every hostile case; update this test's notes"
    )
    record_property("gguf_reader_unclear_cases", len(unclear))
