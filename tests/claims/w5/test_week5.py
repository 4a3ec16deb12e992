"""W5: the Week 5 lab folder (fixtures/lab/week-05-pytorch-tensors): tensors, the three
floating formats, and the matmul benchmark's records.

Three kinds of evidence, each declared:

* the formats and bytes, decided by the suite from the IEEE 754 bit patterns with the
  standard library (``claims.probes.arithmetic.tensors``) and Week 4's catalog: no torch;
* the author's records (results.json, model-run.yaml, the prose files), ``source="recorded"``:
  the benchmark's arithmetic recomputed from them, and the files compared with each other;
* what torch itself does on this machine's CPU (the lab's own scripts run, torch.finfo,
  torch's FLOP counter), ``source="live"``: not run where torch is not installed.

Figures come from the catalog (W5.toml); a figure the author printed is compared at the
precision it was printed with (``Interval.stated``), so an arithmetic result is never
rounded to fit.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import re
import runpy
import statistics
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from claims.probes.arithmetic import tensors
from claims.probes.arithmetic.tensors import FORMATS, MIB, MatmulRun
from claims.probes.machine.torch_cuda import import_torch
from claims.testing import lab
from claims.testkit import Check, InputError, Interval, PrerequisiteMissing, not_run

FOLDER = "week-05-pytorch-tensors"
# The catalog's names for the formats (W4's precision table uses the same labels).
LABELS = {"fp32": "FP32", "fp16": "FP16", "bf16": "BF16"}
TORCH_NAMES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
# Said after why torch cannot be used (not installed, or installed and not importing).
INSTALL_TORCH = "pip install 'claims-suite[gpu]' or any torch build; CPU is enough"


def _path(name: str) -> Path:
    return lab.lab_dir() / FOLDER / name


def _run() -> MatmulRun:
    return tensors.read_results(_path("results.json"))


def _model_run() -> dict[str, Any]:
    return tensors.read_model_run(_path("model-run.yaml"))


def _printed(name: str, pattern: str, what: str) -> str:
    """The first group of ``pattern`` in a text file of the folder (InputError: not there)."""
    path = _path(name)
    m = re.search(pattern, path.read_text("utf-8"))
    if m is None:
        raise InputError(f"{path}: prints no {what}")
    return m.group(1)


def _torch() -> Any:
    """torch, or end the test as not run (the claims it decides need torch itself), saying
    why: not installed, or installed and raising on import (an ImportError or OSError
    from a CUDA wheel missing a library), which must not end the run instead."""
    try:
        return import_torch()
    except PrerequisiteMissing as exc:
        not_run(f"{exc} ({INSTALL_TORCH})")


# ---- bytes per element and per tensor ------------------------------------------------
@pytest.mark.claim("W5-DTYPE-BYTES")
@pytest.mark.offline
def test_bytes_per_element_from_the_bit_layouts(check: Check) -> None:
    for key, fmt in FORMATS.items():
        check.against(f"{LABELS[key]} bytes", fmt.element_bytes, unit="B",
                      note=f"{fmt.name}: {fmt.bits} bits packed by struct")
    try:
        torch = import_torch()
    except PrerequisiteMissing as exc:
        check.note(f"{exc}: sizes from the bit layouts only")
        return
    check.fact("torch", torch.__version__)
    for key in FORMATS:
        dtype = getattr(torch, TORCH_NAMES[key])
        check.against(f"{LABELS[key]} bytes", torch.zeros(1, dtype=dtype).element_size(),
                      unit="B", note=f"torch {TORCH_NAMES[key]} element_size()")


@pytest.mark.claim("W5-DTYPE-BYTES", source="recorded")
@pytest.mark.offline
def test_bytes_per_element_recorded(check: Check) -> None:
    run = _run()
    check.fact("lab evidence", lab.PROVENANCE)
    for key in FORMATS:
        check.against(f"{LABELS[key]} bytes", run.dtype_bytes[TORCH_NAMES[key]], unit="B",
                      note=f"results.json dtype_bytes.{TORCH_NAMES[key]}")


@pytest.mark.claim("W5-DTYPE-BYTES-WEEK4")
@pytest.mark.offline
def test_bytes_per_element_match_week4(check: Check) -> None:
    """Week 5's stated sizes beside Week 4's, both read from the catalog."""
    pairs = {}
    for label in LABELS.values():
        pairs[label] = (check.premise(f"{label} bytes", claim="W5-DTYPE-BYTES"),
                        check.premise(f"{label} bytes", claim="W4-PRECISION-BYTES"))
        check.observe(f"{label}: Week 5 / Week 4", list(pairs[label]), unit="B")
    check.against("matches Week 4's table", all(w5 == w4 for w5, w4 in pairs.values()))


@pytest.mark.claim("W5-1024-BYTES")
@pytest.mark.offline
def test_same_shape_three_precisions(check: Check) -> None:
    side = round(check.premise("side"))
    shape = (side, side)
    # Week 4's formula with Week 4's bytes per element (its catalog), and the bit layouts.
    week4 = {key: round(check.premise(f"{LABELS[key]} bytes", claim="W4-PRECISION-BYTES"))
             for key in FORMATS}
    size = {key: tensors.tensor_bytes(shape, fmt.element_bytes) for key, fmt in FORMATS.items()}
    check.against("FP32 bytes", tensors.tensor_bytes(shape, week4["fp32"]), unit="B",
                  note="elements × Week 4's FP32 bytes per element")
    check.against("FP32 bytes", size["fp32"], unit="B", note="elements × binary32's 4 bytes")
    for key in ("fp16", "bf16"):
        check.against("16-bit bytes", tensors.tensor_bytes(shape, week4[key]), unit="B",
                      note=f"elements × Week 4's {LABELS[key]} bytes per element")
        check.against("16-bit bytes", size[key], unit="B", note=f"{FORMATS[key].name} layout")
        check.against("16-bit share of FP32", size[key] / size["fp32"], unit="x",
                      note=f"{LABELS[key]} bytes / FP32 bytes")


@pytest.mark.claim("W5-SAME-BYTES-OTHER-SPLIT")
@pytest.mark.offline
def test_same_bytes_different_split(check: Check) -> None:
    fp16, bf16 = FORMATS["fp16"], FORMATS["bf16"]
    check.against("same bytes", fp16.element_bytes == bf16.element_bytes,
                  note=f"{fp16.element_bytes} B and {bf16.element_bytes} B")
    splits = {key: FORMATS[key].packed_split() for key in ("fp16", "bf16")}
    for key, (exponent, fraction) in splits.items():
        check.observe(f"{LABELS[key]} sign / exponent / fraction bits",
                      f"1 / {exponent} / {fraction}",
                      note="read off the packed 1.0 (struct), not the declared layout")
    check.against("bits split differently", splits["fp16"] != splits["bf16"])


# ---- the formats ---------------------------------------------------------------------
def _finfo_lines() -> str:
    """What the README's torch.finfo loop prints, computed from the bit layouts."""
    return "\n".join(f"{key:5} max={fmt.largest:.3e} smallest_step_near_1={fmt.step_near_one:.3e}"
                     for key, fmt in FORMATS.items())


@pytest.mark.claim("W5-FP16-RANGE")
@pytest.mark.offline
def test_fp16_range_and_step(check: Check) -> None:
    fp16, bf16 = FORMATS["fp16"], FORMATS["bf16"]
    check.attach("the README's finfo loop, from the bit layouts", _finfo_lines())
    check.against("FP16 max", fp16.largest, note="largest finite binary16 (0x7bff)")
    check.against("FP16 step finer than BF16's", fp16.step_near_one < bf16.step_near_one,
                  note=f"{fp16.step_near_one:.3e} against {bf16.step_near_one:.3e}")


@pytest.mark.claim("W5-BF16-RANGE")
@pytest.mark.offline
def test_bf16_range_and_step(check: Check) -> None:
    fp32, fp16, bf16 = FORMATS["fp32"], FORMATS["fp16"], FORMATS["bf16"]
    check.against("BF16 max over FP32 max", bf16.largest / fp32.largest, unit="x",
                  note=f"{bf16.largest:.4e} / {fp32.largest:.4e}")
    check.observe("FP16 max over FP32 max", fp16.largest / fp32.largest, unit="x")
    check.against("BF16 step coarser than FP16's", bf16.step_near_one > fp16.step_near_one,
                  note=f"{bf16.step_near_one:.3e} against {fp16.step_near_one:.3e}")


@pytest.mark.claim("W5-FINFO-MEANING", source="live")
@pytest.mark.offline
def test_finfo_is_largest_value_and_gap_above_one(check: Check) -> None:
    torch = _torch()
    check.fact("torch", torch.__version__)
    check.attach("the README's finfo loop, from the bit layouts", _finfo_lines())
    for key, fmt in FORMATS.items():
        fi = torch.finfo(getattr(torch, TORCH_NAMES[key]))
        above = fmt.decode(fmt.encode(fmt.largest) + 1)
        check.measure(f"{fmt.name}: the pattern after max decodes to infinity",
                      math.isinf(above), holds=math.isinf(above), expected="true")
        check.measure(f"{fmt.name}: finfo.max", fi.max, holds=fi.max == fmt.largest,
                      expected=f"{fmt.largest!r} (largest finite, from the bit pattern)")
        check.measure(f"{fmt.name}: finfo.eps", fi.eps, holds=fi.eps == fmt.step_near_one,
                      expected=f"{fmt.step_near_one!r} (next value above 1, minus 1)")
        # Which power of two has finfo.eps as its gap to the next value: the README's
        # "near 1" (each binade's gap is twice the one below, so exactly one matches).
        near = [2.0 ** e for e in range(-8, 9)
                if fmt.decode(fmt.encode(2.0 ** e) + 1) - 2.0 ** e == fi.eps]
        check.against("step taken near", near[0] if len(near) == 1 else float("nan"),
                      note=f"{fmt.name}: the power of two whose gap is finfo.eps, of {near}")


# ---- the benchmark's arithmetic on the records --------------------------------------
def _ms(value: Decimal) -> Interval:
    """A printed time in ms as the interval of its printed precision."""
    return Interval.stated(str(value))


def _rate(n: int, seconds: Interval) -> Interval:
    """GFLOP/s of an n×n matmul over a printed time, as the interval it admits."""
    return tensors.matmul_flops(n) / seconds / 1e9


@pytest.mark.claim("W5-GFLOPS-FORMULA", source="recorded")
@pytest.mark.offline
def test_each_row_is_2n3_over_its_time(check: Check) -> None:
    run = _run()
    check.fact("lab evidence", lab.PROVENANCE)
    # The formula as the catalog states it (benchmark_matmul.py prints its figures).
    factor = int(check.premise("operations per n³"))
    power = int(check.premise("power of n"))
    giga = check.premise("FLOPs per GFLOP")
    for row in run.rows:
        implied = factor * run.size**power / (_ms(row.median_ms) / 1000) / giga
        printed = Interval.stated(str(row.gflops))
        check.measure(f"{row.precision}: {factor}n^{power} / {row.median_ms} ms", str(implied),
                      holds=implied.overlaps(printed), unit="GFLOP/s",
                      expected=f"{row.gflops} GFLOP/s (results.json)")
    # The script's own gflops(), read from its source, is that formula: the same operations
    # in the same order, so the very same float.
    source = _path("benchmark_matmul.py").read_text("utf-8")
    seconds = float(run.row("fp32").median_ms) / 1000
    theirs = tensors.script_gflops(source, run.size, seconds)
    stated = factor * run.size**power / seconds / giga
    check.measure("benchmark_matmul.py's gflops() at results.json's fp32 row", theirs,
                  unit="GFLOP/s", holds=theirs == stated,
                  expected=f"{stated:.3f} ({factor} × n ** {power} / s / {giga:g})")


@pytest.mark.claim("W5-GPU-FP32-RATE", source="recorded")
@pytest.mark.offline
def test_gpu_fp32_rate(check: Check) -> None:
    run, model = _run(), _model_run()
    fp32 = run.row("fp32")
    check.against("size", run.size, note="results.json matmul.size")
    check.against("size", model["workload.size"], note="model-run.yaml workload.size")
    check.against("FP32 time", float(fp32.median_ms), unit="ms", note="results.json")
    check.against("GPU FP32 rate", _rate(run.size, _ms(fp32.median_ms) / 1000),
                  unit="GFLOP/s", note="2n³ over results.json's fp32 median")
    check.against("GPU FP32 rate", float(fp32.gflops), unit="GFLOP/s",
                  note="results.json fp32 gflops")


@pytest.mark.claim("W5-CPU-RATE", source="recorded")
@pytest.mark.offline
def test_cpu_rate(check: Check) -> None:
    run = _run()
    check.against("CPU FP32 rate", _rate(run.size, _ms(run.cpu_fp32_ms) / 1000),
                  unit="GFLOP/s", note=f"2n³ over results.json's cpu_fp32_ms ({run.cpu_fp32_ms})")


@pytest.mark.claim("W5-SPEEDUP", source="recorded")
@pytest.mark.offline
def test_gpu_over_cpu(check: Check) -> None:
    run, model = _run(), _model_run()
    check.against("GPU over CPU", _ms(run.cpu_fp32_ms) / _ms(run.row("fp32").median_ms),
                  unit="x", note="results.json cpu_fp32_ms / fp32 median_ms")
    check.against("GPU over CPU", float(run.gpu_speedup_fp32 or 0), unit="x",
                  note="results.json gpu_speedup_fp32")
    check.against("GPU over CPU", float(model["results.gpu_speedup_fp32"]), unit="x",
                  note="model-run.yaml results.gpu_speedup_fp32")
    # The benchmark divides its unrounded CPU time by the GPU median it rounded to 3
    # decimals and rounds to one: the printed times' intervals admit that quotient.
    check.against("recorded speedup", _ms(run.cpu_fp32_ms) / _ms(run.row("fp32").median_ms),
                  unit="x", note="results.json cpu_fp32_ms / fp32 median_ms")
    check.against("recorded speedup", float(run.gpu_speedup_fp32 or 0), unit="x",
                  note="results.json gpu_speedup_fp32")
    rates = (check.premise_interval("GPU FP32 rate", claim="W5-GPU-FP32-RATE")
             / check.premise_interval("CPU FP32 rate", claim="W5-CPU-RATE"))
    check.against("GPU over CPU", rates, unit="x", note="the two rates the sentence before states")


@pytest.mark.claim("W5-16BIT-TIME", source="recorded")
@pytest.mark.offline
def test_16bit_time_and_speedup(check: Check) -> None:
    run = _run()
    fp32 = _ms(run.row("fp32").median_ms)
    for key in ("fp16", "bf16"):
        row = run.row(key)
        check.against(f"{LABELS[key]} time", float(row.median_ms), unit="ms",
                      note=f"results.json {key} median_ms")
        check.against(f"{LABELS[key]} speedup", fp32 / _ms(row.median_ms), unit="x",
                      note=f"fp32 median / {key} median")


@pytest.mark.claim("W5-PAYLOAD")
@pytest.mark.offline
def test_payload_of_three_matrices(check: Check) -> None:
    run = _run()
    matrices = round(check.premise("matrices"))
    check.against("FP32 payload",
                  tensors.payload_bytes(run.size, FORMATS["fp32"].element_bytes, matrices) / MIB,
                  unit="MiB", note=f"{matrices} × {run.size}² × 4 B")
    fp32 = tensors.payload_bytes(run.size, FORMATS["fp32"].element_bytes, matrices)
    for key in ("fp16", "bf16"):
        fmt = FORMATS[key]
        payload = tensors.payload_bytes(run.size, fmt.element_bytes, matrices)
        check.against("16-bit payload", payload / MIB,
                      unit="MiB", note=f"{matrices} × {run.size}² × {fmt.element_bytes} B")
        check.against("16-bit share of FP32 payload", payload / fp32, unit="x",
                      note=f"{key}: {fmt.element_bytes} B over FP32's "
                      f"{FORMATS['fp32'].element_bytes} B per element")


@pytest.mark.claim("W5-PEAK-DROP", source="recorded")
@pytest.mark.offline
def test_peak_allocation(check: Check) -> None:
    run, model = _run(), _model_run()
    fp32 = run.row("fp32").peak_mib
    check.against("FP32 peak", float(fp32), unit="MiB", note="results.json")
    check.against("FP32 peak", float(model["results.fp32_peak_mib"]), unit="MiB",
                  note="model-run.yaml")
    for key in ("fp16", "bf16"):
        peak = run.row(key).peak_mib
        check.against("16-bit peak", float(peak), unit="MiB", note=f"results.json {key}")
        check.against("peak drop", (Interval.stated(str(fp32)) - Interval.stated(str(peak)))
                      / Interval.stated(str(fp32)) * 100, unit="%", note=f"fp32 to {key}")
    check.against("16-bit peak", float(model["results.fp16_peak_mib"]), unit="MiB",
                  note="model-run.yaml fp16")
    matrices = round(check.premise("matrices", claim="W5-PAYLOAD"))
    above = []
    for row in run.rows:
        payload = tensors.payload_bytes(run.size, FORMATS[row.precision].element_bytes,
                                        matrices) / MIB
        above.append(float(row.peak_mib) > payload)
        check.observe(f"{row.precision}: peak over payload", f"{row.peak_mib} / {payload:g}",
                      unit="MiB")
    check.against("peak above payload", all(above))


@pytest.mark.claim("W5-ITERATIONS", source="recorded")
@pytest.mark.offline
def test_iteration_counts(check: Check) -> None:
    run, model = _run(), _model_run()
    source = _path("benchmark_matmul.py").read_text("utf-8")
    check.against("GPU iterations", run.gpu_iters, note="results.json gpu_iters")
    check.against("CPU iterations", run.cpu_iters, note="results.json cpu_iters")
    check.against("CPU iterations", tensors.cpu_iterations(source, run.gpu_iters),
                  note=f"benchmark_matmul.py's cpu_iters for --iters {run.gpu_iters}")
    # "a quarter of them, at least 3": the expression's floor (--iters 0) and its share at a
    # count large enough that the floor does not apply.
    check.against("CPU iterations floor", tensors.cpu_iterations(source, 0),
                  note="benchmark_matmul.py's cpu_iters for --iters 0")
    many = 400
    check.against("GPU iterations per CPU iteration",
                  many / tensors.cpu_iterations(source, many),
                  note=f"--iters {many} over benchmark_matmul.py's cpu_iters for it")
    notes = model["notes"]
    gpu = re.search(r"median of (\d+) iterations", notes)
    cpu = re.search(r"CPU is the median of (\d+)", notes)
    if gpu is None or cpu is None:
        raise InputError(f"{_path('model-run.yaml')}: notes state no iteration counts")
    check.against("GPU iterations", int(gpu.group(1)), note="model-run.yaml notes")
    check.against("CPU iterations", int(cpu.group(1)), note="model-run.yaml notes")
    check.against("GPU iterations",
                  int(_printed("results.json", r"GPU rows are the median of (\d+) iterations",
                               "GPU iteration count in its note")), note="results.json note")
    check.against("CPU iterations",
                  int(_printed("results.json", r"CPU row is the median of (\d+)",
                               "CPU iteration count in its note")), note="results.json note")
    check.against("GPU warmup", run.warmup, note="results.json warmup")
    # The printed commands pass no --warmup, so the run's warmup is the script's default.
    default = tensors.script_defaults(source).get("warmup")
    if not isinstance(default, int):
        raise InputError(f"{_path('benchmark_matmul.py')}: --warmup has no whole-number default")
    check.against("GPU warmup", default, note="benchmark_matmul.py's --warmup default")
    check.against("CPU warmup", tensors.cpu_warmup(source),
                  note="benchmark_matmul.py's time_matmul call for the CPU")
    commands = {name: _printed(name, r"(--size \d+ --iters \d+[^'\n]*)'", "benchmark command")
                for name in ("README.md", "model-run.yaml")}
    check.measure("the printed commands leave --warmup at its default", commands,
                  holds=not any("--warmup" in c for c in commands.values()),
                  expected="no --warmup in README.md's or model-run.yaml's command")
    check.measure("a warmup before timing", run.warmup, holds=run.warmup > 0,
                  expected="at least one warmup matmul (results.json warmup)")


@pytest.mark.claim("W5-FILES-AGREE", source="recorded")
@pytest.mark.offline
def test_files_agree(check: Check) -> None:
    run, model = _run(), _model_run()
    readme, report = "README.md", "system-report.md"
    same: dict[str, list[str]] = {
        "size": [str(run.size), str(model["workload.size"]),
                 _printed(readme, r"--size (\d+)", "--size"),
                 _printed("model-run.yaml", r"--size (\d+)", "--size")],
        "GPU iterations": [str(run.gpu_iters), _printed(readme, r"--iters (\d+)", "--iters"),
                           _printed("model-run.yaml", r"--iters (\d+)", "--iters")],
        "torch": [run.torch, model["environment.version"], lab.pins("W5").get("torch", "?"),
                  _printed(report, r"(?m)^torch (\S+)$", "torch version"),
                  _printed(readme, r"\(torch (\S+)\)", "torch build")],
        "device": [run.device, model["hardware.device"],
                   _printed(report, r"(?m)^device_name (.+)$", "device name")],
        "CUDA": [run.cuda_runtime, model["hardware.cuda"]],
        "capture date": [run.captured_date,
                         _printed(report, r"Captured on (\d{4}-\d\d-\d\d)", "capture date")],
        "memory": [_printed(report, r"with (\d+) GiB", "memory size"),
                   _printed("model-run.yaml", r"memory: (\d+) GiB", "memory size")],
        "precisions": [",".join(r.precision for r in run.rows),
                       ",".join(model["workload.precisions"])],
    }
    # Each figure observations.md prints beside the records (the catalog's figures).
    numbers: dict[str, list[Decimal]] = {
        "FP32 median ms": [run.row("fp32").median_ms, model["results.gpu_fp32_median_ms"]],
        "FP16 median ms": [run.row("fp16").median_ms, model["results.gpu_fp16_median_ms"]],
        "BF16 median ms": [run.row("bf16").median_ms, model["results.gpu_bf16_median_ms"]],
        "FP32 GFLOP/s": [run.row("fp32").gflops, model["results.gpu_fp32_gflops"]],
        "CPU median ms": [run.cpu_fp32_ms, model["results.cpu_fp32_median_ms"]],
        "speedup": [run.gpu_speedup_fp32 or Decimal(0), model["results.gpu_speedup_fp32"]],
        "FP32 peak MiB": [run.row("fp32").peak_mib, model["results.fp32_peak_mib"]],
        "FP16 peak MiB": [run.row("fp16").peak_mib, model["results.fp16_peak_mib"]],
    }
    for name, values in same.items():
        check.measure(f"{name}: results.json, model-run.yaml and the prose", values,
                      holds=len(set(values)) == 1, expected="the same in every file")
    for name, nums in numbers.items():
        check.measure(f"{name}: results.json and model-run.yaml", [str(n) for n in nums],
                      holds=len(set(nums)) == 1, expected="the same number in both")
    # observations.md, as the catalog states it, at its printed precision.
    stated = {
        "FP32 median ms": check.premise_interval("FP32 time", claim="W5-GPU-FP32-RATE"),
        "FP32 GFLOP/s": check.premise_interval("GPU FP32 rate", claim="W5-GPU-FP32-RATE"),
        "speedup": check.premise_interval("GPU over CPU", claim="W5-SPEEDUP"),
        "FP32 peak MiB": check.premise_interval("FP32 peak", claim="W5-PEAK-DROP"),
        "FP16 peak MiB": check.premise_interval("16-bit peak", claim="W5-PEAK-DROP"),
    }
    for name, interval in stated.items():
        record = numbers[name][0]
        check.measure(f"{name}: observations.md and results.json", str(record),
                      holds=interval.contains(float(record)),
                      expected=f"{interval} (observations.md, at its printed precision)")
    sizes = {check.premise("size", claim="W5-GPU-FP32-RATE"), float(run.size)}
    check.measure("size: observations.md and results.json", sorted(sizes),
                  holds=len(sizes) == 1, expected="one size")
    # The capture date is the claim's own figure: both files print the catalog's day.
    check.against("capture date", run.captured_date, note="results.json captured_date")
    check.against("capture date", same["capture date"][1], note="system-report.md")


@pytest.mark.claim("W5-RESULTS-ANNOTATED", source="recorded")
@pytest.mark.offline
def test_results_are_the_benchmark_output_annotated(check: Check) -> None:
    run = _run()
    source = _path("benchmark_matmul.py").read_text("utf-8")
    payload = tensors.written_fields(source, "payload")
    row = tensors.written_fields(source, "row")
    check.measure("matmul object: the fields the script writes, in its order",
                  list(run.matmul_fields), holds=list(run.matmul_fields) == payload,
                  expected=", ".join(payload))
    rows = sorted({p.rsplit(".", 1)[1] for p in run.fields if p.startswith("matmul.precisions[]")})
    check.measure("each precision row: the fields the script writes", rows,
                  holds=rows == sorted(row), expected=", ".join(row))
    added = sorted({p.split(".", 1)[0] for p in run.fields} - {"matmul"})
    check.observe("added beside the output (the annotation)", added)
    check.measure("the annotation is beside the output, not in it", added,
                  holds="matmul" not in added and len(added) > 0,
                  expected="fields outside the matmul object only")


def _readme_table() -> list[str]:
    text = _path("README.md").read_text("utf-8")
    section = text.split("## Files", 1)[-1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)


@pytest.mark.claim("W5-FILES-TABLE", source="recorded")
@pytest.mark.offline
def test_files_the_readme_lists(check: Check) -> None:
    listed = _readme_table()
    folder = sorted(p.name for p in (lab.lab_dir() / FOLDER).iterdir() if p.is_file())
    check.observe("the README's table", listed)
    check.measure("the folder holds exactly the listed files and the README", folder,
                  holds=sorted([*listed, "README.md"]) == folder,
                  expected=", ".join(sorted([*listed, "README.md"])))


@pytest.mark.claim("W5-FP32-TWICE")
@pytest.mark.offline
def test_fp32_twice_fp16_at_any_size(check: Check) -> None:
    fp32, fp16 = FORMATS["fp32"].element_bytes, FORMATS["fp16"].element_bytes
    # Sizes from one element to past the benchmark's (a square's bytes grow with n²).
    ratios = {n: tensors.tensor_bytes((n, n), fp32) / tensors.tensor_bytes((n, n), fp16)
              for n in (1, 3, 1024, 4096, 65_536)}
    check.observe("FP32 / FP16 bytes of an n×n tensor, by n", ratios, unit="x")
    for n, ratio in ratios.items():
        check.against("FP32 over FP16 bytes", ratio, unit="x", note=f"n = {n}")
    # A budget between the two sizes holds the FP16 tensor and not the FP32 one.
    n = 4096
    budget = (tensors.tensor_bytes((n, n), fp16) + tensors.tensor_bytes((n, n), fp32)) // 2
    check.measure(f"a {budget:,} B budget holds {n}² at FP16, not at FP32",
                  [tensors.tensor_bytes((n, n), fp16), tensors.tensor_bytes((n, n), fp32)],
                  unit="B", holds=tensors.tensor_bytes((n, n), fp16) <= budget
                  < tensors.tensor_bytes((n, n), fp32), expected="FP16 fits, FP32 does not")


@pytest.mark.claim("W5-REUSES-WEEK1", source="recorded")
@pytest.mark.offline
def test_torch_build_is_week1s(check: Check) -> None:
    check.against("torch", check.premise_text("torch version", claim="W1-TORCH-VALIDATE"),
                  note="Week 1's torch build (W1-TORCH-VALIDATE in the catalog)")
    check.against("torch", lab.pins("W5").get("torch", "no torch pin"),
                  note="requirements.txt")


# ---- torch on this machine's CPU ----------------------------------------------------
def _script_output(name: str) -> str:
    """Run one of the lab's scripts (its main) in this interpreter; its stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(_path(name)), run_name="__main__")
    return out.getvalue()


@pytest.mark.claim("W5-TENSOR-REPORTS", source="live")
@pytest.mark.offline
def test_tensor_reports(check: Check) -> None:
    torch = _torch()
    check.fact("torch", torch.__version__)
    output = _script_output("tensor_basics.py")
    check.attach("tensor_basics.py on this machine", output)
    shapes = tensors.built_shapes(_path("tensor_basics.py").read_text("utf-8"))
    # The shapes the statement names, as the catalog states them (the script prints them).
    stated = {
        "matrix": (int(check.premise("matrix rows")), int(check.premise("matrix columns"))),
        "tensor3d": tuple(int(check.premise(f"tensor3d {which} size"))
                          for which in ("first", "second", "third")),
        "*": (int(check.premise("precision tensors rows")),
              int(check.premise("precision tensors columns"))),
    }
    shapes.update(stated)
    reports = [r for r in map(tensors.parse_report, output.splitlines()) if r is not None]
    by_dtype = {fmt.name: key for key, fmt in FORMATS.items()}
    check.measure("tensors described", [r.name for r in reports],
                  holds=len(reports) == len(shapes) - 1 + len(FORMATS),
                  expected=f"{len(shapes) - 1} named tensors and one per precision")
    for r in reports:
        expected_shape = shapes.get(r.name, shapes.get("*"))
        key = by_dtype.get(r.dtype)
        elem = FORMATS[key].element_bytes if key else None
        check.measure(f"{r.name}: shape", list(r.shape), holds=r.shape == expected_shape,
                      expected=f"{expected_shape} (the script's constructor)")
        check.measure(f"{r.name}: rank", r.rank, holds=r.rank == len(r.shape),
                      expected=f"{len(r.shape)} (dimensions of its shape)")
        check.measure(f"{r.name}: bytes per element", r.element_bytes, unit="B",
                      holds=r.element_bytes == elem, expected=f"{elem} ({r.dtype} layout)")
        check.measure(f"{r.name}: total bytes", r.total_bytes, unit="B",
                      holds=r.total_bytes == tensors.tensor_bytes(r.shape, r.element_bytes),
                      expected="element count × bytes per element")
        check.measure(f"{r.name}: device", r.device, holds=r.device == "cpu",
                      expected="cpu (made without a device)")
    rank3 = next((r.rank for r in reports if r.name == "tensor3d"), None)
    check.against("tensor3d rank", rank3, note="the rank torch reports for tensor3d")
    totals = {r.dtype: r.total_bytes for r in reports if r.name == r.dtype}
    check.measure("1024×1024 float32 total (observations.md's figure)", totals.get("float32"),
                  unit="B", holds=totals.get("float32") == check.premise(
                      "FP32 bytes", claim="W5-1024-BYTES"), expected="W5-1024-BYTES")
    for dtype in ("float16", "bfloat16"):
        check.measure(f"1024×1024 {dtype} total", totals.get(dtype), unit="B",
                      holds=totals.get(dtype) == check.premise("16-bit bytes",
                                                               claim="W5-1024-BYTES"),
                      expected="W5-1024-BYTES")


def _block(output: str, title: str) -> list[str]:
    """The lines of one ``=== title ===`` block of tensor_basics.py's output."""
    part = output.split(f"=== {title} ===", 1)
    if len(part) != 2:
        raise InputError(f"tensor_basics.py printed no {title!r} block")
    return [line for line in part[1].split("\n===", 1)[0].splitlines() if line.strip()]


@pytest.mark.claim("W5-ELEMENTWISE-BROADCAST", source="live")
@pytest.mark.offline
def test_elementwise_and_broadcast(check: Check) -> None:
    import ast

    _torch()
    output = _script_output("tensor_basics.py")
    inputs = tensors.literal_tensors(_path("tensor_basics.py").read_text("utf-8"))
    a, b, matrix, row = inputs["a"], inputs["b"], inputs["matrix"], inputs["row"]
    summed = _block(output, "element-wise operation")[0].split("=", 1)[1]
    got = ast.literal_eval(summed.strip())
    want = [x + y for x, y in zip(a, b, strict=True)]
    check.measure("a + b", got, holds=got == want, expected=f"{want} (position by position)")
    broadcast = _block(output, "broadcasting")
    shape = re.search(r"matrix shape \((\d+), (\d+)\)", broadcast[0])
    if shape is None:
        raise InputError(f"tensor_basics.py printed no matrix shape: {broadcast[0]!r}")
    check.against("broadcast matrix rows", int(shape.group(1)), note="the shape torch reports")
    check.against("broadcast matrix columns", int(shape.group(2)),
                  note="the shape torch reports")
    result = ast.literal_eval(" ".join(broadcast[2:]).strip())
    want_b = [[m + r for m, r in zip(line, row, strict=True)] for line in matrix]
    check.attach("broadcasting block", "\n".join(broadcast))
    check.measure("matrix (2, 3) + row (3,)", result, holds=result == want_b,
                  expected=f"{want_b} (the row added to each row)")


def _module(name: str) -> ModuleType:
    """The lab script loaded as a module, leaving no bytecode beside the bundled copy:
    an import writes __pycache__ there unless told not to (PYTHONDONTWRITEBYTECODE)."""
    spec = importlib.util.spec_from_file_location(f"w5_lab_{name}", _path(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes
    return module


class _Operand:
    """A stand-in matmul operand that logs each product, on the device type given."""

    def __init__(self, log: list[str], device: str) -> None:
        self.device = SimpleNamespace(type=device)
        self.log = log

    def __matmul__(self, other: _Operand) -> _Operand:
        self.log.append("matmul")
        return self


@contextlib.contextmanager
def _recorded_calls(module: ModuleType, spans: list[float]) -> Iterator[list[str]]:
    """Log the module's clock reads and synchronize calls; the clock advances by ``spans``
    from each read that starts an iteration to the read that ends it."""
    log: list[str] = []
    now = [0.0]
    pending = list(spans)

    def clock() -> float:
        log.append("clock")
        if log.count("clock") % 2 == 0:  # an iteration's end: add its span
            now[0] += pending.pop(0)
        return now[0]

    torch = module.torch
    real_sync, real_time = torch.cuda.synchronize, module.__dict__["time"]
    torch.cuda.synchronize = lambda *a, **k: log.append("sync")
    module.__dict__["time"] = SimpleNamespace(perf_counter=clock)
    try:
        yield log
    finally:
        torch.cuda.synchronize = real_sync
        module.__dict__["time"] = real_time


@pytest.mark.claim("W5-TIMING-METHOD", source="live")
@pytest.mark.offline
def test_warmup_then_synchronized_median(check: Check) -> None:
    _torch()
    bench = _module("benchmark_matmul")
    spans = [0.5, 0.125, 0.375, 0.25]  # binary fractions: the fake clock adds them exactly
    warmup = 3
    with _recorded_calls(bench, spans) as log:
        a = _Operand(log, "cuda")
        got = bench.time_matmul(a, a, len(spans), warmup)
    expected = ["matmul"] * warmup + ["sync"] + ["clock", "matmul", "sync", "clock"] * len(spans)
    check.attach("calls on a CUDA operand", " ".join(log))
    check.measure("warmup first, then each timed matmul between a clock read and a sync",
                  " ".join(log), holds=log == expected, expected=" ".join(expected))
    check.measure("reported time", got, unit="s", holds=got == statistics.median(spans),
                  expected=f"{statistics.median(spans)} (the median of the spans)")
    with _recorded_calls(bench, spans) as log:
        b = _Operand(log, "cpu")
        bench.time_matmul(b, b, len(spans), 1)
    check.measure("on the CPU: no synchronize", log.count("sync"),
                  holds=log.count("sync") == 0, expected="0")


@pytest.mark.claim("W5-FLOP-COUNT", source="live")
@pytest.mark.offline
def test_matmul_flop_count(check: Check) -> None:
    torch = _torch()
    from torch.utils.flop_counter import FlopCounterMode

    check.fact("torch", torch.__version__)
    for n in (64, 257):
        a, b = torch.randn(n, n), torch.randn(n, n)
        with FlopCounterMode(display=False) as counter:
            a @ b
        counted = counter.get_total_flops()
        check.measure(f"{n}×{n} matmul: FLOPs torch counts", counted,
                      holds=counted == tensors.matmul_flops(n), expected=f"2n³ = {2 * n**3:,}")
    bench = _module("benchmark_matmul")
    run = _run()
    seconds = float(run.row("fp32").median_ms) / 1000
    theirs, ours = bench.gflops(run.size, seconds), tensors.gflops(run.size, seconds)
    check.measure("the script's gflops() for results.json's fp32 row", theirs, unit="GFLOP/s",
                  holds=theirs == ours, expected=f"{ours:.3f} (2n³ / s / 1e9, the same operations)")
