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

from claims.probes.errors import InputError, PrerequisiteMissing
from claims.probes.machine.tools import MAX_OUTPUT_CHARS, ToolRun, run_tool

__all__ = [
    "NOT_REPORTED",
    "NVIDIA_SMI_TIMEOUT_S",
    "NvccFound",
    "NvccVersion",
    "SmiFormatError",
    "SmiGpuRow",
    "SmiHeader",
    "SmiReport",
    "cuda_dirs",
    "find_nvcc",
    "is_reported",
    "match_smi_row",
    "nvcc_version",
    "nvidia_smi_q",
    "nvidia_smi_rows_and_run",
    "nvidia_smi_text",
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
NOT_REPORTED = frozenset({"N/A", "[N/A]", "Not Supported", "[Not Supported]", "Unknown Error",
                          "[Unknown Error]", "Not Available", "[Not Available]"})
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
_HEADER = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>\d+(?:\.\d+)*)\s+"
    r"Driver Version:\s+(?P<driver>\d+(?:\.\d+)*)\s+"
    r"CUDA Version:\s+(?P<cuda>\d+(?:\.\d+)*|N/A)"
)


@dataclass(frozen=True)
class SmiHeader:
    """The first line of ``nvidia-smi``'s table: tool version, driver, CUDA ceiling."""

    smi_version: str
    driver_version: str
    cuda_version: str | None  # None where the header says N/A (no libcuda)


def parse_smi_header(text: str, *, source: str = "nvidia-smi") -> SmiHeader:
    """Find the ``NVIDIA-SMI … Driver Version: … CUDA Version: …`` line."""
    _check_size(text, source)
    for line in text.splitlines():
        m = _HEADER.search(line)
        if m:
            cuda = m.group("cuda")
            return SmiHeader(m.group("smi"), m.group("driver"), None if cuda == "N/A" else cuda)
    raise SmiFormatError("no 'NVIDIA-SMI … Driver Version: … CUDA Version: …' header line",
                         path=source)


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
        raise SmiFormatError("no device table (no '|===' line under the column titles)",
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
        value = self.top.get("Driver Version")
        return value if isinstance(value, str) and is_reported(value) else None

    @property
    def cuda_version(self) -> str | None:
        # R580 prints "CUDA Version"; some older drivers spell it "CUDA Driver Version".
        for key in ("CUDA Version", "CUDA Driver Version"):
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
            _put(parent, m.group("key").strip(), (m.group("value") or "").strip())
            continue
        section: dict[str, Any] = {}
        _put(parent, body, section)
        stack.append((indent, section))
    gpus = {k.removeprefix("GPU ").strip(): v for k, v in root.items()
            if k.startswith("GPU ") and isinstance(v, dict)}
    top = {k: v for k, v in root.items() if not (k.startswith("GPU ") and isinstance(v, dict))}
    if not gpus and "Driver Version" not in top:
        raise SmiFormatError("neither a 'Driver Version' line nor a 'GPU <bus id>' section",
                             path=source)
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
