"""Speed targets of the GGUF header reader, measured side by side in one run.

* At least 50x faster than gguf.GGUFReader on the Gemma 3 270M file (253 MB,
  262,144 token strings).
* Within 20% of that time on a file with the same header and 100x the tensor
  data: the cost must follow the header, not the file.

The 100x file is sparse (the header's bytes, then a hole up to 100x the
original data size), so it costs no disk. GGUFReader is timed once per session
(the ``gguf_reference_gemma`` fixture, about 9 s); our reader is timed as the
fastest of interleaved runs on both files: other work on the machine only ever
adds time, so the fastest run is the least disturbed (the reason ``timeit``
reports the minimum), where a median moved by 24% when four jobs shared two
cores. Run it alone with::

    pytest tests/probes/files/test_gguf_speed.py -s
"""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path
from typing import Any

import pytest

from claims.probes.files.gguf_file import read_header

# Subprocesses or timings: left out of the quick loop (tests/README.md).
pytestmark = pytest.mark.slow

MIN_SPEEDUP = 50.0  # over gguf.GGUFReader on the same file
MAX_BIG_OVER_SMALL = 1.20  # header read time, 100x data file over the original
DATA_FACTOR = 100
RUNS = 21


def _sparse_copy_with_more_data(src: Path, dst: Path, data_offset: int, factor: int) -> int:
    """Copy the header bytes of ``src``, then extend ``dst`` to ``factor`` x its tensor data."""
    data_bytes = src.stat().st_size - data_offset
    with src.open("rb") as fin, dst.open("wb") as fout:
        fout.write(fin.read(data_offset))
        fout.truncate(data_offset + factor * data_bytes)
    return dst.stat().st_size


def _fastest_seconds(paths: list[Path], runs: int) -> list[float]:
    """Fastest read time per path (s), the runs interleaved so drift hits all paths alike."""
    times: list[list[float]] = [[] for _ in paths]
    gc.collect()
    for _ in range(runs):
        for i, path in enumerate(paths):
            start = time.perf_counter()
            read_header(path)
            times[i].append(time.perf_counter() - start)
    return [min(t) for t in times]


def test_header_read_speed_targets(
    gemma_gguf: Path,
    gguf_reference_gemma: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    record_property: Any,
) -> None:
    header = read_header(gemma_gguf)
    big = tmp_path / "gemma-100x-data.gguf"
    big_size = _sparse_copy_with_more_data(gemma_gguf, big, header.data_offset, DATA_FACTOR)
    allocated = big.stat().st_blocks * 512
    # The copy must really be sparse and carry the very same header.
    assert allocated < 4 * header.data_offset + (1 << 20), (
        f"{allocated:,} bytes allocated: not sparse"
    )
    big_header = read_header(big)
    assert big_header.fields.keys() == header.fields.keys()
    assert big_header.tensors == header.tensors
    assert big_header.file_size == big_size

    ours, ours_big = _fastest_seconds([gemma_gguf, big], RUNS)
    reference = gguf_reference_gemma["seconds"]
    speedup = reference / ours
    big_over_small = ours_big / ours

    figures = {
        "file_bytes": header.file_size,
        "header_bytes": header.data_offset,
        "big_file_bytes": big_size,
        "big_file_allocated_bytes": allocated,
        "gguf_reader_s": round(reference, 3),
        "ours_ms": round(ours * 1e3, 2),
        "ours_big_ms": round(ours_big * 1e3, 2),
        "speedup_vs_gguf_reader": round(speedup, 1),
        "big_over_small": round(big_over_small, 3),
        "runs": RUNS,
        "cpus": os.cpu_count(),
    }
    for key, value in figures.items():
        record_property(key, value)
    with capsys.disabled():
        print(
            f"\n[gguf header speed] gguf.GGUFReader {reference:.2f} s vs ours {ours * 1e3:.1f} ms "
            f"(fastest of {RUNS}) on {header.file_size:,} B: {speedup:.0f}x faster "
            f"(target >= {MIN_SPEEDUP:.0f}x); "
            f"same header with {DATA_FACTOR}x data ({big_size:,} B, {allocated:,} B allocated): "
            f"{ours_big * 1e3:.1f} ms = {big_over_small:.2f}x (target <= {MAX_BIG_OVER_SMALL:.2f}x)"
        )
    assert speedup >= MIN_SPEEDUP, figures
    assert big_over_small <= MAX_BIG_OVER_SMALL, figures
