"""Week 1 claims checked offline: on the outputs the post prints, and on torch's defaults.

The recorded checks parse the command output Week 1 shows (transcribed in
fixtures/system/w1-post/) with the same parsers the gpu tier uses live, and
compare it with the catalog's stated figures and with itself (a nvcc release
that matches the driver's ceiling, a free -h line whose columns add up). A
pass here means "consistent": the post agrees with itself; whether a machine
reproduces it is the gpu tier's question.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from claims.testkit import Check, Interval, PrerequisiteMissing, not_run

pytestmark = pytest.mark.offline

STATED_N = 4096
# The readings of "much faster" and "far slower" are catalog figures of their claims
# (claims/catalog/W1.toml), read with check.premise, the same in the recorded and gpu tiers.


@pytest.fixture
def post_output(check: Check, w1_post: Callable[[str], str]) -> Callable[[str, str], str]:
    """``post_output(name, label)``: the post's output NAME, attached to the check as LABEL.

    A check that reads what the post printed is evidence of source "recorded".
    """
    check.declare_source("recorded")

    def show(name: str, label: str) -> str:
        text = w1_post(name)
        check.attach(label, text)
        return text

    return show


def _after_prompt(text: str) -> tuple[str, str]:
    """Split a '$ command' first line from the output under it."""
    first, _, rest = text.partition("\n")
    return first.removeprefix("$ ").strip(), rest


def _key_values(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _column(text: str, title: str) -> str:
    """The cell under ``title`` in a fixed-width listing (the post's trimmed nvidia-smi)."""
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if title in line:
            start = line.index(title)
            return re.split(r"\s{2,}", lines[i + 1][start:].strip())[0]
    raise AssertionError(f"no column {title!r} in the listing")


@pytest.mark.claim("W1-TF32-DEFAULT-OFF", source="live")
def test_tf32_is_off_by_default(check):
    from claims.probes.machine.torch_cuda import tf32_defaults

    # A fresh interpreter: the default, untouched by anything this session set. torch not
    # installed, or installed and raising on import there (a CUDA wheel missing a library),
    # leaves the claim not run, saying which; a PrerequisiteMissing a test lets through
    # fails it.
    try:
        defaults = tf32_defaults()
    except PrerequisiteMissing as exc:
        not_run(f"{exc} (pip install 'claims-suite[gpu]' or any torch build)")
    check.attach("torch TF32 settings in a fresh interpreter", defaults, kind="json")
    check.fact("torch.version", defaults["torch"])
    on = bool(defaults["allow_tf32"]) or defaults["float32_matmul_precision"] != "highest"
    check.against("TF32 on by default", on,
                  note=f"allow_tf32={defaults['allow_tf32']}, float32 matmul precision "
                       f"{defaults['float32_matmul_precision']!r}")
    check.observe("torch.backends.cuda.matmul.fp32_precision", defaults["fp32_precision"],
                  note="torch's newer setting; 'none' defers to the two above")


@pytest.mark.claim("W1-ARCH", source="recorded")
def test_recorded_architecture(check, w1_post, recorded):
    line = w1_post("uname_a.txt").strip()
    fields = line.split()
    check.attach("uname -a (the post)", line)
    # uname -a ends with machine, processor, hardware platform, operating system.
    check.against("Spark architecture", fields[-4])
    check.measure("uname's machine, processor and platform agree", fields[-4:-1],
                  holds=len(set(fields[-4:-1])) == 1, expected="three equal fields")
    # "unlike the x86_64 control Mac": the Mac's uname -m, as the post prints it, names
    # another architecture than the Spark's, which is what the sentence rests on.
    mac = recorded("W1")["control_machine_lines"][0]
    check.observe("control Mac's uname -m (the post)", mac)
    check.measure("the control Mac's architecture is not the Spark's", mac,
                  holds=mac != fields[-4], expected=f"not {fields[-4]}")


@pytest.mark.claim("W1-CPU")
def test_recorded_cpu_listing(check, post_output):
    from claims.probes.machine.system import parse_lscpu

    text = post_output("lscpu.txt", "lscpu (the post, trimmed)")
    info = parse_lscpu(text)
    check.against("logical CPUs", info.cpus)
    check.against("core types", [m.name for m in info.models], unordered=True)
    # The post annotates each model line with its core count, e.g. "(10 performance cores)".
    notes = {m.group(1): int(m.group(2)) for m in
             re.finditer(r"Model name:\s+(\S+)\s+\((\d+) \w+ cores\)", text)}
    check.against("Cortex-X925 cores", notes.get("Cortex-X925"))
    check.against("Cortex-A725 cores", notes.get("Cortex-A725"))
    total = sum(notes.values())
    check.measure("the per-type counts add up to CPU(s)", total, holds=total == info.cpus,
                  expected=str(info.cpus))


@pytest.mark.claim("W1-UNIFIED-MEM")
def test_recorded_free_listing(check, post_output):
    from claims.probes.machine.system import parse_free

    text = post_output("free_h.txt", "free -h (the post)")
    mem = parse_free(text)["Mem"]
    check.against("free -h total", mem["total"])

    def shown(cell: str) -> Interval:
        """What a free -h cell admits in GiB: one decimal is rounded, a whole number truncated."""
        number = cell.removesuffix("Gi")
        if "." in number:
            return Interval.stated(number)
        return Interval(float(number), float(number) + 1)

    # procps computes used as total - available, so the three cells must fit together.
    total, used, available = shown(mem["total"]), shown(mem["used"]), shown(mem["available"])
    check.against("pool size", total, unit="GiB")
    together = used + available
    check.measure("used + available can equal total", str(together),
                  holds=together.overlaps(total), expected=f"overlaps {total} GiB",
                  unit="GiB")


@pytest.mark.claim("W1-SMI-FIELDS")
def test_recorded_smi_header(check, post_output):
    from claims.probes.machine.nvidia import parse_smi_header

    text = post_output("nvidia_smi.txt", "nvidia-smi (the post, trimmed)")
    header = parse_smi_header(text)
    check.against("driver version", header.driver_version)
    check.against("CUDA version", header.cuda_version)
    name = re.search(r"^GPU \d+: (.+?)(?:\s{2,}|$)", text, re.MULTILINE)
    check.against("GPU name", name.group(1) if name else None)
    check.measure("the tool and the driver report the same version", header.smi_version,
                  holds=header.smi_version == header.driver_version,
                  expected=header.driver_version)


@pytest.mark.claim("W1-SMI-NOT-SUPPORTED")
def test_recorded_memory_usage_blank(check, post_output):
    text = post_output("nvidia_smi.txt", "nvidia-smi (the post, trimmed)")
    check.against("Memory-Usage", _column(text, "Memory-Usage"))


@pytest.mark.claim("W1-CUDA-CEILING", source="recorded")
def test_recorded_torch_build_within_ceiling(check, w1_post):
    from claims.probes.machine.nvidia import parse_smi_header, version_tuple

    ceiling = parse_smi_header(w1_post("nvidia_smi.txt")).cuda_version
    validate = _key_values(w1_post("validate_gpu.txt"))
    torch_cuda = validate["CUDA version (torch)"]
    tag = validate["PyTorch"].partition("+")[2]
    check.against("driver CUDA ceiling", ceiling)
    check.against("torch CUDA build", torch_cuda)
    check.measure("the wheel tag names the same CUDA as torch.version.cuda", tag,
                  holds=version_tuple(tag) == version_tuple(torch_cuda),
                  expected=f"cu for {torch_cuda}")
    assert ceiling is not None
    check.against("torch CUDA build at or below the ceiling",
                  version_tuple(torch_cuda) <= version_tuple(ceiling),
                  note=f"torch's CUDA {torch_cuda} against the header's {ceiling}")


@pytest.mark.claim("W1-NVCC", source="recorded")
def test_recorded_nvcc_off_path(check, w1_post):
    from claims.probes.machine.nvidia import parse_nvcc_version, parse_smi_header, version_tuple

    path_cmd, path_out = _after_prompt(w1_post("nvcc_path.txt"))
    ls_cmd, ls_out = _after_prompt(w1_post("ls_cuda.txt"))
    full_cmd, full_out = _after_prompt(w1_post("nvcc_version.txt"))
    for cmd, out in ((path_cmd, path_out), (ls_cmd, ls_out), (full_cmd, full_out)):
        check.attach(cmd, out)
    check.measure("nvcc is not on PATH", path_out.strip(),
                  holds="command not found" in path_out, expected="command not found")
    check.against("CUDA directories", ls_out.split())
    check.against("nvcc location", full_cmd.split()[0])
    version = parse_nvcc_version(full_out)
    check.against("nvcc release", version.release)
    check.against("nvcc build", f"V{version.build}")
    check.against("toolkit version", version.build)
    ceiling = parse_smi_header(w1_post("nvidia_smi.txt")).cuda_version
    assert ceiling is not None
    check.measure("the toolkit's release matches the driver's ceiling", version.release,
                  holds=version_tuple(version.release) == version_tuple(ceiling),
                  expected=ceiling)


@pytest.mark.claim("W1-TORCH-OWN-RUNTIME")
def test_recorded_runtime_wheels(check, post_output):
    text = post_output("pip_install.txt", "pip install (the post)")
    installed = [tok for tok in text.replace("Successfully installed", " ").split()
                 if re.match(r"^[A-Za-z][\w.-]*-\d[\w.]*$", tok)]
    names = [re.sub(r"-\d[\w.]*$", "", tok) for tok in installed]
    nvidia = [n for n in names if n.startswith("nvidia-")]
    check.against("runtime wheels", nvidia)
    check.measure("pip installed no CUDA toolkit, only torch and its runtime wheels", names,
                  holds=all(n == "torch" or n.startswith("nvidia-") for n in names)
                  and "torch" in names,
                  expected="torch plus nvidia-* wheels")


@pytest.mark.claim("W1-TORCH-VALIDATE")
def test_recorded_validation(check, post_output):
    out = _key_values(post_output("validate_gpu.txt", "validate_gpu.py (the post)"))
    check.against("CUDA available", out["CUDA available"] == "True")
    check.against("tensor device", out["Tensor on"])
    check.against("device name", out["Device"])
    check.against("compute capability", out["Capability"])
    check.against("torch version", out["PyTorch"])
    # The lines above only restate the transcript; what the post can confirm about itself
    # is that torch's view agrees with the driver's, as the gpu tier checks live.
    smi = post_output("nvidia_smi.txt", "nvidia-smi (the post, trimmed)")
    gpu = re.search(r"^GPU \d+: (.+?)(?:\s{2,}|$)", smi, re.MULTILINE)
    smi_name = gpu.group(1) if gpu else None
    check.measure("torch and nvidia-smi name the same device", out["Device"],
                  holds=out["Device"] == smi_name, expected=str(smi_name))


def _benchmark_times(post_output: Callable[[str, str], str]) -> dict[str, str]:
    """{'CPU': '172.57', 'GPU cold': '135.73', ...}: milliseconds as benchmark.py printed them."""
    text = post_output("benchmark.txt", "benchmark.py (the post)")
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"^(CPU|GPU \w+)\s+([\d.]+) ms(?:\s+([\d.]+) TFLOP/s)?", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def _ratio(check: Check, name: str, slow_ms: str, fast_ms: str) -> None:
    """The ratio of two printed times, their rounding carried along, judged against the
    catalog's reading ``name`` (a bound: its form says which way)."""
    ratio = Interval.stated(slow_ms) / Interval.stated(fast_ms)
    check.against(name, ratio, note=f"{slow_ms} ms / {fast_ms} ms")


@pytest.mark.claim("W1-TF32-FASTER")
def test_recorded_tf32_speed(check, post_output):
    from claims.probes.machine.gpu import matmul_flops

    times = _benchmark_times(post_output)
    printed = {"FP32": times["GPU FP32"], "TF32": times["GPU TF32"]}
    for precision, ms in printed.items():
        check.against(f"{precision} time", float(ms))
    for precision, ms in printed.items():
        # The rate recomputed from the printed time, its rounding carried along.
        rate = matmul_flops(STATED_N) / (Interval.stated(ms) * 1e-3) * 1e-12
        check.against(f"{precision} rate", rate, note=f"2·4096³ / {precision} time")
    _ratio(check, "TF32 much faster than FP32", printed["FP32"], printed["TF32"])


@pytest.mark.claim("W1-COLD-KERNEL")
def test_recorded_cold_call(check, post_output):
    times = _benchmark_times(post_output)
    check.against("cold first call", float(times["GPU cold"]))
    check.against("warm call", float(times["GPU FP32"]))
    _ratio(check, "first call far slower than warm calls", times["GPU cold"], times["GPU FP32"])


@pytest.mark.claim("W1-PYPI-CUDA13-WHEELS", source="recorded")
def test_recorded_wheel_versions_and_cuda_line(check, post_output):
    text = post_output("pip_install.txt", "pip install (the post)")
    installed = dict(
        re.findall(r"\b([A-Za-z][\w.]*(?:-[A-Za-z][\w.]*)*(?:-cu\d+)?)-(\d[\w.]*)\b", text)
    )
    check.observe("name -> version as pip printed it", installed)
    for name in ("torch", "nvidia-cuda-runtime", "nvidia-cudnn-cu13", "nvidia-cublas"):
        check.against(name, installed.get(name, "<not installed>"))
    majors = {}
    for name, version in installed.items():
        if not name.startswith("nvidia-"):
            continue
        suffix = re.search(r"-cu(\d+)$", name)
        majors[name] = int(suffix.group(1)) if suffix else int(version.split(".")[0])
    for name, major in majors.items():
        check.against("CUDA major", major, note=f"{name} {installed[name]}")
    out = _key_values(post_output("validate_gpu.txt", "validate_gpu.py (the post)"))
    base, _, local = out["PyTorch"].partition("+")
    check.measure("torch's own version vs the wheel pip installed", out["PyTorch"],
                  holds=base == installed.get("torch"), expected=f"{installed.get('torch')}+…")
    build = re.fullmatch(r"cu(\d+?)(\d)", local)
    check.against("CUDA major", int(build.group(1)) if build else -1,
                  note=f"torch build tag +{local}")
    check.against("CUDA major", int(out["CUDA version (torch)"].split(".")[0]),
                  note="torch.version.cuda")
    platform = re.search(r"\((\w+) wheels\)", text)
    check.against("platform", platform.group(1) if platform else "<not printed>")
