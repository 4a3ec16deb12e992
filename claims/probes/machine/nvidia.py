"""NVIDIA driver and toolkit tools: what ``nvidia-smi`` and ``nvcc`` report.

Week 1 reads three layers off these tools: the driver version and the highest
CUDA version the driver supports (the ``CUDA Version`` in the ``nvidia-smi``
header is that ceiling, not an installed toolkit), the GPU's name and memory
fields (``Not Supported`` / ``[N/A]`` where memory is unified, as on a GB10),
and the toolkit's compiler, which may be installed under ``/usr/local/cuda*``
without being on PATH.

Two halves, kept apart so the parsing is testable on recorded output:

* parsers (pure functions of text): :func:`parse_smi_header`,
  :func:`parse_smi_table`, :func:`parse_smi_query_csv`, :func:`parse_smi_q`,
  :func:`parse_nvcc_version`;
* runners that call the tools with a timeout and hand their output to the
  parsers: :func:`nvidia_smi_rows_and_run`, :func:`nvidia_smi_text`,
  :func:`nvidia_smi_q`, :func:`find_nvcc`, :func:`nvcc_version`.

Why text: the claims are about what these tools *show*. NVML (pynvml) would
give the same facts through another door, but not the strings the post reads
("Not Supported", "CUDA Version: 13.0"), so the tools' own output is the thing
measured. Versions are kept as the strings printed; :func:`version_tuple`
turns "13.0" or "580.159.03" into integers for ordering.

Errors: malformed output is an :class:`SmiFormatError` (an InputError naming
the source and the line); a tool that is absent is :class:`PrerequisiteMissing`;
one that fails or hangs past its timeout is a :class:`~claims.probes.machine.tools.ToolFailed`
(the tools run through :func:`claims.probes.machine.tools.run_tool`).
"""

from __future__ import annotations

import csv
import glob
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claims.probes.errors import InputError, PrerequisiteMissing, ProbeError
from claims.probes.machine.tools import MAX_OUTPUT_CHARS, ToolRun, run_tool

__all__ = [
    "NOT_REPORTED",
    "NVIDIA_SMI_TIMEOUT_S",
    "NVML_QUERY",
    "NvccFound",
    "NvccVersion",
    "NvmlState",
    "SmiFormatError",
    "SmiGpuRow",
    "SmiHeader",
    "SmiReport",
    "classify_smi_output",
    "cuda_dirs",
    "find_nvcc",
    "first_line",
    "is_reported",
    "match_smi_row",
    "nvcc_version",
    "nvidia_smi_q",
    "nvidia_smi_rows_and_run",
    "nvidia_smi_text",
    "nvml_state",
    "parse_nvcc_version",
    "parse_smi_header",
    "parse_smi_q",
    "parse_smi_query_csv",
    "parse_smi_table",
    "version_tuple",
]

NVIDIA_SMI_TIMEOUT_S = 10.0
NVCC_TIMEOUT_S = 10.0
# How the tools spell "this field has no value here". nvidia-smi's table says
# "Not Supported" for a GB10's Memory-Usage, its CSV query says "[N/A]", and
# `nvidia-smi -q` says "N/A"; older drivers bracket "Not Supported" in CSV.
# WSL2 prints "ERR!" where it cannot read a field (the CUDA version, GPU-Util).
NOT_REPORTED = frozenset({"N/A", "[N/A]", "Not Supported", "[Not Supported]", "Unknown Error",
                          "[Unknown Error]", "Not Available", "[Not Available]", "ERR!",
                          "[ERR!]"})
DEFAULT_CUDA_GLOB = "/usr/local/cuda*"


class SmiFormatError(InputError):
    """Tool output that does not have the expected shape (names source and line)."""


def version_tuple(text: str) -> tuple[int, ...]:
    """'13.0' -> (13, 0); '580.159.03' -> (580, 159, 3); 'cu130' -> (13, 0).

    Raises ValueError for text that is not a dotted version or a cuNNN tag.
    """
    value = text.strip()
    tag = re.fullmatch(r"cu(\d{2,3})", value)
    if tag:  # torch's local version tag: cu130 = CUDA 13.0, cu128 = 12.8, cu92 = 9.2
        digits = tag.group(1)
        return int(digits[:-1]), int(digits[-1])
    if not re.fullmatch(r"\d+(\.\d+)*", value):
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(p) for p in value.split("."))


def is_reported(value: str | None) -> bool:
    """False for the placeholders the tools print where a field has no value."""
    return value is not None and value.strip() not in NOT_REPORTED and value.strip() != ""


def _check_size(text: str, source: str) -> None:
    if len(text) > MAX_OUTPUT_CHARS:
        raise SmiFormatError(f"output of {len(text):,} characters exceeds the "
                             f"{MAX_OUTPUT_CHARS:,}-character limit", path=source)


# --- nvidia-smi: the header line ------------------------------------------------
# R535-R590 print "Driver Version:" and "CUDA Version:"; from R610 the same numbers are
# labelled "KMD Version:" (the kernel-mode driver) and "CUDA UMD Version:" (the user-mode
# driver's CUDA, the ceiling), NVIDIA having deprecated the old names. WSL2 prints
# "CUDA Version: ERR!" on some driver/runtime pairs, a machine without libcuda "N/A".
_HEADER = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>\d+(?:\.\d+)*)\s+"
    r"(?P<driver_label>Driver|KMD) Version:\s+(?P<driver>\d+(?:\.\d+)*)"
    r"(?:\s+(?P<cuda_label>CUDA(?: UMD)?) Version:\s+(?P<cuda>\S+))?"
)
_VERSION = re.compile(r"\d+(?:\.\d+)*")


@dataclass(frozen=True)
class SmiHeader:
    """The first line of ``nvidia-smi``'s table: tool version, driver, CUDA ceiling."""

    smi_version: str
    driver_version: str
    # None where the driver reports no CUDA version: "N/A" (no libcuda), "ERR!" (WSL2 on
    # some driver/runtime pairs), or no CUDA field at all; cuda_printed keeps what it said.
    cuda_version: str | None
    cuda_printed: str | None = None
    labels: str = "Driver Version / CUDA Version"  # "KMD Version / CUDA UMD Version" from R610

    @property
    def cuda_missing_reason(self) -> str | None:
        """Why there is no CUDA version, in words a claim can give (None: there is one)."""
        if self.cuda_version is not None:
            return None
        if self.cuda_printed is None:
            return "nvidia-smi's header has no CUDA version field"
        return (f"the driver reported no CUDA version (nvidia-smi prints "
                f"'CUDA Version: {self.cuda_printed}'"
                + ("; seen under WSL2 on some driver/runtime pairs)" if "ERR" in self.cuda_printed
                   else ")"))


def first_line(text: str, limit: int = 120) -> str:
    """The first non-blank line of a tool's output, shortened, for an error message."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "(no output)")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def parse_smi_header(text: str, *, source: str = "nvidia-smi") -> SmiHeader:
    """Find the ``NVIDIA-SMI … Driver|KMD Version: … CUDA [UMD] Version: …`` line.

    An unknown layout is one :class:`SmiFormatError` saying "could not read nvidia-smi"
    with the output's first line, which is what a user needs to report it.
    """
    _check_size(text, source)
    for line in text.splitlines():
        m = _HEADER.search(line)
        if m:
            cuda = m.group("cuda")
            version = cuda if cuda is not None and _VERSION.fullmatch(cuda) else None
            labels = ("KMD Version / CUDA UMD Version" if m.group("driver_label") == "KMD"
                      else "Driver Version / CUDA Version")
            return SmiHeader(m.group("smi"), m.group("driver"), version, cuda, labels)
    raise SmiFormatError(f"could not read nvidia-smi: no 'NVIDIA-SMI … Version: …' header; "
                         f"its first line is {first_line(text)!r}", path=source)


# --- nvidia-smi: the device table -------------------------------------------------
@dataclass(frozen=True)
class SmiGpuRow:
    """One GPU's block in the default ``nvidia-smi`` table, cells as printed."""

    index: int
    name: str
    memory_usage: str  # "Not Supported" on a GB10; "1MiB /  81559MiB" on a discrete GPU
    cells: tuple[tuple[str, ...], ...]  # every line of the block, split at "|"

    @property
    def memory_reported(self) -> bool:
        return is_reported(self.memory_usage)


_GPU_FIRST_CELL = re.compile(r"^\s*(?P<index>\d+)\s+(?P<rest>.*?)\s*$")
_PERSISTENCE = re.compile(r"\s+(On|Off|N/A)$")


def parse_smi_table(text: str, *, source: str = "nvidia-smi") -> list[SmiGpuRow]:
    """The GPU blocks of ``nvidia-smi``'s default output.

    The table is drawn with ``|`` and ``+---+`` rules: after the ``|===|``
    line under the column titles, each GPU owns the lines up to the next
    ``+---`` rule. Its first line holds index, name and persistence mode; its
    second holds fan/temperature/performance/power, then Memory-Usage in the
    middle cell. Both the three-line (R525+) and two-line (older) layouts fit.
    The table ends at a line that does not start with ``|`` or at the next table's
    title (``Processes:``, ``MIG devices:``), blank line between or not.
    """
    _check_size(text, source)
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("|=")), None)
    if start is None:
        raise SmiFormatError("could not read nvidia-smi: no device table (no '|===' line "
                             f"under the column titles); its first line is {first_line(text)!r}",
                             path=source)
    rows: list[SmiGpuRow] = []
    block: list[tuple[str, ...]] = []
    for number, line in enumerate(lines[start + 1 :], start + 2):
        if line.startswith("+"):
            if block:
                rows.append(_gpu_row(block, source, number))
                block = []
            continue
        if not line.startswith("|"):
            if block:
                rows.append(_gpu_row(block, source, number))
            break
        if "Processes:" in line or "MIG devices:" in line:
            # The next table begins. R535 prints the MIG table straight after the GPU
            # table's closing rule, without the blank line that ends it elsewhere.
            break
        block.append(tuple(cell.strip() for cell in line.strip().strip("|").split("|")))
    else:
        if block:
            rows.append(_gpu_row(block, source, len(lines)))
    if not rows:
        raise SmiFormatError("the device table lists no GPU", path=source)
    return rows


def _gpu_row(block: list[tuple[str, ...]], source: str, line: int) -> SmiGpuRow:
    if len(block) < 2 or len(block[0]) < 2 or len(block[1]) < 2:
        raise SmiFormatError(f"a GPU block ending at line {line} has fewer than two "
                             "three-cell lines", path=source)
    m = _GPU_FIRST_CELL.match(block[0][0])
    if not m:
        raise SmiFormatError(f"a GPU block ending at line {line} does not start with a GPU "
                             f"index: {block[0][0]!r}", path=source)
    name = _PERSISTENCE.sub("", m.group("rest")).strip()
    return SmiGpuRow(int(m.group("index")), name, block[1][1], tuple(block))


# --- nvidia-smi --query-gpu CSV -------------------------------------------------------
def parse_smi_query_csv(text: str, fields: Sequence[str], *,
                        source: str = "nvidia-smi --query-gpu") -> list[dict[str, str]]:
    """Rows of ``--format=csv,noheader,nounits`` output, one dict per GPU.

    Values stay as printed (``[N/A]`` included; see :func:`is_reported`).
    A row with the wrong number of fields is an error naming its line.
    """
    _check_size(text, source)
    rows = []
    reader = csv.reader(text.splitlines(), skipinitialspace=True)
    for number, values in enumerate(reader, 1):
        if not values or all(not v.strip() for v in values):
            continue
        if len(values) != len(fields):
            raise SmiFormatError(
                f"line {number} has {len(values)} fields, expected {len(fields)} "
                f"({', '.join(fields)})", path=source, field=f"line {number}")
        rows.append({k: v.strip() for k, v in zip(fields, values, strict=True)})
    return rows


# --- which nvidia-smi row is torch's device ------------------------------------------
def _uuid_key(text: str | None) -> str | None:
    if not text or not is_reported(text):
        return None
    value = text.strip().lower()
    for prefix in ("gpu-", "mig-"):
        value = value.removeprefix(prefix)
    return value or None


def _bus_key(text: str | None) -> tuple[int, int, int] | None:
    """'00000000:18:00.0' -> (0, 0x18, 0); domain widths differ between tools."""
    if not text or not is_reported(text):
        return None
    m = re.fullmatch(r"\s*(?:([0-9A-Fa-f]+):)?([0-9A-Fa-f]{1,2}):([0-9A-Fa-f]{1,2})(?:\.[0-7])?\s*",
                     text)
    if not m:
        return None
    return int(m.group(1) or "0", 16), int(m.group(2), 16), int(m.group(3), 16)


def match_smi_row(rows: Sequence[dict[str, str]], *, index: int, uuid: str | None = None,
                  pci_bus_id: str | None = None, visible: str | None = None
                  ) -> tuple[dict[str, str] | None, str]:
    """The ``--query-gpu`` row of torch's device ``index``, and how it was found.

    torch numbers only the devices CUDA_VISIBLE_DEVICES (``visible``) leaves,
    in CUDA's order (fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID), while
    nvidia-smi numbers every GPU by bus id; so the match goes by identity: the
    device's UUID, then its PCI bus id (a MIG slice shares its parent GPU's bus
    id; its own MIG uuid is not a row of --query-gpu). Without either, a
    numeric CUDA_VISIBLE_DEVICES entry names the row; a single GPU is its own
    match. Otherwise the row is None and the text says why.
    """
    want = _uuid_key(uuid)
    if want is not None:
        for row in rows:
            if _uuid_key(row.get("uuid")) == want:
                return row, f"by UUID {uuid}"
    bus = _bus_key(pci_bus_id)
    if bus is not None:
        for row in rows:
            if _bus_key(row.get("pci.bus_id")) == bus:
                return row, f"by PCI bus id {pci_bus_id}"
    entries = [e.strip() for e in (visible or "").split(",") if e.strip()]
    if visible is not None and index < len(entries):
        entry = entries[index]
        if entry.isdigit():
            for row in rows:
                if row.get("index") == entry:
                    return row, f"by CUDA_VISIBLE_DEVICES={visible} (entry {index} is GPU {entry})"
        key = _uuid_key(entry)
        for row in rows:
            if key is not None and _uuid_key(row.get("uuid")) == key:
                return row, f"by CUDA_VISIBLE_DEVICES={visible} (entry {index} is {entry})"
    if len(rows) == 1 and index == 0:
        return rows[0], "the only GPU nvidia-smi lists"
    return None, (f"torch's device {index} has no UUID or bus id that matches one of "
                  f"nvidia-smi's {len(rows)} GPUs")


# --- nvidia-smi -q ----------------------------------------------------------------------
@dataclass(frozen=True)
class SmiReport:
    """``nvidia-smi -q`` as nested sections: top-level facts and one section per GPU."""

    top: dict[str, Any]
    gpus: dict[str, dict[str, Any]]  # keyed by the GPU's bus id ("0000000F:01:00.0")

    @property
    def driver_version(self) -> str | None:
        # R610 prints "KMD Version" beside the deprecated "Driver Version" (same number).
        return self._first("KMD Version", "Driver Version")

    @property
    def cuda_version(self) -> str | None:
        # R610: "CUDA UMD Version"; R580: "CUDA Version"; some older drivers "CUDA Driver
        # Version". A value that is not a version ("ERR!", "N/A") is not reported.
        value = self._first("CUDA UMD Version", "CUDA Version", "CUDA Driver Version")
        return value if value is not None and _VERSION.fullmatch(value) else None

    def _first(self, *keys: str) -> str | None:
        for key in keys:
            value = self.top.get(key)
            if isinstance(value, str) and is_reported(value):
                return value
        return None

    def gpu_field(self, bus_id: str, *path: str) -> Any:
        node: Any = self.gpus[bus_id]
        for key in path:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node


_DEPRECATED = re.compile(r"\s*\[Deprecated[^\]]*\]\s*$")
_Q_LINE = re.compile(r"^(?P<indent> *)(?P<key>\S.*?)\s+:(?:\s+(?P<value>.*))?$")


def parse_smi_q(text: str, *, source: str = "nvidia-smi -q") -> SmiReport:
    """Parse the indented ``Key : Value`` report of ``nvidia-smi -q``.

    A line without a space-separated colon opens a section (``GPU
    0000000F:01:00.0``, ``FB Memory Usage``); deeper-indented lines belong to
    it. A key repeated within one section (the process list) is kept with a
    ``#2``, ``#3`` suffix.
    """
    _check_size(text, source)
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(-1, root)]
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        body = line.lstrip(" ")
        if not body or body.startswith("="):
            continue
        if body.startswith("\t"):
            raise SmiFormatError(f"line {number} is indented with a tab", path=source,
                                 field=f"line {number}")
        indent = len(line) - len(body)
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        m = _Q_LINE.match(line)
        if m:
            # R610: "610.43.02 [Deprecated; will be removed in CUDA 14.0. Use KMD Version
            # instead]": the value is the number before the notice.
            value = _DEPRECATED.sub("", (m.group("value") or "").strip())
            _put(parent, m.group("key").strip(), value)
            continue
        section: dict[str, Any] = {}
        _put(parent, body, section)
        stack.append((indent, section))
    gpus = {k.removeprefix("GPU ").strip(): v for k, v in root.items()
            if k.startswith("GPU ") and isinstance(v, dict)}
    top = {k: v for k, v in root.items() if not (k.startswith("GPU ") and isinstance(v, dict))}
    if not gpus and "Driver Version" not in top and "KMD Version" not in top:
        raise SmiFormatError("could not read nvidia-smi -q: neither a 'Driver Version' (or "
                             "'KMD Version') line nor a 'GPU <bus id>' section; its first line "
                             f"is {first_line(text)!r}", path=source)
    return SmiReport(top=top, gpus=gpus)


def _put(section: dict[str, Any], key: str, value: Any) -> None:
    if key not in section:
        section[key] = value
        return
    n = 2
    while f"{key} #{n}" in section:
        n += 1
    section[f"{key} #{n}"] = value


# --- running nvidia-smi -------------------------------------------------------------------
def _smi_exe() -> str:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        raise PrerequisiteMissing("nvidia-smi is not on PATH (no NVIDIA driver here?)")
    return exe


def nvidia_smi_text(timeout: float = NVIDIA_SMI_TIMEOUT_S) -> ToolRun:
    """``nvidia-smi`` with no arguments: the table the post reads."""
    return run_tool([_smi_exe()], timeout=timeout)


def nvidia_smi_q(timeout: float = NVIDIA_SMI_TIMEOUT_S) -> tuple[SmiReport, ToolRun]:
    """``nvidia-smi -q``, parsed, with the raw run kept for evidence."""
    run = run_tool([_smi_exe(), "-q"], timeout=timeout)
    return parse_smi_q(run.stdout, source="nvidia-smi -q"), run


def nvidia_smi_rows_and_run(fields: Sequence[str], timeout: float = NVIDIA_SMI_TIMEOUT_S
                            ) -> tuple[list[dict[str, str]], ToolRun]:
    """``nvidia-smi --query-gpu=FIELDS --format=csv,noheader,nounits``: one row per GPU
    (field -> text) and the run itself, for evidence; a failing or missing tool raises."""
    run = run_tool([_smi_exe(), f"--query-gpu={','.join(fields)}",
                    "--format=csv,noheader,nounits"], timeout=timeout)
    return parse_smi_query_csv(run.stdout, fields), run


# --- NVML: can the driver be asked at all? --------------------------------------------------
@dataclass(frozen=True)
class NvmlState:
    """Whether nvidia-smi (NVML) can talk to the driver, and if not, the named reason.

    ``state``: "ok", "smi-missing", "mismatch" (driver/library version mismatch),
    "no-devices", "driver-not-loaded", "nvml-missing" or "failed" (anything else).
    ``rows``: on "ok", one ``{"index", "name", "driver_version", "compute_cap"}`` per GPU
    (compute_cap absent where the driver cannot be asked for it).
    """

    state: str
    message: str
    remedy: str | None = None
    rows: tuple[dict[str, str], ...] = ()
    output: str = ""

    @property
    def ok(self) -> bool:
        return self.state == "ok"

    @property
    def reason(self) -> str:
        """One line: what is wrong and what to do."""
        return self.message if self.remedy is None else f"{self.message}: {self.remedy}"


# What nvidia-smi prints when NVML cannot reach the driver (NVML's own messages), the state
# it names and what fixes it. Matched case-insensitively anywhere in the output.
_NVML_FAILURES: tuple[tuple[str, str, str, str], ...] = (
    ("driver/library version mismatch", "mismatch",
     "NVML driver/library version mismatch (the loaded kernel module is not the installed "
     "driver's, typically after a driver update without a reboot)",
     "reboot, or reload the kernel module (unload the nvidia modules and run nvidia-smi)"),
    ("no devices were found", "no-devices",
     "no devices found (the driver is loaded but lists no GPU)",
     "check that the GPU is visible (lspci | grep -i nvidia), passed through to this "
     "machine or container, and supported by this driver (dmesg | grep NVRM)"),
    ("couldn't communicate with the nvidia driver", "driver-not-loaded",
     "the NVIDIA driver is not loaded (nvidia-smi could not communicate with it)",
     "install or load the driver (modprobe nvidia), then run nvidia-smi"),
    ("driver not loaded", "driver-not-loaded",
     "the NVIDIA driver is not loaded", "install or load the driver (modprobe nvidia)"),
    ("nvml shared library not found", "nvml-missing",
     "the NVML library (libnvidia-ml.so) was not found",
     "reinstall the driver's user-space libraries"),
)
NVML_QUERY = ("index", "name", "driver_version", "compute_cap")


def classify_smi_output(text: str, returncode: int) -> NvmlState | None:
    """The named NVML failure in nvidia-smi's output, or None when it reads as working.

    A non-zero exit without a known message is "failed" with the output's first line.
    """
    lowered = text.lower()
    for needle, state, message, remedy in _NVML_FAILURES:
        if needle in lowered:
            return NvmlState(state, message, remedy, output=text)
    if returncode != 0:
        return NvmlState("failed", f"nvidia-smi exited with status {returncode}: "
                         f"{first_line(text)}", output=text)
    return None


def nvml_state(timeout: float = NVIDIA_SMI_TIMEOUT_S) -> NvmlState:
    """Ask nvidia-smi for each GPU's index, name, driver and compute capability.

    This is the first thing to know on a machine to certify: with NVML broken nothing
    else of the gpu tier (nor a torch install) can work, and the state says why.
    Drivers older than R510 have no ``compute_cap`` field; the query is then repeated
    without it.
    """
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return NvmlState("smi-missing", "nvidia-smi missing (not on PATH)",
                         "install the NVIDIA driver, or put its nvidia-smi on PATH")
    fields = list(NVML_QUERY)
    for _ in range(2):
        try:
            run = run_tool([exe, f"--query-gpu={','.join(fields)}",
                            "--format=csv,noheader,nounits"], timeout=timeout, check=False)
        except ProbeError as exc:
            return NvmlState("failed", f"nvidia-smi could not be run: {exc}")
        text = run.stdout + run.stderr
        if run.returncode != 0 and "compute_cap" in fields and "not a valid field" in text:
            fields.remove("compute_cap")
            continue
        failed = classify_smi_output(text, run.returncode)
        if failed is not None:
            return failed
        try:
            rows = parse_smi_query_csv(run.stdout, fields)
        except SmiFormatError as exc:
            return NvmlState("failed", str(exc), output=text)
        if not rows:
            return NvmlState("no-devices", "no devices found (nvidia-smi listed no GPU)",
                             _NVML_FAILURES[1][3], output=text)
        return NvmlState("ok", f"{len(rows)} GPU(s): "
                         + ", ".join(r.get("name", "?") for r in rows),
                         rows=tuple(rows), output=text)
    return NvmlState("failed", "nvidia-smi refused its own query fields")


# --- nvcc ----------------------------------------------------------------------------------
_NVCC = re.compile(r"release\s+(?P<release>\d+\.\d+),\s+V(?P<build>\d+(?:\.\d+)+)")


@dataclass(frozen=True)
class NvccVersion:
    """``nvcc --version``: the release ("13.0") and the full build ("13.0.88")."""

    release: str
    build: str


def parse_nvcc_version(text: str, *, source: str = "nvcc --version") -> NvccVersion:
    """Find ``Cuda compilation tools, release X.Y, VX.Y.Z``."""
    _check_size(text, source)
    m = _NVCC.search(text)
    if not m:
        raise SmiFormatError("no 'release X.Y, VX.Y.Z' line", path=source)
    return NvccVersion(m.group("release"), m.group("build"))


@dataclass(frozen=True)
class NvccFound:
    """Where nvcc is: on PATH (or not), and every copy under the CUDA install dirs."""

    on_path: str | None
    installed: tuple[str, ...]  # <cuda dir>/bin/nvcc for each dir that has one
    cuda_dirs: tuple[str, ...]  # what `ls -d /usr/local/cuda*` lists

    @property
    def any(self) -> str | None:
        """The nvcc to ask for a version: PATH's first, else the first installed copy."""
        return self.on_path or (self.installed[0] if self.installed else None)


def cuda_dirs(pattern: str = DEFAULT_CUDA_GLOB) -> tuple[str, ...]:
    """CUDA install directories, as ``ls -d /usr/local/cuda*`` would list them."""
    return tuple(sorted(p for p in glob.glob(pattern) if os.path.isdir(p)))


def find_nvcc(path_env: str | None = None, pattern: str = DEFAULT_CUDA_GLOB) -> NvccFound:
    """Look for nvcc on PATH (``path_env`` overrides $PATH) and under ``pattern``/bin."""
    dirs = cuda_dirs(pattern)
    installed = tuple(
        str(Path(d) / "bin" / "nvcc") for d in dirs
        if os.access(Path(d) / "bin" / "nvcc", os.X_OK)
    )
    return NvccFound(on_path=shutil.which("nvcc", path=path_env), installed=installed,
                     cuda_dirs=dirs)


def nvcc_version(exe: str, timeout: float = NVCC_TIMEOUT_S) -> tuple[NvccVersion, ToolRun]:
    """Run ``EXE --version`` and parse it."""
    run = run_tool([exe, "--version"], timeout=timeout)
    return parse_nvcc_version(run.stdout, source=f"{exe} --version"), run
