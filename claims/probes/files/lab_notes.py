"""The author's lab repository read as data: its roadmap's weeks and phases, what each
week's page teaches, and the idle GPU line and summary table of a system report.

The lab (fixtures/lab, github:dramasamy/from-api-to-gpu) keeps one roadmap file per
week (``roadmap/week-NN.md``) whose bold line names the week's phase, a CUDA track
(``roadmap/cuda-track.md``) that says around which week it starts, and per week a
``system-report.md`` with the commands' output trimmed to one line each. Counts are
week and phase numbers; temperatures in °C, power in W, utilisation in %.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from claims.probes.errors import InputError

__all__ = [
    "GpuIdleLine",
    "Roadmap",
    "gpu_idle_line",
    "inventory_runs",
    "kernel_release",
    "labelled_outputs",
    "learn_items",
    "read_roadmap",
    "roadmap_pages",
    "shell_function_one_line",
    "stated_head_counts",
    "summary_table",
]

_WEEK_FILE = re.compile(r"week-(\d{2})\.md\Z")
_PHASE = re.compile(r"^\*\*Phase (\d+):", re.MULTILINE)
_CUDA_START = re.compile(r"start ~Week (\d+)", re.IGNORECASE)
MAX_NOTE_BYTES = 1 << 20


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > MAX_NOTE_BYTES:
            raise InputError(f"is over {MAX_NOTE_BYTES:,} bytes", path=str(path))
        return path.read_text("utf-8")
    except FileNotFoundError:
        raise InputError("file not found", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"unreadable: {exc}", path=str(path)) from None


@dataclass(frozen=True)
class Roadmap:
    """Week -> phase as the roadmap's week files say, the CUDA track's first week, and
    week -> the title each week file opens with (its first line)."""

    phase_of_week: dict[int, int]
    cuda_track_start: int | None
    titles: dict[int, str] = field(default_factory=dict)

    @property
    def weeks(self) -> int:
        return len(self.phase_of_week)

    def phase_weeks(self) -> dict[int, tuple[int, int]]:
        """Each phase's first and last week."""
        spans: dict[int, tuple[int, int]] = {}
        for week, phase in sorted(self.phase_of_week.items()):
            first, _ = spans.get(phase, (week, week))
            spans[phase] = (first, week)
        return spans

    def first_week_titled(self, words: str) -> int | None:
        """The first week whose title names ``words`` (case folded); None if none does."""
        return next((w for w, t in sorted(self.titles.items())
                     if words.casefold() in t.casefold()), None)


def read_roadmap(folder: Path) -> Roadmap:
    """Read ``roadmap/``: every ``week-NN.md`` must name exactly one phase."""
    phases: dict[int, int] = {}
    titles: dict[int, str] = {}
    for path in sorted(folder.glob("week-*.md")):
        m = _WEEK_FILE.search(path.name)
        if m is None:
            continue
        text = _read(path)
        found = _PHASE.findall(text)
        if len(found) != 1:
            raise InputError(f"names {len(found)} phases, expected one", path=str(path))
        phases[int(m.group(1))] = int(found[0])
        titles[int(m.group(1))] = text.splitlines()[0] if text else ""
    if not phases:
        raise InputError("no week-NN.md files", path=str(folder))
    cuda = folder / "cuda-track.md"
    start = _CUDA_START.search(_read(cuda)) if cuda.is_file() else None
    return Roadmap(phases, int(start.group(1)) if start else None, titles)


@dataclass(frozen=True)
class GpuIdleLine:
    """nvidia-smi's one-line summary as a system report keeps it."""

    name: str
    temperature_c: int
    perf_state: str
    power_w: float
    memory_usage: str
    utilization_pct: int


_SMI_LINE = re.compile(
    r"GPU \d+: (?P<name>.+?)\s+(?P<temp>\d+)C\s+(?P<perf>P\d+)\s+(?P<power>[\d.]+)W\s+"
    r"Memory-Usage: (?P<mem>.+?)\s+(?P<util>\d+)% util")


def gpu_idle_line(report: Path) -> GpuIdleLine:
    """The ``GPU 0: <name> <temp>C <Pn> <power>W Memory-Usage: ... <util>% util`` line."""
    m = _SMI_LINE.search(_read(report))
    if m is None:
        raise InputError("no nvidia-smi summary line (GPU 0: ... % util)", path=str(report))
    return GpuIdleLine(m["name"], int(m["temp"]), m["perf"], float(m["power"]), m["mem"],
                       int(m["util"]))


def kernel_release(report: Path) -> str:
    """The kernel release ``uname -a`` printed in a system report (its third field)."""
    m = re.search(r"^Linux \S+ (\S+)", _read(report), re.MULTILINE)
    if m is None:
        raise InputError("no uname -a line (Linux <host> <release> ...)", path=str(report))
    return m.group(1)


# An output line the lab's scripts label for the reader: "device: CUDA0 (NVIDIA GB10)".
_LABELLED = re.compile(r"^(?P<label>[A-Za-z][\w .]*?): (?P<value>\S.*)$", re.MULTILINE)


def labelled_outputs(note: Path) -> dict[str, str]:
    """The ``label: value`` lines of a lab note's captured output (the last one wins, as
    the scripts' ``tail -n 1`` does), outside its ``$`` command lines."""
    found: dict[str, str] = {}
    for m in _LABELLED.finditer(_read(note)):
        found[m["label"]] = m["value"].strip()
    return found


# run "label"   'command'  — one inventory step of week-01-environment/inventory.sh.
_RUN = re.compile(r"""^run\s+"(?P<label>[^"]+)"\s+'(?P<command>[^']*)'\s*$""", re.MULTILINE)


def inventory_runs(script: Path) -> list[tuple[str, str]]:
    """The (label, command) of each ``run "label" 'command'`` line of a shell script."""
    return [(m["label"], m["command"]) for m in _RUN.finditer(_read(script))]


def shell_function_one_line(script: Path, name: str) -> str:
    """A shell function of the script written on one line, as a post would print it:
    ``name() { stmt; stmt; }`` with its comments and indentation dropped."""
    text = _read(script)
    m = re.search(rf"^{re.escape(name)}\(\)\s*\{{\n(?P<body>.*?)^\}}", text,
                  re.MULTILINE | re.DOTALL)
    if m is None:
        raise InputError(f"no function {name}() {{ ... }}", path=str(script))
    statements = [line.strip() for line in m["body"].splitlines()
                  if line.strip() and not line.strip().startswith("#")]
    return f"{name}() {{ " + "; ".join(statements) + "; }"


def roadmap_pages(folder: Path) -> dict[int, str]:
    """Week -> the text of its roadmap page (``week-NN.md``), in week order."""
    pages: dict[int, str] = {}
    for path in sorted(folder.iterdir()):
        m = _WEEK_FILE.search(path.name)
        if m is not None:
            pages[int(m.group(1))] = _read(path)
    if not pages:
        raise InputError("no week-NN.md files", path=str(folder))
    return pages


def learn_items(page: str) -> list[str]:
    """The bullet items of a roadmap page's ``## Learn`` section (what the week teaches),
    their ``-`` and backquotes dropped; [] for a page without one."""
    m = re.search(r"^## Learn\s*$(?P<body>.*?)(?=^## |\Z)", page, re.MULTILINE | re.DOTALL)
    if m is None:
        return []
    return [line.strip()[2:].replace("`", "").strip()
            for line in m["body"].splitlines() if line.strip().startswith("- ")]


# "16 query heads and 2 key/value heads", as the roadmap pages and the posts write a
# grouped-query split.
_HEADS = re.compile(r"(\d+) query heads and (\d+) key/value heads")


def stated_head_counts(page: str) -> list[tuple[int, int]]:
    """Each (query heads, key/value heads) pair the text states, in order."""
    return [(int(q), int(kv)) for q, kv in _HEADS.findall(" ".join(page.split()))]


def summary_table(report: Path) -> dict[str, str]:
    """A system report's summary table (``| Component | Value |`` rows) as component ->
    value, cells stripped; InputError where the report has none."""
    rows: dict[str, str] = {}
    for line in _read(report).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (len(cells) == 2 and line.lstrip().startswith("|") and cells[0]
                and not set(cells[0]) <= {"-", ":"} and cells[0] != "Component"):
            rows[cells[0]] = cells[1]
    if not rows:
        raise InputError("no | Component | Value | summary table", path=str(report))
    return rows
