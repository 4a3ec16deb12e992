"""Tests of the NVIDIA tool probe (claims.probes.machine.nvidia) on recorded output.

fixtures/system/gb10 holds what a DGX Spark's nvidia-smi prints (memory fields
"Not Supported" / "[N/A]" / "N/A"), fixtures/system/h100 a discrete GPU with
real memory figures, and fixtures/system/w1-post the post's own trimmed
listings. Running the tools is tested with stand-in executables: an nvcc
installed off PATH, and the recorded nvidia-smi of
:mod:`claims.testing.fake_nvidia_smi`.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claims.probes.errors import InputError, PrerequisiteMissing
from claims.probes.machine import nvidia
from claims.probes.machine.system import GPU_QUERY_FIELDS
from claims.testing import fake_nvidia_smi

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "system"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# --- header ---------------------------------------------------------------------------
@pytest.mark.parametrize("name, driver, cuda", [
    ("w1-post/nvidia_smi.txt", "580.159.03", "13.0"),
    ("gb10/nvidia_smi.txt", "580.159.03", "13.0"),
    ("h100/nvidia_smi.txt", "570.124.06", "12.8"),
    ("gb10-580.95/nvidia_smi.txt", "580.95.05", "13.0"),
    ("h200-570/nvidia_smi.txt", "570.124.06", "12.8"),
    ("h200-580/nvidia_smi.txt", "580.65.06", "13.0"),
    ("a100-mig/nvidia_smi.txt", "535.161.08", "12.2"),
    ("h200-610/nvidia_smi.txt", "610.43.02", "13.3"),  # R610: KMD / CUDA UMD Version
    ("rtx5090-595/nvidia_smi.txt", "595.71.05", "13.2"),
    ("p4-550/nvidia_smi.txt", "550.135", "12.4"),  # a two-part driver version
    ("v100-525/nvidia_smi.txt", "525.105.17", "12.0"),  # the layout before R535
])
def test_header_gives_driver_and_cuda_ceiling(name, driver, cuda):
    header = nvidia.parse_smi_header(read(name))
    assert (header.driver_version, header.cuda_version) == (driver, cuda)
    assert header.smi_version == driver


def test_header_without_libcuda_has_no_cuda_version():
    line = "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: N/A |"
    assert nvidia.parse_smi_header(line).cuda_version is None


def test_missing_header_is_an_input_error_naming_the_source_and_first_line():
    with pytest.raises(nvidia.SmiFormatError,
                       match=r"my-source.*could not read nvidia-smi.*'No devices were found'"):
        nvidia.parse_smi_header("\nNo devices were found\n", source="my-source")


def test_r610_header_names_its_new_labels():
    header = nvidia.parse_smi_header(read("h200-610/nvidia_smi.txt"))
    assert header.labels == "KMD Version / CUDA UMD Version"
    assert header.cuda_missing_reason is None


def test_wsl2_err_cuda_version_is_not_reported_and_says_why():
    header = nvidia.parse_smi_header(read("wsl2-rtx3060/nvidia_smi.txt"))
    assert (header.driver_version, header.cuda_version, header.cuda_printed) == (
        "546.80", None, "ERR!")
    assert "CUDA Version: ERR!" in (header.cuda_missing_reason or "")
    assert "WSL2" in (header.cuda_missing_reason or "")


def test_r610_q_report_reads_both_names_without_the_deprecation_notice():
    report = nvidia.parse_smi_q(read("h200-610/nvidia_smi_q.txt"))
    assert (report.driver_version, report.cuda_version) == ("610.43.02", "13.3")
    assert report.top["Driver Version"] == "610.43.02"  # "[Deprecated; ...]" stripped
    # The new names alone (CUDA 14 drops the old ones) are enough.
    only_new = "KMD Version : 620.1.2\nCUDA UMD Version : 14.0\n"
    assert (nvidia.parse_smi_q(only_new).driver_version,
            nvidia.parse_smi_q(only_new).cuda_version) == ("620.1.2", "14.0")


def test_wsl2_q_report_has_no_cuda_version():
    assert nvidia.parse_smi_q(read("wsl2-rtx3060/nvidia_smi_q.txt")).cuda_version is None


# --- NVML state ------------------------------------------------------------------------
@pytest.mark.parametrize("machine, state, words", [
    ("nvml-mismatch", "mismatch", "reboot, or reload the kernel module"),
    ("no-devices", "no-devices", "lspci"),
])
def test_nvml_failures_are_named_with_their_remedy(machine, state, words):
    text = read(f"{machine}/nvidia_smi.txt")
    status = int(read(f"{machine}/nvidia_smi_exit_status.txt"))
    found = nvidia.classify_smi_output(text, status)
    assert found is not None and found.state == state and not found.ok
    assert words in found.reason


def test_a_working_query_is_no_failure_and_an_unknown_one_names_its_first_line():
    assert nvidia.classify_smi_output("0, NVIDIA H200, 610.43.02, 9.0\n", 0) is None
    failed = nvidia.classify_smi_output("\nSomething new went wrong\nmore\n", 255)
    assert failed is not None and failed.state == "failed"
    assert "status 255: Something new went wrong" in failed.message


def test_nvml_state_without_nvidia_smi_says_it_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    state = nvidia.nvml_state()
    assert state.state == "smi-missing" and "nvidia-smi missing" in state.reason


def _fake_smi(tmp_path, body: str) -> None:
    exe = tmp_path / "nvidia-smi"
    exe.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    exe.chmod(0o755)


def test_nvml_state_reads_each_gpus_capability(monkeypatch, tmp_path):
    _fake_smi(tmp_path, "echo '0, NVIDIA GB10, 580.95.05, 12.1'\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    state = nvidia.nvml_state()
    assert state.ok and state.rows[0]["compute_cap"] == "12.1"


def test_nvml_state_asks_an_old_driver_again_without_compute_cap(monkeypatch, tmp_path):
    _fake_smi(tmp_path, 'case "$1" in *compute_cap*) echo \'Field "compute_cap" is not a valid '
              'field to query.\'; exit 2;; esac\necho \'0, Tesla T4, 470.82.01\'\n')
    monkeypatch.setenv("PATH", str(tmp_path))
    state = nvidia.nvml_state()
    assert state.ok and "compute_cap" not in state.rows[0]


def test_nvml_state_of_a_mismatch(monkeypatch, tmp_path):
    _fake_smi(tmp_path, "echo 'Failed to initialize NVML: Driver/library version mismatch'\n"
              "echo 'NVML library version: 535.161'\nexit 18\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert nvidia.nvml_state().state == "mismatch"


# --- table ------------------------------------------------------------------------------------
T4_TWO_LINE_TABLE = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |
| N/A   34C    P8     9W /  70W |      0MiB / 15109MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""


@pytest.mark.parametrize("text, gpus, reported", [
    pytest.param(read("gb10/nvidia_smi.txt"), [(0, "NVIDIA GB10", "Not Supported")], False,
                 id="gb10-memory-usage-not-supported"),
    pytest.param(read("h100/nvidia_smi.txt"), [(0, "NVIDIA H100 80GB HBM3", "1MiB /  81559MiB"),
                                               (1, "NVIDIA H100 80GB HBM3", "1MiB /  81559MiB")],
                 True, id="h100-two-gpus-with-memory"),
    pytest.param(T4_TWO_LINE_TABLE, [(0, "Tesla T4", "0MiB / 15109MiB")], True,
                 id="older-two-line-layout"),
    # R535 prints the MIG table straight after the GPU table, no blank line between.
    pytest.param(read("a100-mig/nvidia_smi.txt"),
                 [(0, "NVIDIA A100-SXM4-80GB", "87MiB / 81920MiB")], True,
                 id="mig-table-without-a-blank-line"),
    pytest.param(read("h200-570/nvidia_smi.txt"),
                 [(0, "NVIDIA H200", "1MiB / 143771MiB"), (1, "NVIDIA H200", "1MiB / 143771MiB")],
                 True, id="h200-r570"),
    pytest.param(read("h200-610/nvidia_smi.txt"), [(0, "NVIDIA H200", "0MiB / 143771MiB")],
                 True, id="h200-r610"),
    pytest.param(read("wsl2-rtx3060/nvidia_smi.txt"),
                 [(0, "NVIDIA GeForce RTX 3060 ...", "816MiB /  6144MiB")], True, id="wsl2"),
    pytest.param(read("rtx5090-595/nvidia_smi.txt"),
                 [(0, "NVIDIA GeForce RTX 5090", "492MiB /  32607MiB")], True, id="rtx5090-r595"),
    pytest.param(read("p4-550/nvidia_smi.txt"), [(0, "Tesla P4", "7719MiB /   8192MiB")], True,
                 id="tesla-p4-r550"),
    pytest.param(read("v100-525/nvidia_smi.txt"),
                 [(0, "Tesla V100-SXM2...", "308MiB / 32768MiB")], True, id="v100-r525"),
])
def test_table_lists_each_gpu_with_its_memory_usage(text, gpus, reported):
    rows = nvidia.parse_smi_table(text)
    assert [(r.index, r.name, r.memory_usage) for r in rows] == gpus
    assert all(r.memory_reported is reported for r in rows)


@pytest.mark.parametrize("text", ["", "no table here\n", "|====|\n|   x  y | z |\n+---+\n"])
def test_malformed_tables_are_input_errors(text):
    with pytest.raises(nvidia.SmiFormatError):
        nvidia.parse_smi_table(text)


# --- CSV query -----------------------------------------------------------------------------------
def test_gb10_query_reports_no_memory_figures():
    (row,) = nvidia.parse_smi_query_csv(read("gb10/query_gpu.csv"), GPU_QUERY_FIELDS)
    assert row["name"] == "NVIDIA GB10" and row["compute_cap"] == "12.1"
    assert [nvidia.is_reported(row[f]) for f in ("memory.total", "memory.used", "memory.free")] == \
        [False, False, False]


def test_h100_query_reports_memory_in_mib():
    rows = nvidia.parse_smi_query_csv(read("h100/query_gpu.csv"), GPU_QUERY_FIELDS)
    assert [r["memory.total"] for r in rows] == ["81559", "81559"]
    assert all(nvidia.is_reported(r["memory.total"]) for r in rows)


def test_query_row_with_wrong_field_count_names_the_line():
    with pytest.raises(nvidia.SmiFormatError) as err:
        nvidia.parse_smi_query_csv("0, A\n0, B, extra\n", ["index", "name"])
    assert err.value.field == "line 2"


@pytest.mark.parametrize("value, reported", [
    ("[N/A]", False), ("N/A", False), ("Not Supported", False), ("[Not Supported]", False),
    ("ERR!", False), ("[ERR!]", False), ("", False), (None, False), ("81559", True), ("0", True),
])
def test_is_reported(value, reported):
    assert nvidia.is_reported(value) is reported


# --- nvidia-smi -q --------------------------------------------------------------------------------
def test_gb10_q_report_has_no_framebuffer_figures():
    report = nvidia.parse_smi_q(read("gb10/nvidia_smi_q.txt"))
    assert (report.driver_version, report.cuda_version) == ("580.159.03", "13.0")
    (bus,) = report.gpus
    assert bus == "0000000F:01:00.0"
    assert report.gpu_field(bus, "Product Name") == "NVIDIA GB10"
    assert report.gpu_field(bus, "FB Memory Usage", "Total") == "N/A"
    assert report.gpu_field(bus, "Addressing Mode") == "ATS"
    processes = report.gpu_field(bus, "Processes")
    assert processes["Process ID"] == "2871" and processes["Process ID #2"] == "3104"
    assert report.gpu_field(bus, "No Such", "Thing") is None


def test_h100_q_report_has_framebuffer_figures_per_gpu():
    report = nvidia.parse_smi_q(read("h100/nvidia_smi_q.txt"))
    assert report.cuda_version == "12.8"
    assert list(report.gpus) == ["00000000:18:00.0", "00000000:2A:00.0"]
    for bus in report.gpus:
        assert report.gpu_field(bus, "FB Memory Usage", "Total") == "81559 MiB"
        assert report.gpu_field(bus, "FB Memory Usage", "Reserved") == "551 MiB"


def test_q_report_faults():
    with pytest.raises(nvidia.SmiFormatError, match=r"Driver Version.*'nothing useful'"):
        nvidia.parse_smi_q("nothing useful\n")
    with pytest.raises(nvidia.SmiFormatError, match="tab"):
        nvidia.parse_smi_q("Driver Version : 1\n\tProduct Name : X\n")


# --- nvcc ----------------------------------------------------------------------
NVCC_BANNER = ("nvcc: NVIDIA (R) Cuda compiler driver\n"
               "Copyright (c) 2005-2024 NVIDIA Corporation\n"
               "Built on Thu_Jun__6_02:18:23_PDT_2024\n"
               "Cuda compilation tools, release 12.5, V12.5.82\n"
               "Build cuda_12.5.r12.5/compiler.0\n")


@pytest.mark.parametrize("text, release, build", [
    pytest.param(read("w1-post/nvcc_version.txt"), "13.0", "13.0.88", id="the-post"),
    pytest.param(NVCC_BANNER, "12.5", "12.5.82", id="full-banner"),
])
def test_nvcc_version(text, release, build):
    assert nvidia.parse_nvcc_version(text) == nvidia.NvccVersion(release, build)


def test_nvcc_version_refuses_garbage():
    with pytest.raises(nvidia.SmiFormatError):
        nvidia.parse_nvcc_version("bash: nvcc: command not found\n")


@pytest.mark.parametrize("text, parts", [
    ("13.0", (13, 0)), ("580.159.03", (580, 159, 3)), ("cu130", (13, 0)), ("cu128", (12, 8)),
    ("cu92", (9, 2)),
])
def test_version_tuple(text, parts):
    assert nvidia.version_tuple(text) == parts


@pytest.mark.parametrize("text", ["", "cpu", "13.x", "v13.0", "cu1"])
def test_version_tuple_refuses_non_versions(text):
    with pytest.raises(ValueError):
        nvidia.version_tuple(text)


def _script(path: Path, body: str) -> Path:
    """An executable running ``body`` with this interpreter. Not a ``#!`` line naming it:
    the kernel splits that line at a space, so a checkout under "proj dir" would break it."""
    code = path.with_name(path.name + ".py")
    code.write_text(body, encoding="utf-8")
    path.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(code))} "
                    '"$@"\n', encoding="utf-8")
    path.chmod(0o755)
    return path


def test_find_nvcc_off_path_but_installed(tmp_path):
    cuda = tmp_path / "cuda-13.0" / "bin"
    cuda.mkdir(parents=True)
    _script(cuda / "nvcc", "print('Cuda compilation tools, release 13.0, V13.0.88')\n")
    (tmp_path / "cuda").symlink_to(tmp_path / "cuda-13.0")
    (tmp_path / "cuda-notes.txt").write_text("not a directory", encoding="utf-8")
    found = nvidia.find_nvcc(path_env=str(tmp_path / "empty"), pattern=str(tmp_path / "cuda*"))
    assert found.on_path is None
    assert found.cuda_dirs == (str(tmp_path / "cuda"), str(tmp_path / "cuda-13.0"))
    assert found.installed == (str(tmp_path / "cuda" / "bin" / "nvcc"),
                               str(tmp_path / "cuda-13.0" / "bin" / "nvcc"))
    version, run = nvidia.nvcc_version(found.any or "")
    assert version.build == "13.0.88" and run.transcript().startswith("$ ")


@pytest.mark.skipif(shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"),
                    reason="no CUDA toolkit on this machine")
def test_real_nvcc_parses():
    exe = nvidia.find_nvcc().any
    assert exe is not None
    version, _ = nvidia.nvcc_version(exe)
    assert nvidia.version_tuple(version.release) == nvidia.version_tuple(version.build)[:2]


# --- running nvidia-smi ------------------------------------------------------
def test_nvidia_smi_absent_from_path(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PrerequisiteMissing, match="nvidia-smi is not on PATH"):
        nvidia.nvidia_smi_text()


def test_runners_parse_a_stand_in_nvidia_smi(monkeypatch, tmp_path):
    bin_dir = tmp_path / "bin"
    fake_nvidia_smi.install(bin_dir)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("CLAIMS_FAKE_SMI", "h100")
    rows, run = nvidia.nvidia_smi_rows_and_run(["name", "memory.total"])
    assert rows == [{"name": "NVIDIA H100 80GB HBM3", "memory.total": "81559"}] * 2
    assert "--query-gpu=name,memory.total" in run.transcript()
    report, _ = nvidia.nvidia_smi_q()
    assert report.driver_version == "570.124.06"
    assert nvidia.parse_smi_header(nvidia.nvidia_smi_text().stdout).cuda_version == "12.8"


@given(st.text(max_size=300))
def test_parsers_raise_only_input_errors(text):
    for parse in (nvidia.parse_smi_header, nvidia.parse_smi_table, nvidia.parse_smi_q,
                  nvidia.parse_nvcc_version):
        with contextlib.suppress(InputError):
            parse(text)
    with contextlib.suppress(InputError):
        nvidia.parse_smi_query_csv(text, ["a", "b"])


def test_oversized_output_is_refused():
    with pytest.raises(nvidia.SmiFormatError, match="limit"):
        nvidia.parse_smi_header("x" * (nvidia.MAX_OUTPUT_CHARS + 1))


# --- which nvidia-smi row is torch's device ---------------------------------------------------
def _h100_rows():
    return nvidia.parse_smi_query_csv(read("h100/query_gpu.csv"), GPU_QUERY_FIELDS)


def test_torchs_device_is_matched_by_uuid_first():
    row, how = nvidia.match_smi_row(_h100_rows(), index=0,
                                    uuid="GPU-22222222-2222-2222-2222-222222222222")
    assert row["index"] == "1" and how.startswith("by UUID")


def test_a_mig_slice_is_matched_by_its_parents_bus_id_whatever_the_domain_width():
    row, how = nvidia.match_smi_row(_h100_rows(), index=0,
                                    uuid="MIG-33333333-3333-3333-3333-333333333333",
                                    pci_bus_id="0000:2a:00.0")
    assert row["index"] == "1" and how.startswith("by PCI bus id")


def test_without_identity_cuda_visible_devices_names_the_row():
    rows = _h100_rows()
    row, how = nvidia.match_smi_row(rows, index=0, visible="1")
    assert row["index"] == "1" and "CUDA_VISIBLE_DEVICES=1" in how
    row, _ = nvidia.match_smi_row(rows, index=1, visible="GPU-1111,GPU-22222222-2222-2222-2222-"
                                                         "222222222222")
    assert row["index"] == "1"


def test_no_match_among_several_gpus_says_why_and_one_gpu_is_its_own_match():
    rows = _h100_rows()
    row, how = nvidia.match_smi_row(rows, index=0)
    assert row is None and "2 GPUs" in how
    row, how = nvidia.match_smi_row(rows[:1], index=0)
    assert row is rows[0] and "only GPU" in how
    row, _ = nvidia.match_smi_row(rows, index=0, uuid="GPU-99999999", pci_bus_id="[N/A]")
    assert row is None


def test_the_mig_fixtures_agree_with_each_other():
    (row,) = nvidia.parse_smi_query_csv(read("a100-mig/query_gpu.csv"), GPU_QUERY_FIELDS)
    assert row["mig.mode.current"] == "Enabled"
    (gpu,) = nvidia.parse_smi_table(read("a100-mig/nvidia_smi.txt"))
    assert gpu.memory_usage == "87MiB / 81920MiB"
    report = nvidia.parse_smi_q(read("a100-mig/nvidia_smi_q.txt"))
    assert report.gpu_field(row["pci.bus_id"], "MIG Mode", "Current") == "Enabled"
    assert report.gpu_field(row["pci.bus_id"], "MIG devices", "Device 0", "FB Memory Usage",
                            "Total") == "40192 MiB"
