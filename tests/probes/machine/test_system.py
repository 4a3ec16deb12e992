"""Tests of the machine probe (claims.probes.machine.system) on recorded and local output.

The recorded files are in fixtures/system/: the Week 1 post's own listings,
and full-length GB10 and H100 outputs. Where this machine has lscpu and free,
the parsers are also checked against the live tools.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claims.probes.errors import InputError
from claims.probes.machine import system

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "system"


def read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# --- lscpu ---------------------------------------------------------------------------
LSCPU_CLUSTERS = """Architecture:          aarch64
CPU(s):                8
Vendor ID:             ARM
  Model name:          Cortex-A78AE
    Thread(s) per core:  1
    Core(s) per cluster: 4
    Socket(s):           -
    Cluster(s):          2
"""
LSCPU_FLAT = """Architecture:        x86_64
CPU(s):              4
Thread(s) per core:  2
Core(s) per socket:  2
Socket(s):           1
Model name:          Intel(R) Core(TM) i5-1038NG7 CPU @ 2.00GHz
"""


@pytest.mark.parametrize("text, arch, cpus, models", [
    pytest.param(read("gb10/lscpu.txt"), "aarch64", 20,
                 [("Cortex-X925", 10), ("Cortex-A725", 10)], id="spark-two-core-types-of-ten"),
    # "(10 performance cores)" is the author's note, not lscpu output: no count is invented.
    pytest.param(read("w1-post/lscpu.txt"), "aarch64", 20,
                 [("Cortex-X925", None), ("Cortex-A725", None)], id="post-trimmed-no-counts"),
    # One CPU offline (vllm-project/vllm#5537's EPYC): CPU(s) still counts it, the
    # model's logical CPUs are the 255 online ones, whatever threads x cores x sockets say.
    pytest.param(read("h100/lscpu.txt"), "x86_64", 256,
                 [("AMD EPYC 7742 64-Core Processor", 255)],
                 id="two-socket-x86-one-cpu-offline"),
    pytest.param(LSCPU_CLUSTERS, "aarch64", 8, [("Cortex-A78AE", 8)],
                 id="clusters-instead-of-sockets"),
    pytest.param(LSCPU_FLAT, "x86_64", 4, [("Intel(R) Core(TM) i5-1038NG7 CPU @ 2.00GHz", 4)],
                 id="flat-listing-of-older-util-linux"),
])
def test_lscpu_core_types_and_counts(text, arch, cpus, models):
    info = system.parse_lscpu(text)
    assert (info.architecture, info.cpus) == (arch, cpus)
    assert info.models == tuple(system.CpuModel(name, count) for name, count in models)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("lscpu") is None, reason="lscpu is not installed here")
def test_local_lscpu_counts_add_up_to_this_machines_cpus():
    out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10,
                         env={**os.environ, "LC_ALL": "C"}, check=True).stdout
    info = system.parse_lscpu(out)
    # os.cpu_count() counts the CPUs online, as lscpu's On-line list does.
    assert (info.online if info.online is not None else info.cpus) == os.cpu_count()
    counts = [m.count for m in info.models]
    if counts and None not in counts:
        assert sum(c for c in counts if c is not None) == os.cpu_count()


# --- /proc/cpuinfo ----------------------------------------------------------------------
def test_cpuinfo_of_the_spark_names_arm_parts():
    names = system.parse_cpuinfo(read("gb10/cpuinfo.txt"))
    assert Counter(names) == {"Cortex-X925": 10, "Cortex-A725": 10}


def test_cpuinfo_x86_uses_model_name_and_unknown_arm_parts_stay_numbers():
    x86 = "processor\t: 0\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\n"
    assert system.parse_cpuinfo(x86) == ["AMD EPYC", "AMD EPYC"]
    arm = ("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd99\n\n"
           "processor\t: 1\nCPU implementer\t: 0x61\nCPU part\t: 0x022\n\n"
           "Hardware\t: some board\n")
    assert system.parse_cpuinfo(arm) == ["ARM part 0xd99 (implementer 0x41)",
                                         "ARM part 0x022 (implementer 0x61)"]


def test_cpu_inventory_of_this_machine_is_consistent():
    inv = system.cpu_inventory()
    assert inv.logical_cpus == os.cpu_count()
    assert inv.arch == os.uname().machine
    if inv.cpuinfo_counts:
        assert sum(inv.cpuinfo_counts.values()) == os.cpu_count()
    assert inv.to_json()["logical_cpus"] == os.cpu_count()


# --- memory -------------------------------------------------------------------------------
def test_meminfo_is_read_in_bytes():
    mem = system.parse_meminfo(read("gb10/meminfo.txt"))
    assert mem["MemTotal"] == 127_601_856 * 1024
    assert mem["MemTotal"] / 1024**3 == pytest.approx(121.69, abs=0.01)


@pytest.mark.parametrize("text, field", [
    ("MemFree: 10 kB\n", "MemTotal"),
    ("MemTotal: lots kB\n", "MemTotal"),
])
def test_bad_meminfo_names_the_field(text, field):
    with pytest.raises(InputError) as err:
        system.parse_meminfo(text, source="meminfo-fixture")
    assert err.value.field == field and "meminfo-fixture" in str(err.value)


def test_free_h_rounding_reproduces_the_posts_whole_line():
    """From one /proc/meminfo, every cell the post's `free -h` printed (procps-ng 4 rules)."""
    mem = {k: v // 1024 for k, v in system.parse_meminfo(read("gb10/meminfo.txt")).items()}
    cells = {
        "total": mem["MemTotal"],
        "used": mem["MemTotal"] - mem["MemAvailable"],
        "free": mem["MemFree"],
        "shared": mem["Shmem"],
        "buff/cache": mem["Buffers"] + mem["Cached"] + mem["SReclaimable"],
        "available": mem["MemAvailable"],
    }
    printed = system.parse_free(read("w1-post/free_h.txt"))
    assert {k: system.free_h_size(v) for k, v in cells.items()} == printed["Mem"]
    swap = {"total": mem["SwapTotal"], "used": mem["SwapTotal"] - mem["SwapFree"],
            "free": mem["SwapFree"]}
    assert {k: system.free_h_size(v) for k, v in swap.items()} == printed["Swap"]


@pytest.mark.parametrize("kib, shown", [
    (0, "0B"),
    (1, "1.0Ki"),
    (9, "9.0Ki"),
    (999, "999Ki"),
    (1023, "1.0Mi"),  # "1023Ki" is six characters: procps moves up a unit
    (1024, "1.0Mi"),
    (int(121.69 * 1024**2), "121Gi"),  # truncated, not rounded to 122
    (int(9.96 * 1024**2), "9Gi"),  # "10.0Gi" does not fit, so the integer form truncates
])
def test_free_h_size_examples(kib, shown):
    assert system.free_h_size(kib) == shown


# Up to 512 PiB: past 1000 PiB procps itself overflows its five-character column.
@given(st.integers(min_value=1, max_value=2**49))
def test_free_h_size_brackets_the_true_size(kib):
    text = system.free_h_size(kib)
    units = {"Ki": 1, "Mi": 1024, "Gi": 1024**2, "Ti": 1024**3, "Pi": 1024**4}
    number, unit = text[:-2], text[-2:]
    assert len(text) <= 5
    value = float(number)
    scale = units[unit]
    if "." in number:  # printf rounding to one decimal
        assert abs(kib / scale - value) <= 0.05 + 1e-9
    else:  # C truncation
        assert value * scale <= kib < (value + 1) * scale


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("free") is None, reason="free (procps) is not installed here")
def test_free_h_size_agrees_with_the_real_free():
    out = subprocess.run(["free", "-h"], capture_output=True, text=True, timeout=10,
                         env={**os.environ, "LC_ALL": "C"}, check=True).stdout
    rows = system.parse_free(out)
    mem = system.parse_meminfo(Path("/proc/meminfo").read_text(encoding="utf-8"))
    if rows["Mem"]["total"].endswith("i"):  # procps-ng 4 (3.3 prints "G" without the i)
        assert rows["Mem"]["total"] == system.free_h_size(mem["MemTotal"] // 1024)
        assert rows["Swap"]["total"] == system.free_h_size(mem["SwapTotal"] // 1024)


def test_free_without_a_mem_row_is_refused():
    with pytest.raises(InputError):
        system.parse_free("      total\nSwap: 1Gi\n")
    with pytest.raises(InputError):
        system.parse_free("")


# --- fingerprint ---------------------------------------------------------------------------
def test_fingerprint_has_the_schema_fields_and_never_imports_torch():
    import sys

    had_torch = "torch" in sys.modules
    fp = system.fingerprint()
    for key in ("os", "arch", "cpu", "memory_bytes", "python"):
        assert key in fp
    assert isinstance(fp["memory_bytes"], int) and fp["memory_bytes"] > 0
    assert fp["kernel"] == os.uname().release
    if not had_torch:
        assert "torch" not in sys.modules
    if shutil.which("nvidia-smi") is None:
        assert fp["gpu"] is None


@given(st.text(max_size=400))
def test_parsers_only_raise_input_errors_on_any_text(text):
    for parse in (system.parse_lscpu, system.parse_cpuinfo):
        parse(text)
    for parse in (system.parse_meminfo, system.parse_free):
        with contextlib.suppress(InputError):
            parse(text)


def test_a_hybrid_intel_cpu_counts_its_logical_cpus_not_threads_times_cores():
    # One section on a P-core/E-core CPU: 2 threads per core (the P-cores') x 24 cores = 48,
    # but the machine has 32 logical CPUs; the only model's count is CPU(s).
    text = read("intel-hybrid/lscpu.txt")
    info = system.parse_lscpu(text)
    assert info.cpus == 32
    assert [(m.name, m.count) for m in info.models] == [
        ("13th Gen Intel(R) Core(TM) i9-13900K", 32)]


def test_read_proc_is_the_one_door_to_proc(monkeypatch):
    monkeypatch.setattr(system, "read_proc", lambda name: "MemTotal: 1024 kB\n")
    assert system.memory_bytes() == 1024 * 1024


@pytest.mark.parametrize("text, count", [
    ("0-19", 20), ("0-254", 255), ("255", 1), ("0,2-3,8", 4), ("", None), ("0-x", None),
    ("5-1", None), ("²", None),
])
def test_cpu_lists_count_as_the_kernel_writes_them(text, count):
    assert system.count_cpu_list(text) == count


def test_lscpu_names_its_online_and_offline_cpus():
    info = system.parse_lscpu(read("h100/lscpu.txt"))
    assert (info.cpus, info.online, info.offline) == (256, 255, 1)
    spark = system.parse_lscpu(read("gb10/lscpu.txt"))
    assert (spark.cpus, spark.online, spark.offline) == (20, 20, 0)


def _cgroup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.setattr(system, "read_proc", lambda name: "0::/job\n")
    return tmp_path


@pytest.mark.parametrize("files, limit", [
    ({"job/cpu.max": "150000 100000\n"}, 1.5),
    ({"job/cpu.max": "max 100000\n"}, None),
    ({"cpu/cpu.cfs_quota_us": "200000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 2.0),
    ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    ({}, None),
])
def test_cgroup_cpu_quota_in_cpus(tmp_path, monkeypatch, files, limit):
    assert system.cgroup_cpu_limit(_cgroup(tmp_path, monkeypatch, files)) == limit


def test_usable_cpus_is_the_affinity_mask_capped_by_the_quota(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.setattr(system, "cgroup_cpu_limit", lambda root=None: 1.5)
    assert system.usable_cpus() == 2  # 1.5 CPUs of quota keep two threads busy
    monkeypatch.setattr(system, "cgroup_cpu_limit", lambda root=None: None)
    assert system.usable_cpus() == 64  # the mask, not os.cpu_count()


def _fake_free(tmp_path: Path, printed: str) -> str:
    """A PATH whose only ``free`` prints ``printed`` (a recorded free -h listing)."""
    (tmp_path / "free.txt").write_text(printed, encoding="utf-8")
    tool = tmp_path / "bin" / "free"
    tool.parent.mkdir()
    cat = shutil.which("cat")
    listing = shlex.quote(str(tmp_path / "free.txt"))  # a temp folder may hold spaces too
    tool.write_text(f"#!/bin/sh\nexec {shlex.quote(str(cat))} {listing}\n", encoding="utf-8")
    tool.chmod(0o755)
    return str(tool.parent)


def test_memory_pool_reads_meminfo_and_what_free_prints(tmp_path, monkeypatch):
    meminfo = "MemTotal:       127535224 kB\nMemAvailable:   119000000 kB\n"
    monkeypatch.setattr(system, "read_proc", lambda name: meminfo)
    monkeypatch.setenv("PATH", _fake_free(tmp_path, read("w1-post/free_h.txt")))
    pool = system.memory_pool()
    assert pool.total == 127535224 * 1024 and pool.available == 119000000 * 1024
    assert pool.implied == system.free_h_size(127535224)
    assert pool.printed == system.parse_free(read("w1-post/free_h.txt"))["Mem"]["total"]
    assert pool.transcript is not None and "free -h" in pool.transcript


def test_memory_pool_without_free_is_meminfo_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(system, "read_proc", lambda name: "MemTotal: 1024 kB\n")
    monkeypatch.setenv("PATH", str(tmp_path))
    pool = system.memory_pool()
    assert (pool.total, pool.available, pool.printed, pool.transcript) == (
        1024 * 1024, None, None, None)
    assert pool.implied == system.free_h_size(1024)


def test_memory_pool_names_free_output_it_cannot_read(tmp_path, monkeypatch):
    monkeypatch.setattr(system, "read_proc", lambda name: "MemTotal: 1024 kB\n")
    monkeypatch.setenv("PATH", _fake_free(tmp_path, "nothing like a table\n"))
    with pytest.raises(InputError, match="free -h"):
        system.memory_pool()
