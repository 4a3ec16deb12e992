"""Week 1 claims measured live on an NVIDIA machine (the gpu tier).

Run on the machine to certify, without xdist so pytest-benchmark can time:

    pytest -m gpu -p no:xdist [--profile dgx-spark] [--require-live]

Each test measures the claim's general form on any NVIDIA machine and compares
the figures Week 1 recorded for its DGX Spark only under the dgx-spark
profile (elsewhere those figures are "not applicable"). Versions (driver,
CUDA, nvcc, torch) are set beside the post's and reported when they differ,
never failed: they change with every update. Without a GPU the tier is "not
run" with the reason (a failure under --require-live).
"""

from __future__ import annotations

import os
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from claims.check import Check
from claims.plugin.outcomes import not_applicable, not_run

pytestmark = pytest.mark.gpu

# ELF e_machine values (System V ABI): what the torch extension module was built for.
ELF_MACHINES = {62: "x86_64", 183: "aarch64", 40: "arm", 3: "i386", 21: "ppc64", 243: "riscv64"}
UNIFIED_POOL_SHARE = 0.05  # an integrated GPU's pool may differ from MemTotal by carve-outs
DISCRETE_RESERVED_SHARE = 0.05  # the driver reserves a little of a discrete GPU's memory
# The bars for the two vague Week 1 claims, the same in the recorded and gpu tiers.
# "Much faster" (W1-TF32-FASTER): TF32 runs float32 products on tensor cores, which
# NVIDIA rates at several times the FP32 peak on every TF32-capable GPU; 1.5x is far
# above run-to-run noise (a few percent) yet below any such GPU's nominal gain, so it
# fails only when TF32 did not take effect. The post's Spark shows 2.24x.
TF32_MUCH_FASTER = 1.5
# "Far slower" (W1-COLD-KERNEL): the first call loads kernels and creates the cuBLAS
# handle, tens to hundreds of ms, against a few ms warm; 5x (half an order of
# magnitude) is more than a warm call slowed by a busy neighbour, and the post's
# Spark shows 17.7x.
COLD_FAR_SLOWER = 5.0


def _elf_machine(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            head = fh.read(20)
    except OSError:
        return None
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    code = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    return ELF_MACHINES.get(code, f"e_machine {code}")


def _torch_extension() -> Path | None:
    import torch

    pattern = "_C*.so"
    found = sorted(Path(torch.__file__).parent.glob(pattern))
    return found[0] if found else None


def _wheel_tags(dist: str) -> list[str]:
    try:
        text = metadata.distribution(dist).read_text("WHEEL") or ""
    except metadata.PackageNotFoundError:
        return []
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


@pytest.mark.claim("W1-ARCH")
def test_architecture_and_torch_build_match(check):
    from claims.probes.system import machine_arch
    from claims.probes.tools import run_tool

    arch = machine_arch()
    check.fact("machine.arch", arch)
    check.attach("uname -a", run_tool(["uname", "-a"], timeout=5.0).transcript())
    check.against("Spark architecture", arch)
    ext = _torch_extension()
    built_for = _elf_machine(ext) if ext else None
    check.observe("torch extension module", str(ext) if ext else None)
    check.measure("torch's compiled code targets this architecture", built_for,
                  holds=built_for == arch, expected=f"{arch} (uname -m)",
                  note="the ELF machine field of torch's extension module")
    tags = _wheel_tags("torch")
    if tags:
        check.measure("torch wheel tag names this architecture", tags,
                      holds=any(t.endswith(arch) or f"_{arch}" in t for t in tags),
                      expected=f"a tag for {arch}")
    else:
        check.note("torch was not installed from a wheel (no WHEEL metadata); the ELF check stands")


@pytest.mark.claim("W1-CPU")
def test_cpu_cores_by_type(check):
    from claims.probes.system import cpu_inventory

    inv = cpu_inventory()
    if inv.lscpu_text:
        check.attach("lscpu", inv.lscpu_text)
    check.attach("CPU inventory", inv.to_json(), kind="json")
    check.fact("cpu.models", {m.name: m.count for m in inv.models})
    by_model = inv.by_model
    check.against("logical CPUs", inv.logical_cpus)
    check.against("core types", [m.name for m in inv.models], unordered=True)
    check.against("Cortex-X925 cores", by_model.get("Cortex-X925") or 0)
    check.against("Cortex-A725 cores", by_model.get("Cortex-A725") or 0)
    counts = [m.count for m in inv.models]
    if not counts or any(c is None for c in counts):
        not_run(f"no per-type core counts from lscpu or /proc/cpuinfo ({'; '.join(inv.problems)})")
    total = sum(c for c in counts if c is not None)
    check.measure("cores counted per type add up to the logical CPUs", total,
                  holds=total == inv.logical_cpus, expected=f"{inv.logical_cpus} (os.cpu_count)")
    if inv.lscpu is not None and inv.lscpu.cpus is not None:
        check.measure("lscpu's CPU(s) equals the logical CPUs", inv.lscpu.cpus,
                      holds=inv.lscpu.cpus == inv.logical_cpus, expected=str(inv.logical_cpus))


@pytest.mark.claim("W1-UNIFIED-MEM")
def test_memory_pool(check, smi):
    import shutil

    from claims.probes.nvidia import is_reported
    from claims.probes.system import free_h_size, memory_bytes, parse_free
    from claims.probes.tools import run_tool
    from claims.probes.torch_cuda import device_facts

    total = memory_bytes()
    check.observe("MemTotal", total, unit="bytes")
    shown = free_h_size(total // 1024)
    if shutil.which("free"):
        run = run_tool(["free", "-h"], timeout=5.0, env={**os.environ, "LC_ALL": "C"})
        check.attach("free -h", run.transcript())
        printed = parse_free(run.stdout)["Mem"]["total"]
        check.measure("free -h prints what MemTotal implies", printed, holds=printed == shown,
                      expected=shown, note="cross-check of the probe's free -h rounding")
        shown = printed
    check.against("free -h total", shown)
    dev = device_facts(0)
    check.fact("gpu.total_memory_bytes", dev.total_memory)
    row = smi.query[0] if smi.query else {}
    reported = is_reported(row.get("memory.total"))
    integrated = dev.is_integrated if dev.is_integrated is not None else not reported
    check.observe("integrated GPU", integrated,
                  note="torch's is_integrated" if dev.is_integrated is not None
                  else "inferred from nvidia-smi reporting no memory.total")
    check.observe("device memory (torch)", dev.total_memory, unit="bytes")
    if integrated:
        share = abs(dev.total_memory - total) / total
        check.measure("the GPU's memory is the system's pool", round(share, 4),
                      holds=share <= UNIFIED_POOL_SHARE,
                      expected=f"device total within {UNIFIED_POOL_SHARE:.0%} of MemTotal",
                      note=f"device {dev.total_memory:,} B vs MemTotal {total:,} B")
    else:
        if not reported:
            check.measure("nvidia-smi reports the discrete GPU's memory", row.get("memory.total"),
                          holds=False, expected="a memory.total in MiB")
            return
        smi_bytes = int(float(row["memory.total"]) * 1024**2)
        check.observe("memory.total (nvidia-smi)", smi_bytes, unit="bytes")
        share = (smi_bytes - dev.total_memory) / smi_bytes
        check.measure("the GPU has its own pool, the size nvidia-smi reports", round(share, 4),
                      holds=0 <= share <= DISCRETE_RESERVED_SHARE,
                      expected=f"device total at most nvidia-smi's and within "
                               f"{DISCRETE_RESERVED_SHARE:.0%} below it")


@pytest.mark.claim("W1-SMI-FIELDS")
def test_smi_fields(check, smi, observe_version):
    for label, text in smi.transcripts.items():
        check.attach(label, text)
    header, report, rows = smi.header, smi.report, smi.query
    check.fact("nvidia.driver", header.driver_version)
    check.fact("nvidia.cuda_ceiling", header.cuda_version)
    check.against("GPU name", rows[0]["name"] if rows else None)
    observe_version(check, "driver version", header.driver_version)
    observe_version(check, "CUDA version", header.cuda_version)
    check.measure("the header names a CUDA version", header.cuda_version,
                  holds=header.cuda_version is not None, expected="a version such as 13.0")
    drivers = {header.driver_version, report.driver_version, *(r["driver_version"] for r in rows)}
    check.measure("header, -q and query agree on the driver", sorted(d or "none" for d in drivers),
                  holds=len(drivers) == 1, expected=header.driver_version)
    check.measure("header and -q agree on the CUDA version", report.cuda_version,
                  holds=report.cuda_version == header.cuda_version, expected=header.cuda_version)
    q_names = sorted(g.get("Product Name") or "" for g in report.gpus.values())
    table_names = sorted(r.name for r in smi.table)
    query_names = sorted(r["name"] for r in rows)
    # The table's name column is narrow: a long name is cut and ends in "...".
    same = len(table_names) == len(query_names) and all(
        t == q or (t.endswith("...") and q.startswith(t[:-3].rstrip()))
        for t, q in zip(table_names, query_names, strict=True))
    check.measure("table, -q and query name the same GPUs", query_names,
                  holds=same and q_names == query_names, expected=", ".join(table_names))


@pytest.mark.claim("W1-SMI-NOT-SUPPORTED")
def test_smi_memory_blank_means_unified(check, smi):
    from claims.probes.nvidia import is_reported
    from claims.probes.torch_cuda import device_facts

    check.attach("nvidia-smi", smi.transcripts["nvidia-smi"])
    gpu0 = smi.table[0]
    check.against("Memory-Usage", gpu0.memory_usage)
    row = smi.query[0]
    bus = next(iter(smi.report.gpus), None)
    fb_total = smi.report.gpu_field(bus, "FB Memory Usage", "Total") if bus else None
    check.observe("memory.total (--query-gpu)", row.get("memory.total"))
    check.observe("FB Memory Usage Total (-q)", fb_total)
    blank = not gpu0.memory_reported and not is_reported(row.get("memory.total"))
    dev = device_facts(0)
    if dev.is_integrated is None:
        not_run("this torch does not say whether the GPU is integrated (is_integrated)")
    check.observe("integrated GPU (torch)", dev.is_integrated)
    check.measure("memory fields are blank exactly when the GPU is integrated", blank,
                  holds=blank == dev.is_integrated,
                  expected=f"{dev.is_integrated} (is_integrated)",
                  note=f"table: {gpu0.memory_usage!r}, query: {row.get('memory.total')!r}")


@pytest.mark.claim("W1-CUDA-CEILING")
def test_torch_cuda_build_within_driver_ceiling(check, smi, observe_version):
    from claims.probes.nvidia import version_tuple
    from claims.probes.torch_cuda import cuda_driver_version, tensor_device, torch_build

    build = torch_build()
    ceiling = smi.header.cuda_version
    check.fact("torch.cuda", build.cuda)
    observe_version(check, "driver CUDA ceiling", ceiling)
    observe_version(check, "torch CUDA build", build.cuda)
    if ceiling is None or build.cuda is None:
        not_run(f"nothing to compare: nvidia-smi's CUDA version is {ceiling}, "
                f"torch's is {build.cuda}")
    check.measure("torch's CUDA build is at or below the driver's ceiling", build.cuda,
                  holds=version_tuple(build.cuda)[:2] <= version_tuple(ceiling)[:2],
                  expected=f"<= {ceiling}")
    from_driver = cuda_driver_version()
    if from_driver is not None:
        check.measure("the header's CUDA version is the driver's own (cuDriverGetVersion)",
                      from_driver,
                      holds=version_tuple(from_driver)[:2] == version_tuple(ceiling)[:2],
                      expected=ceiling)
    else:
        check.note("libcuda could not be asked for its version (cuDriverGetVersion)")
    device = tensor_device()
    check.measure("a tensor lands on the GPU under this pairing", device,
                  holds=device.startswith("cuda"), expected="cuda:0")


@pytest.mark.claim("W1-NVCC")
def test_nvcc_installed_off_path(check, smi, machine_profile, observe_version):
    from claims.probes.nvidia import find_nvcc, nvcc_version, version_tuple

    found = find_nvcc()
    check.observe("nvcc on PATH", found.on_path)
    check.observe("nvcc under /usr/local/cuda*/bin", list(found.installed))
    observe_version(check, "CUDA directories", list(found.cuda_dirs))
    exe = found.any
    if exe is None:
        if machine_profile == "dgx-spark":
            check.against("nvcc location", "(none)")
            return
        not_applicable("no CUDA toolkit here (no nvcc on PATH or under /usr/local/cuda*/bin); "
                       "the claim concerns an installed toolkit")
    default = "/usr/local/cuda/bin/nvcc"
    check.against("nvcc location", default if default in found.installed else exe)
    version, run = nvcc_version(exe)
    check.attach(f"{exe} --version", run.transcript())
    observe_version(check, "nvcc release", version.release)
    observe_version(check, "nvcc build", f"V{version.build}")
    check.fact("cuda.nvcc", version.build)
    ceiling = smi.header.cuda_version
    if ceiling is None:
        not_run("nvidia-smi printed no CUDA version to compare the toolkit with")
    check.measure("the toolkit's release does not exceed the driver's ceiling", version.release,
                  holds=version_tuple(version.release) <= version_tuple(ceiling)[:2],
                  expected=f"<= {ceiling}")


@pytest.mark.claim("W1-TORCH-OWN-RUNTIME")
def test_torch_brings_its_own_cuda_runtime(check, observe_version):
    from claims.probes.torch_cuda import runtime_without_toolkit, torch_cuda_requirements

    requirements = torch_cuda_requirements()
    check.observe("torch's nvidia-* requirements", requirements)
    names = sorted({re.split(r"[=<>~!;\[ ]", r, maxsplit=1)[0] for r in requirements})
    observe_version(check, "runtime wheels", names)
    if not requirements:
        # A container or conda build links the system's or the environment's CUDA by
        # design; the claim is about PyPI's CUDA wheels, which declare nvidia-* wheels.
        not_applicable("this torch declares no nvidia-* runtime wheels (not a PyPI CUDA "
                       "wheel); the claim is about the wheels PyPI serves")
    result = runtime_without_toolkit()
    check.attach("CUDA with the toolkit hidden", result, kind="json")
    ran = bool(result.get("available")) and result.get("result_finite") is True
    check.measure("a CUDA matmul runs with the toolkit hidden", result.get("device"), holds=ran,
                  expected="cuda:0 and a finite result",
                  note="PATH without CUDA dirs; LD_LIBRARY_PATH, CUDA_HOME and CUDA_PATH unset")
    libraries = result.get("libraries", [])
    outside = [lib["path"] for lib in libraries if not lib["in_environment"]]
    check.observe("CUDA runtime libraries mapped",
                  [f"{Path(lib['path']).name} ({lib['origin']})" for lib in libraries])
    check.measure("every CUDA runtime library came from the Python environment",
                  outside or [lib["path"] for lib in libraries],
                  holds=bool(libraries) and not outside,
                  expected=f"all under {sys.prefix}",
                  note="none mapped" if not libraries else None)


@pytest.mark.claim("W1-TORCH-VALIDATE")
def test_torch_sees_the_gpu(check, smi, machine_profile, observe_version):
    from claims.probes.nvidia import is_reported
    from claims.probes.system import cpu_inventory, free_h_size, machine_arch, memory_bytes
    from claims.probes.torch_cuda import device_facts, tensor_device, torch_build
    from claims.profiles import PROFILES, compare

    build = torch_build()
    check.fact("torch.version", build.version)
    check.against("CUDA available", build.cuda_available)
    if not build.cuda_available:
        return
    dev = device_facts(0)
    device = tensor_device()
    check.fact("gpu.name", dev.name)
    check.fact("gpu.capability", list(dev.capability))
    check.against("tensor device", device)
    check.against("device name", dev.name)
    check.against("compute capability", f"({dev.capability[0]}, {dev.capability[1]})")
    observe_version(check, "torch version", build.version)
    smi_names = [r["name"] for r in smi.query]
    check.measure("torch and nvidia-smi name the same device", dev.name,
                  holds=dev.name in smi_names, expected=" or ".join(smi_names))
    cap = smi.query[0].get("compute_cap") if smi.query else None
    if is_reported(cap):
        check.measure("torch and nvidia-smi agree on the compute capability",
                      f"{dev.capability[0]}.{dev.capability[1]}",
                      holds=f"{dev.capability[0]}.{dev.capability[1]}" == cap, expected=cap)
    # The whole machine beside the Spark profile: hardware and versions, for the report.
    inv = cpu_inventory()
    facts = {
        "arch": machine_arch(),
        "cpu_count": inv.logical_cpus,
        "cpu_models": {m.name: m.count for m in inv.models},
        "memory_free_h": free_h_size(memory_bytes() // 1024),
        "gpu_name": dev.name,
        "capability": dev.capability,
        "gpu_memory_reported": is_reported(smi.query[0].get("memory.total")) if smi.query else None,
        "driver": smi.header.driver_version,
        "cuda_ceiling": smi.header.cuda_version,
        "torch": build.version,
        "torch_cuda": build.cuda,
    }
    differences = [d.to_json() for d in compare(PROFILES["dgx-spark"], facts)]
    check.attach("this machine beside the dgx-spark profile",
                 {"profile": machine_profile, "differences": differences}, kind="json")


def _attach_series(check: Check, *results: Any) -> None:
    for r in results:
        check.attach(f"{r.device} {r.precision} series", r.to_json(), kind="json")


def _peak_note(check: Check, result: Any) -> None:
    from claims.probes.gpu import check_plausible, peak_for

    peak = peak_for(result.device_name)
    share = check_plausible(result, peak)  # raises ImplausibleRate: the timing would be wrong
    if share is None:
        check.observe(f"{result.precision.upper()} share of published peak", None,
                      note=f"no published {result.precision.upper()} peak for {result.device_name}")
    else:
        assert peak is not None
        check.observe(f"{result.precision.upper()} share of published peak", round(share, 3),
                      note=peak.source)


@pytest.mark.claim("W1-SPEEDUP-RANGE")
def test_gpu_matmul_speedup(check, matmul_store, matmul_settings, benchmarked_cuda):
    cpu = matmul_store.get("cpu", "fp32")
    gpu = benchmarked_cuda("fp32")
    _attach_series(check, cpu, gpu)
    check.fact("matmul.cpu_threads", cpu.threads)
    check.observe("CPU FP32 median", cpu.median_ms, unit="ms",
                  note=f"{cpu.tflops:.3g} TFLOP/s, {cpu.threads} threads; the post: 172.57 ms")
    check.observe("GPU FP32 median", gpu.median_ms, unit="ms",
                  note=f"{gpu.tflops:.3g} TFLOP/s, TF32 off; the post: 7.67 ms")
    speedup = cpu.median_s / gpu.median_s
    check.measure("GPU faster than CPU", round(speedup, 2), unit="x", holds=speedup > 1,
                  expected="> 1x")
    if matmul_settings.stated_size:
        check.against("predicted speedup", speedup, unit="x")
        check.observe("speedup beside the post's", round(speedup, 2), unit="x",
                      note="the post recorded 22.5x on its Spark")
    else:
        check.note(f"n = {matmul_settings.n}: the post's figures are for "
                   f"n = {matmul_settings.stated_n}; "
                   "only the general form was compared")
    _peak_note(check, gpu)
    check.chart("matmul", [cpu.chart_row(), gpu.chart_row()],
                title=f"{matmul_settings.n}x{matmul_settings.n} float32 matmul")


@pytest.mark.claim("W1-TF32-FASTER")
def test_tf32_faster_than_fp32(check, matmul_store, matmul_settings, benchmarked_cuda):
    from claims.probes.torch_cuda import device_facts

    dev = device_facts(0)
    if dev.capability < (8, 0):
        not_applicable(f"{dev.name} (capability {dev.capability}) has no TF32 tensor cores; "
                       "TF32 needs capability 8.0 or later")
    fp32 = matmul_store.get("cuda", "fp32")
    tf32 = benchmarked_cuda("tf32")
    _attach_series(check, fp32, tf32)
    check.measure("TF32 was on for the TF32 series", tf32.allow_tf32,
                  holds=tf32.allow_tf32 and tf32.float32_matmul_precision != "highest",
                  expected="allow_tf32 True, precision high")
    check.measure("TF32 was off for the FP32 series", fp32.allow_tf32,
                  holds=not fp32.allow_tf32 and fp32.float32_matmul_precision == "highest",
                  expected="allow_tf32 False, precision highest")
    ratio = tf32.tflops / fp32.tflops
    check.measure("TF32 much faster than FP32", round(ratio, 2), unit="x",
                  holds=ratio >= TF32_MUCH_FASTER, expected=f">= {TF32_MUCH_FASTER}x",
                  note="the post: 40.1 / 17.9 = 2.24x")
    check.observe("TF32 median", tf32.median_ms, unit="ms", note="the post: 3.42 ms")
    check.observe("TF32 rate", round(tf32.tflops, 2), unit="TFLOP/s", note="the post: 40.1")
    check.observe("FP32 rate", round(fp32.tflops, 2), unit="TFLOP/s", note="the post: 17.9")
    _peak_note(check, fp32)
    _peak_note(check, tf32)
    rows = [fp32.chart_row(), tf32.chart_row()]
    if ("cpu", "fp32") in matmul_store.results:
        rows.insert(0, matmul_store.results[("cpu", "fp32")].chart_row())
    check.chart("matmul", rows,
                title=f"{matmul_settings.n}x{matmul_settings.n} matmul, FP32 vs TF32")


@pytest.mark.claim("W1-COLD-KERNEL")
def test_first_gpu_call_is_cold(check, matmul_settings):
    from claims.probes.gpu import cold_in_fresh_process

    result = cold_in_fresh_process("cuda", n=matmul_settings.n, warm_runs=matmul_settings.runs)
    check.attach("fresh-process timing", result, kind="json")
    cold, warm = float(result["cold_ms"]), float(result["warm_median_ms"])
    check.observe("cold first call", round(cold, 2), unit="ms", note="the post: 135.73 ms")
    check.observe("warm median", round(warm, 3), unit="ms", note="the post: 7.67 ms")
    ratio = cold / warm
    check.measure("first call far slower than warm calls", round(ratio, 1), unit="x",
                  holds=ratio >= COLD_FAR_SLOWER, expected=f">= {COLD_FAR_SLOWER:g}x",
                  note="the post: 135.73 / 7.67 = 17.7x")
    if not matmul_settings.stated_size:
        check.note(f"n = {matmul_settings.n}; the post timed n = {matmul_settings.stated_n}")
