"""claims.probes.arithmetic.tensors: the formats from their bit patterns, the byte and FLOP
arithmetic, the lab scripts read without running them, and the readers of results.json
and model-run.yaml (every bad field a clear error naming the file and the field)."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claims.probes.arithmetic import tensors
from claims.probes.arithmetic.tensors import FORMATS
from claims.probes.errors import InputError
from tests.extras import import_or_skip
from tests.interpreter import modules_loaded

LAB = Path(__file__).resolve().parents[3] / "fixtures" / "lab" / "week-05-pytorch-tensors"


# ---- formats ---------------------------------------------------------------------
@pytest.mark.parametrize(("key", "largest", "step"), [
    # IEEE 754-2019 table 3.5 and the bfloat16 definition: (2 - 2^-f) * 2^emax, 2^-f.
    ("fp32", (2 - 2**-23) * 2.0**127, 2.0**-23),
    ("fp16", (2 - 2**-10) * 2.0**15, 2.0**-10),
    ("bf16", (2 - 2**-7) * 2.0**127, 2.0**-7),
])
def test_largest_and_step_from_the_closed_forms(key: str, largest: float, step: float) -> None:
    fmt = FORMATS[key]
    assert fmt.largest == largest
    assert fmt.step_near_one == step
    assert fmt.decode(fmt.one) == 1.0


def test_fp16_max_is_65504_and_bytes_are_4_2_2() -> None:
    assert FORMATS["fp16"].largest == 65504.0
    assert [f.element_bytes for f in FORMATS.values()] == [4, 2, 2]


@pytest.mark.parametrize("key", list(FORMATS))
def test_packed_split_matches_the_declared_layout(key: str) -> None:
    fmt = FORMATS[key]
    assert fmt.packed_split() == (fmt.exponent_bits, fmt.fraction_bits)


@pytest.mark.parametrize("key", list(FORMATS))
def test_the_pattern_past_max_is_infinity(key: str) -> None:
    fmt = FORMATS[key]
    assert math.isinf(fmt.decode(fmt.encode(fmt.largest) + 1))


@given(st.integers(min_value=0, max_value=0xFFFF))
def test_bf16_is_the_upper_half_of_binary32(pattern: int) -> None:
    value = FORMATS["bf16"].decode(pattern)
    if not math.isnan(value):
        assert FORMATS["bf16"].encode(value) == pattern


def test_decode_refuses_a_pattern_too_wide() -> None:
    with pytest.raises(ValueError, match="16-bit"):
        FORMATS["fp16"].decode(1 << 16)


def test_matches_torch_finfo_where_installed() -> None:
    torch = import_or_skip("torch", "gpu")
    for key, name in (("fp32", "float32"), ("fp16", "float16"), ("bf16", "bfloat16")):
        fi = torch.finfo(getattr(torch, name))
        assert (fi.max, fi.eps, fi.bits) == (FORMATS[key].largest, FORMATS[key].step_near_one,
                                             FORMATS[key].bits)


def test_the_probe_imports_no_torch() -> None:
    """The offline tier decides the format claims on a machine without torch."""
    assert "torch" not in modules_loaded("import claims.probes.arithmetic.tensors")


# ---- arithmetic ------------------------------------------------------------------
def test_bytes_and_flops() -> None:
    assert tensors.tensor_bytes((), 4) == 4
    assert tensors.tensor_bytes((1024, 1024), 4) == 4_194_304
    assert tensors.payload_bytes(4096, 4) == 192 * tensors.MIB
    assert tensors.matmul_flops(3) == 54
    assert tensors.gflops(1000, 2.0) == 1.0


# ---- the lab scripts, read -------------------------------------------------------
def test_reads_the_scripts() -> None:
    basics = (LAB / "tensor_basics.py").read_text("utf-8")
    bench = (LAB / "benchmark_matmul.py").read_text("utf-8")
    assert tensors.built_shapes(basics) == {"scalar": (), "vector": (3,), "matrix": (2, 3),
                                            "tensor3d": (2, 3, 4), "*": (1024, 1024)}
    values = tensors.literal_tensors(basics)
    assert values["b"] == [10.0, 20.0, 30.0] and values["matrix"] == [[1.0] * 3] * 2
    assert tensors.script_defaults(bench) == {"size": 4096, "iters": 20, "warmup": 5}
    assert [tensors.cpu_iterations(bench, n) for n in (4, 20, 40)] == [3, 5, 10]
    assert tensors.written_fields(bench, "row") == ["precision", "median_ms", "gflops",
                                                    "peak_mib"]


@pytest.mark.parametrize(("source", "problem"), [
    ("cpu_iters = (", "not Python"),
    ("x = 1", "assigns no 'cpu_iters'"),
    ("cpu_iters = int('5')", "does not evaluate"),
])
def test_script_reader_errors_name_the_file(source: str, problem: str) -> None:
    with pytest.raises(InputError, match=problem) as info:
        tensors.cpu_iterations(source, 20, where="bench.py")
    assert str(info.value).startswith("bench.py")


@pytest.mark.parametrize(("source", "problem"), [
    ("cpu_iters = max(3, args.iters // 0)", "does not evaluate"),
    ("cpu_iters = args.iters / 4", "not a whole number"),
    ("cpu_iters = max(3, iters // 4)", "does not evaluate"),  # a bare name is not args.iters
])
def test_cpu_iterations_refuses_what_is_not_a_count(source: str, problem: str) -> None:
    with pytest.raises(InputError, match=problem):
        tensors.cpu_iterations(source, 20, where="bench.py")


def test_the_scripts_own_gflops_and_cpu_warmup_are_read_from_its_source() -> None:
    source = ("def gflops(size, seconds):\n    return (2 * size ** 3) / seconds / 1e9\n"
              "cpu_s = time_matmul(a_cpu, b_cpu, cpu_iters, 1)\n")
    assert tensors.script_gflops(source, 4096, 0.5) == tensors.gflops(4096, 0.5)
    assert tensors.cpu_warmup(source) == 1
    for broken, problem in (("def gflops(size, seconds):\n    return size ** n\n",
                             "does not evaluate"),
                            ("def gflops(size, seconds):\n    x = 1\n    return x\n",
                             "no gflops\\(\\) that returns one expression"),
                            ("cpu_s = time_matmul(a, b, n, warmup)\n", "not a whole number")):
        with pytest.raises(InputError, match=problem):
            if "gflops" in broken:
                tensors.script_gflops(broken, 4096, 0.5)
            else:
                tensors.cpu_warmup(broken)


def test_parse_report_line() -> None:
    line = "tensor3d rank=3 shape=(2, 3, 4) dtype=float32 elem=4B total=96B dev=cpu"
    r = tensors.parse_report(line)
    assert r is not None and (r.rank, r.shape, r.total_bytes, r.device) == (3, (2, 3, 4), 96,
                                                                             "cpu")
    scalar = tensors.parse_report("scalar   rank=0 shape=() dtype=float32 elem=4B total=4B dev=cpu")
    assert scalar is not None and scalar.shape == ()
    assert tensors.parse_report("a + b = [11.0, 22.0, 33.0]") is None


# ---- results.json ------------------------------------------------------------------
def test_reads_the_bundled_results() -> None:
    run = tensors.read_results(LAB / "results.json")
    assert run.size == 4096 and run.row("bf16").median_ms == Decimal("1.576")
    assert run.dtype_bytes == {"float32": 4, "float16": 2, "bfloat16": 2}
    assert run.gpu_speedup_fp32 == Decimal("22.6")


def _results(tmp_path: Path, edit: Any) -> Path:
    data = json.loads((LAB / "results.json").read_text("utf-8"))
    edit(data)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


def _set(path: list[Any], value: Any) -> Any:
    def edit(data: Any) -> None:
        for key in path[:-1]:
            data = data[key]
        data[path[-1]] = value
    return edit


def _drop(path: list[Any]) -> Any:
    def edit(data: Any) -> None:
        for key in path[:-1]:
            data = data[key]
        del data[path[-1]]
    return edit


@pytest.mark.parametrize(("edit", "field", "says"), [
    (_set(["matmul", "precisions", 1, "median_ms"], "1.548"), "matmul.precisions[1].median_ms",
     "must be a number"),
    (_set(["matmul", "precisions", 0, "gflops"], True), "matmul.precisions[0].gflops",
     "must be a number"),
    (_set(["matmul", "precisions", 2, "peak_mib"], -1), "matmul.precisions[2].peak_mib",
     "must be positive"),
    (_drop(["matmul", "cpu_fp32_ms"]), "matmul.cpu_fp32_ms", "is missing"),
    (_set(["matmul", "size"], 4096.5), "matmul.size", "must be a whole number"),
    (_set(["matmul", "precisions"], []), "matmul.precisions", "must be a non-empty list"),
    (_set(["matmul"], [1, 2]), "matmul", "must be an object"),
    (_drop(["hardware", "torch"]), "hardware.torch", "is missing"),
    (_set(["dtype_bytes", "float16"], "2"), "dtype_bytes.float16", "must be a whole number"),
    (_set(["matmul", "gpu_speedup_fp32"], "fast"), "matmul.gpu_speedup_fp32", "must be a number"),
])
def test_bad_results_field_names_file_and_field(tmp_path: Path, edit: Any, field: str,
                                                says: str) -> None:
    path = _results(tmp_path, edit)
    with pytest.raises(InputError) as info:
        tensors.read_results(path)
    message = str(info.value)
    assert message.startswith(str(path)) and field in message and says in message, message


@pytest.mark.parametrize(("text", "says"), [
    ("{", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"matmul": {"size": NaN}}', "is missing"),
])
def test_unreadable_results_name_the_file(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(text, "utf-8")
    with pytest.raises(InputError, match=says) as info:
        tensors.read_results(path)
    assert str(path) in str(info.value)


def test_a_missing_row_is_named(tmp_path: Path) -> None:
    run = tensors.read_results(_results(tmp_path, lambda d: d["matmul"]["precisions"].pop()))
    with pytest.raises(InputError, match="no 'bf16' row"):
        run.row("bf16")


def test_hostile_text_is_escaped_in_the_message(tmp_path: Path) -> None:
    path = _results(tmp_path, _set(["matmul", "size"], "\x1b[31m" + "x" * 200))
    with pytest.raises(InputError) as info:
        tensors.read_results(path)
    assert "\x1b" not in str(info.value) and len(str(info.value)) < 400


# ---- model-run.yaml ----------------------------------------------------------------
def test_reads_the_bundled_model_run() -> None:
    record = tensors.read_model_run(LAB / "model-run.yaml")
    assert record["hardware.driver"] == "580.159.03"
    assert record["hardware.cuda"] == "13.0"
    assert record["results.gpu_bf16_median_ms"] == Decimal("1.576")
    assert record["workload.precisions"] == ["fp32", "fp16", "bf16"]
    assert record["notes"].startswith("No language model was loaded.")


def _model_run(tmp_path: Path, old: str, new: str) -> Path:
    text = (LAB / "model-run.yaml").read_text("utf-8")
    assert text.count(old) == 1
    path = tmp_path / "model-run.yaml"
    path.write_text(text.replace(old, new), "utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "says"), [
    ("  fp32_peak_mib: 224.0\n", "", "field results.fp32_peak_mib is missing"),
    ("gpu_fp32_median_ms: 7.44", "gpu_fp32_median_ms: fast", "results.gpu_fp32_median_ms must "
     "be a number"),
    ("  size: 4096", "  size: 4096.0", "workload.size must be a whole number"),
    ("  driver: 580.159.03", "  driver:", "hardware.driver must be a non-empty string"),
    ("precisions: [fp32, fp16, bf16]", "precisions: [fp32", "line 15: an unclosed flow list"),
    ("  cuda: \"13.0\"", "  cuda 13.0", "line 11: not a 'key: value' line"),
    ("  device: NVIDIA GB10", "  device: NVIDIA GB10\n  device: H100", "line 9: device given "
     "twice"),
])
def test_bad_model_run_names_file_and_field(tmp_path: Path, old: str, new: str,
                                            says: str) -> None:
    path = _model_run(tmp_path, old, new)
    with pytest.raises(InputError) as info:
        tensors.read_model_run(path)
    assert str(info.value).startswith(str(path)) and says in str(info.value), str(info.value)


def test_missing_model_run_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        tensors.read_model_run(tmp_path / "model-run.yaml")


# ---- the offline tier decides W5's byte, format and arithmetic claims without torch ----
TORCH_CLAIMS = {"W5-FINFO-MEANING", "W5-TENSOR-REPORTS", "W5-ELEMENTWISE-BROADCAST",
                "W5-TIMING-METHOD", "W5-FLOP-COUNT"}


# A package named torch first on the path: what its __init__ raises, and what the not-run
# claims then say. Absent, as the import system reports it; installed and broken, as a CUDA
# wheel on a machine missing one of its libraries (an OSError from ctypes, not an ImportError).
BLOCKED_TORCH = {
    "missing": ('raise ModuleNotFoundError("No module named \'torch\'", name="torch")\n',
                "torch is not installed"),
    "broken": ('raise OSError("libcudnn.so.9: cannot open shared object file '
               '(simulated by the test)")\n',
               "torch is installed but does not import: OSError: libcudnn.so.9"),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(BLOCKED_TORCH))
def test_week5_offline_claims_are_decided_without_torch(tmp_path: Path, kind: str) -> None:
    """A copy of the checkout where ``import torch`` fails (a package of that name first on
    the path: absent, or installed and raising on import): every offline W5 claim that
    needs no torch gets a verdict, and those that do are not run, saying why."""
    from tests.checkout import copy_checkout, run_pytest

    raises, reason = BLOCKED_TORCH[kind]
    repo = copy_checkout(tmp_path)
    (repo / "torch").mkdir()
    (repo / "torch" / "__init__.py").write_text(raises, "utf-8")
    proc = run_pytest(repo, "-m", "offline", "-n", "0", "tests/claims/w5/")
    evidence = repo / "reports" / "evidence.json"
    assert evidence.is_file(), proc.stdout[-3000:] + proc.stderr[-2000:]
    verdicts = {c["id"]: c for c in json.loads(evidence.read_text("utf-8"))["claims"]
                if c["id"].startswith("W5-")}
    offline = {cid for cid, c in verdicts.items() if "offline" in c.get("tiers", ["offline"])
               and c["verdict"] != "untestable"}
    decided = {cid for cid in offline if verdicts[cid]["verdict"] != "not-run"}
    assert decided == offline - TORCH_CLAIMS, proc.stdout[-3000:]
    for cid in TORCH_CLAIMS:
        assert verdicts[cid]["verdict"] == "not-run"
        assert reason in json.dumps(verdicts[cid]), verdicts[cid]
