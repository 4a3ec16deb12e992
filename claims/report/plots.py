"""Charts of the report: the rows of ``check.chart(...)`` drawn as small inline SVG.

Each chart kind (see :meth:`claims.check.Check.chart`) has one drawing
function. Drawing uses matplotlib's object API (``Figure`` with the SVG
canvas, never pyplot), so no display, no global state and no GUI backend is
involved. Text stays text (``svg.fonttype = none``) with a generic font family
at the end of the list: the page never needs a font file, and an SVG stays a
few kilobytes. Evidence comes from files, so rows are validated first; a chart
that cannot be drawn raises :class:`ChartError` with a reason the page shows.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from claims.terminal import safe

__all__ = [
    "CHART_KINDS",
    "SOURCE_LABELS",
    "ChartError",
    "caption",
    "nominal_bits",
    "render_chart",
    "svg_with_prefix",
]

CHART_KINDS: dict[str, str] = {
    "ttft": "Cold vs warm time to first token",
    "matmul": "Matrix multiply throughput, CPU vs GPU",
    "bits_per_param": "Bits per parameter against the quantization label",
    "kv_growth": "KV cache size against context length",
    "precisions": "Matrix multiply rate and peak memory per precision",
}

# More rows than this would make an unreadable plot (and a heavy page).
MAX_ROWS = 40

COLD, WARM = "#b8422e", "#2f6fad"
PHASES = (
    ("load_ms", "model load", "#8a6fb0"),
    ("prefill_ms", "prompt prefill", "#d08c2f"),
    ("decode_ms", "decode", "#4f9a6b"),
)
DEVICE_COLORS = {"cpu": "#8a8f94", "gpu": "#1a7f37"}
# One colour per source of a precisions row: the document's recorded run, this machine's.
PRECISION_SOURCES = {"recorded": "#a15c00", "measured": "#2f6fad"}
MEASURED, FORMULA, REFERENCE = "#2f6fad", "#a15c00", "#c62828"

_RC: dict[str, Any] = {
    "svg.fonttype": "none",
    # Fixed salt: the same evidence renders to the same bytes, so reports diff cleanly.
    "svg.hashsalt": "claims-report",
    "font.family": ["sans-serif"],
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10.0,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "legend.frameon": False,
    "legend.fontsize": 8.0,
    "text.usetex": False,
    # Evidence text is shown literally: a '$' must not switch matplotlib into mathtext.
    "text.parse_math": False,
}


class ChartError(ValueError):
    """A chart's rows cannot be drawn (unknown kind, missing or non-numeric values)."""


# --- row validation -----------------------------------------------------------------
def _number(row: Mapping[str, Any], key: str) -> float:
    """A required finite number of a row (bools are not numbers here)."""
    value = _maybe(row, key)
    if value is None:
        raise ChartError(f"row {dict(row)!r:.120}: {key} is not a finite number")
    return value


def _maybe(row: Mapping[str, Any], key: str) -> float | None:
    """An optional number of a row: None when absent or not a finite number."""
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _text(row: Mapping[str, Any], key: str, default: str = "", *, upper: bool = False) -> str:
    """A row's label text, cut to 80 characters and shown through the suite's sanitiser.

    The SVG is inserted into the page as trusted markup, so the page's own
    escaping never sees these labels: a bidi override or an invisible character
    here would reorder or hide what the chart says (a row reading "GPU" for CPU).
    """
    value = row.get(key, default)
    text = (default if value is None else str(value))[:80]
    return safe(text.upper() if upper else text)


def _rows(chart: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    rows = chart.get("rows")
    if not isinstance(rows, list) or not rows:
        raise ChartError("the chart has no rows")
    if not all(isinstance(r, Mapping) for r in rows):
        raise ChartError("chart rows must be objects")
    if len(rows) > MAX_ROWS:
        raise ChartError(f"{len(rows)} rows is more than a readable plot holds ({MAX_ROWS})")
    return rows


def nominal_bits(label: str) -> float | None:
    """The bits per weight a quantization label names: Q4_K_M -> 4, Q8_0 -> 8, BF16 -> 16.

    The label's number is nominal; block scales and mixed tensor types put the
    real figure above it, which is what the bits-per-parameter plot shows.
    """
    match = re.search(r"(?i)(?:^|[^a-z])(?:mxfp|iq|bf|fp|q|f)(\d{1,2})(?![0-9])", label)
    return float(match.group(1)) if match else None


# --- drawing ----------------------------------------------------------------------
def _height(n: int, per_row: float = 0.34, base: float = 1.1) -> float:
    return min(9.0, base + per_row * n)


def _wrap(label: str, width: int = 36) -> str:
    """Long row labels on two lines, so the bars keep most of the figure's width."""
    return "\n".join(textwrap.wrap(label, width, max_lines=2, placeholder="…")) or label


def _annotate_bars(ax: Any, bars: Any, texts: Sequence[str]) -> None:
    for bar, text in zip(bars, texts, strict=True):
        ax.annotate(
            text,
            (bar.get_x() + bar.get_width(), bar.get_y() + bar.get_height() / 2),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )


def _draw_ttft(fig: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    labels, ttft, colors = [], [], []
    for row in rows:
        cold = bool(row.get("cold"))
        label = _text(row, "label", "?")
        # Say cold or warm unless the label already does ("cold (load + request)").
        if not re.search(r"(?i)\b(cold|warm)\b", label):
            label += " (cold)" if cold else " (warm)"
        labels.append(label)
        ttft.append(_number(row, "ttft_ms"))
        colors.append(COLD if cold else WARM)
    split = [[_maybe(row, key) for key, _, _ in PHASES] for row in rows]
    has_split = any(v is not None for phases in split for v in phases)
    axes = fig.subplots(1, 2 if has_split else 1, sharey=True, squeeze=False)[0]
    y = list(range(len(rows)))
    ax = axes[0]
    bars = ax.barh(y, ttft, color=colors, height=0.6)
    _annotate_bars(ax, bars, [f"{v:,.0f} ms" if v >= 10 else f"{v:.3g} ms" for v in ttft])
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("time to first token, client-observed (ms)")
    ax.set_title("Time to first token")
    ax.margins(x=0.25)
    from matplotlib.patches import Patch

    handles = [
        Patch(color=COLD, label="cold (model loaded first)"),
        Patch(color=WARM, label="warm (model resident)"),
    ]
    if has_split:
        ax = axes[1]
        left = [0.0] * len(rows)
        for index, (_, name, color) in enumerate(PHASES):
            if all(phases[index] is None for phases in split):
                continue  # e.g. llama.cpp reports no load time: no empty legend entry
            widths = [phases[index] or 0.0 for phases in split]
            ax.barh(y, widths, left=left, color=color, height=0.6)
            handles.append(Patch(color=color, label=name))
            left = [a + b for a, b in zip(left, widths, strict=True)]
        ax.set_xlabel("server-reported duration (ms)")
        ax.set_title("Where the request's time went")
        ax.tick_params(axis="y", left=False)
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))


def _draw_matmul(fig: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    ax = fig.subplots()
    labels, values, colors, texts = [], [], [], []
    for row in rows:
        device = _text(row, "device", "?")
        precision = _text(row, "precision")
        labels.append(f"{_text(row, 'device', '?', upper=True)} {precision}".strip())
        tflops = _number(row, "tflops")
        ms = _maybe(row, "ms")
        values.append(tflops)
        colors.append(DEVICE_COLORS.get(device.lower(), "#4e5d6c"))
        texts.append(f"{tflops:.3g} TFLOP/s" + (f" · {ms:.3g} ms" if ms is not None else ""))
    y = list(range(len(rows)))
    bars = ax.barh(y, values, color=colors, height=0.6)
    _annotate_bars(ax, bars, texts)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.margins(x=0.35)
    ax.set_xlabel("throughput (TFLOP/s, higher is faster)")
    ax.set_title("Matrix multiply throughput")


def _draw_bits(fig: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    ax = fig.subplots()
    labels, values, nominal = [], [], []
    for row in rows:
        label = _text(row, "label", "?")
        labels.append(_wrap(f"{_text(row, 'file', '?')} · {label}"))
        values.append(_number(row, "bits_per_param"))
        given = _maybe(row, "nominal_bits")
        nominal.append(given if given is not None else nominal_bits(str(row.get("label", ""))))
    y = list(range(len(rows)))
    bars = ax.barh(y, values, color=MEASURED, height=0.6, label="measured bits per parameter")
    _annotate_bars(ax, bars, [f"{v:.3g}" for v in values])
    marked = [(i, n) for i, n in enumerate(nominal) if n is not None]
    if marked:
        ax.vlines(
            [n for _, n in marked],
            [i - 0.42 for i, _ in marked],
            [i + 0.42 for i, _ in marked],
            colors=REFERENCE,
            linewidth=2,
            label="nominal bits of the label",
        )
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlim(0, max(values + [n for _, n in marked]) * 1.2)
    ax.set_xlabel("bits per parameter (bytes x 8 / parameters)")
    ax.set_title("Bits per parameter")
    fig.legend(loc="outside lower center", ncols=2)


def _draw_kv(fig: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    ax = fig.subplots()
    points = []
    for row in rows:
        context = _number(row, "context")
        measured = _maybe(row, "measured_bytes")
        formula = _maybe(row, "formula_bytes")
        if measured is None and formula is None:
            raise ChartError("a kv_growth row has neither measured_bytes nor formula_bytes")
        points.append((context, measured, formula))
    points.sort(key=lambda p: p[0] or 0.0)
    # The document's own values, where the check gave them ("stated_bytes"): drawn beside
    # the formula's, so an erratum about them can be seen.
    stated = sorted(
        (_number(row, "context"), s)
        for row in rows
        if (s := _maybe(row, "stated_bytes")) is not None
    )
    top = max([v for p in points for v in p[1:] if v is not None] + [s for _, s in stated])
    scale, unit = (1024.0**3, "GiB") if top >= 4 * 1024.0**3 else (1024.0**2, "MiB")
    xs_m = [p[0] for p in points if p[1] is not None]
    if xs_m:
        ax.plot(
            xs_m,
            [p[1] / scale for p in points if p[1] is not None],
            marker="o",
            linestyle="-",
            color=MEASURED,
            label="measured",
            linewidth=2.2,
            markersize=5,
        )
    xs_f = [p[0] for p in points if p[2] is not None]
    if xs_f:
        # Drawn on top, thin and dashed: where measured and formula agree both stay visible.
        ax.plot(
            xs_f,
            [p[2] / scale for p in points if p[2] is not None],
            linestyle="--",
            color=FORMULA,
            label="formula",
            linewidth=1.3,
            marker="x",
            markersize=5,
            zorder=3,
        )
    if stated:
        ax.plot(
            [x for x, _ in stated],
            [s / scale for _, s in stated],
            linestyle="none",
            color=REFERENCE,
            label="the document",
            marker="o",
            markerfacecolor="none",
            markersize=7,
            zorder=4,
        )
    both = [(x, m, f) for x, m, f in points if m is not None and f is not None]
    growth = ""
    if len(both) >= 2:
        # Growth is the claim (a loaded size includes the weights, a KV formula does not):
        # compare what each series adds from the shortest to the longest context.
        (x0, m0, f0), (x1, m1, f1) = both[0], both[-1]
        growth = (
            f"\ngrowth from {x0:,.0f} to {x1:,.0f} tokens:"
            f" measured +{(m1 - m0) / scale:,.4g} {unit}, formula +{(f1 - f0) / scale:,.4g} {unit}"
        )
    contexts = [p[0] for p in points if p[0]]
    if contexts and min(contexts) > 0 and max(contexts) / min(contexts) >= 16:
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(sorted(set(contexts))))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        # Log on both axes: a size proportional to the context is a straight line of slope
        # one (on a linear memory axis, log-spaced contexts make linear growth look
        # exponential). A loaded size with the weights in it bends toward flat at the left.
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.4g}"))
        log_log = True
    else:
        log_log = False
    ax.set_xlabel("context length (tokens" + (", log scale)" if log_log else ")") + growth)
    ax.set_ylabel(f"memory ({unit}{', log scale' if log_log else ''})")
    ax.set_title("KV cache growth")
    ax.legend(loc="upper left")
    ax.grid(True, alpha=0.3)


def _draw_precisions(fig: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rate and peak memory per precision: one bar per (precision, run) in two panels.

    A row is one precision of one run: ``label`` names the run (the document's recorded
    one, this machine's), ``source`` says which ("recorded" or "measured"), ``gflops`` its
    rate (GFLOP/s) and ``peak_mib`` its peak memory (MiB), either of which may be absent
    (a run that measured only one of them).
    """
    from matplotlib.ticker import FuncFormatter

    precisions: list[str] = []
    runs: list[tuple[str, str]] = []
    cells: dict[tuple[str, str], tuple[float | None, float | None]] = {}
    for row in rows:
        precision = _text(row, "precision", "?")
        run = (_text(row, "label", "?"), _text(row, "source", "measured"))
        rate, peak = _maybe(row, "gflops"), _maybe(row, "peak_mib")
        if rate is None and peak is None:
            raise ChartError(f"a precisions row ({precision}) has neither gflops nor peak_mib")
        if precision not in precisions:
            precisions.append(precision)
        if run not in runs:
            runs.append(run)
        cells[(precision, run[0])] = (rate, peak)
    has_peak = any(v[1] is not None for v in cells.values())
    axes = fig.subplots(1, 2 if has_peak else 1, squeeze=False)[0]
    height = 0.8 / len(runs)
    panels = [(axes[0], 0, "rate (GFLOP/s, higher is faster)", "Matrix multiply rate")]
    if has_peak:
        panels.append((axes[1], 1, "peak memory (MiB, max_memory_allocated)", "Peak memory"))
    for ax, index, xlabel, title in panels:
        for slot, (label, source) in enumerate(runs):
            ys, values, texts = [], [], []
            for position, precision in enumerate(precisions):
                value = cells.get((precision, label), (None, None))[index]
                if value is None:
                    continue
                ys.append(position - 0.4 + height * (slot + 0.5))
                values.append(value)
                texts.append(f"{value:,.0f}" if value >= 100 else f"{value:.3g}")
            color = PRECISION_SOURCES.get(source, "#4e5d6c")
            bars = ax.barh(ys, values, height=height * 0.9, color=color,
                           label=label if index == 0 else None)
            _annotate_bars(ax, bars, texts)
        ax.set_yticks(range(len(precisions)), [p.upper() for p in precisions])
        ax.invert_yaxis()
        ax.margins(x=0.3)
        # Whole numbers with separators: no "1e6" offset far from the bars it scales.
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_xlabel(xlabel)
        ax.set_title(title)
    fig.legend(loc="outside lower center", ncols=max(1, len(runs)))


_DRAW: dict[
    str,
    tuple[Callable[[Any, Sequence[Mapping[str, Any]]], None], Callable[[int], tuple[float, float]]],
] = {
    "ttft": (_draw_ttft, lambda n: (8.2, _height(n))),
    "matmul": (_draw_matmul, lambda n: (6.4, _height(n, base=1.0))),
    "bits_per_param": (_draw_bits, lambda n: (7.0, _height(n, per_row=0.42, base=1.3))),
    "kv_growth": (_draw_kv, lambda n: (6.0, 3.2)),
    "precisions": (_draw_precisions, lambda n: (8.2, _height(n, per_row=0.3, base=1.6))),
}


# Written into each chart, so a chart copied out of the page still says whose figures it shows.
SOURCE_LABELS: dict[str, str] = {
    "recorded": "The document's own recorded figures (not measured here)",
    "fixture": "Measured here, on bundled or generated files",
    "live": "Measured live on this machine",
}


# What each kind of chart shows, for its caption on the page.
_SHOWS: dict[str, str] = {
    "ttft": "Time to first token of each request, cold (the model loaded first) and warm, "
    "split into the server's own phases where it reports them: a cold request's extra "
    "time is the load.",
    "matmul": "Matrix-multiply throughput (TFLOP/s, higher is faster) per device and "
    "precision, from the same square multiply timed on each.",
    "bits_per_param": "Bits per parameter of each file (its bytes × 8 / its parameters) "
    "beside the nominal width of its quantization label (the red mark). A file sits above "
    "its label: block scales count, and a label names the type of most tensors, not all.",
    "precisions": "Matrix-multiply rate (GFLOP/s, higher is faster) and peak memory (MiB, "
    "torch.cuda.max_memory_allocated) of the same square multiply at FP32, FP16 and BF16: "
    "the document's recorded run beside this machine's where it measured them. The peak is "
    "the three matrices plus the working memory the multiply allocates.",
    "kv_growth": "KV-cache memory against context length. The formula "
    "(2 × layers × KV heads × head dim × bytes per element, per token) grows in proportion "
    "to the context: on the log-log axes used when contexts span 16× or more, a straight "
    "line of slope one.",
}


def caption(chart: Mapping[str, Any]) -> str:
    """What a chart shows, and why a value that looks odd is what it is (from its rows).

    The rows' own ``note`` (a check's explanation of one bar or point) follow the
    kind's sentence; for bits per parameter, a file more than 1.5× its label's nominal
    width is named with the reason its check gave.
    """
    kind = str(chart.get("kind"))
    parts = [_SHOWS.get(kind, CHART_KINDS.get(kind, kind) + ".")]
    rows = [r for r in chart.get("rows") or [] if isinstance(r, Mapping)][:MAX_ROWS]
    if kind == "kv_growth" and any(r.get("stated_bytes") is not None for r in rows):
        parts.append("The circles are the document's printed values; where they leave the "
                     "formula's line is what its erratum is about.")
    notes = []
    for row in rows:
        note = row.get("note")
        if not isinstance(note, str) or not note:
            continue
        note = note[:300]
        if kind == "bits_per_param":
            value = row.get("bits_per_param")
            nominal = nominal_bits(str(row.get("label", "")))
            if isinstance(value, (int, float)) and nominal and value > 1.5 * nominal:
                note = (f"{_text(row, 'file', '?')} is at {value:.2f} bits against a nominal "
                        f"{nominal:g} because {note}")
        notes.append(note.rstrip(".") + ".")
    parts.extend(dict.fromkeys(notes))
    return safe(" ".join(parts))


def render_chart(chart: Mapping[str, Any], source: str | None = None) -> str:
    """SVG markup (no XML prolog, no metadata) for one chart of the evidence.

    ``source`` (the check's evidence source) labels the chart inside the image. A chart
    drawn before from the same rows, by the same drawing code and matplotlib, is read
    back from the suite's cache folder instead (:func:`_cached`).
    """
    kind = chart.get("kind")
    if kind not in _DRAW:
        raise ChartError(f"unknown chart kind {kind!r} (known: {', '.join(_DRAW)})")
    rows = _rows(chart)
    key = _chart_key(chart, source)
    svg = _cached(key)
    if svg is None:
        svg = _draw_chart(str(kind), rows, source)
        _keep(key, svg)
    return svg


# Drawing is the report's largest cost: importing matplotlib and drawing the offline
# tier's six charts took a fifth of a repeated certification's CPU time, for charts
# of the same recorded rows every time (issue 51). The same rows drawn by the same code
# give the same bytes (svg.hashsalt is fixed), so a drawn chart is kept in the suite's
# cache folder under a digest of its rows, its source, this module's code and
# matplotlib's version, and read back in its place; any of those changed is a new key.
# The folder keeps the newest MAX_CACHED charts (live runs draw new rows each time).
MAX_CACHED = 256
MAX_CACHED_BYTES = 2 * 1024 * 1024


@lru_cache(maxsize=1)
def _drawing_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        matplotlib_version = version("matplotlib")
    except PackageNotFoundError:
        matplotlib_version = "absent"
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return f"{code} matplotlib {matplotlib_version}"


def _chart_key(chart: Mapping[str, Any], source: str | None) -> str:
    what = json.dumps({"chart": chart, "source": source, "drawn by": _drawing_version()},
                      sort_keys=True, ensure_ascii=True, default=repr)
    return hashlib.sha256(what.encode("ascii")).hexdigest()


def _charts_dir() -> Path | None:
    from claims.probes.files.artifacts import CacheUnwritable, cache_dir

    try:
        return cache_dir() / "charts"
    except CacheUnwritable:
        return None  # no cache: every chart is drawn, as before


def _cached(key: str) -> str | None:
    """The chart kept under ``key``, or None (none kept, or not a chart this module wrote)."""
    folder = _charts_dir()
    if folder is None:
        return None
    try:
        with (folder / f"{key}.svg").open("rb") as fh:
            raw = fh.read(MAX_CACHED_BYTES + 1)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    # What _draw_chart returns, whole: an SVG element and nothing around it.
    if len(raw) > MAX_CACHED_BYTES or not text.startswith("<svg") or not text.endswith("</svg>"):
        return None
    return text


def _keep(key: str, svg: str) -> None:
    """Keep a drawn chart (best effort: a cache that cannot be written only costs time)."""
    folder = _charts_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{key}.{os.getpid()}.tmp"
        tmp.write_text(svg, encoding="utf-8")
        os.replace(tmp, folder / f"{key}.svg")
        kept = sorted(folder.glob("*.svg"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-MAX_CACHED]:
            old.unlink(missing_ok=True)
    except OSError:
        return


def _draw_chart(kind: str, rows: list[Mapping[str, Any]], source: str | None) -> str:
    import matplotlib
    from matplotlib.figure import Figure

    draw, size = _DRAW[kind]
    rc: Any = _RC  # matplotlib types rc keys as a Literal union; these are all valid keys
    with matplotlib.rc_context(rc):
        fig = Figure(figsize=size(len(rows)), layout="constrained")
        draw(fig, rows)
        if source == "recorded":
            _say_recorded(fig)
        if source is not None:
            label = SOURCE_LABELS.get(source, f"evidence source: {safe(source)}")
            fig.suptitle(label, x=0.01, ha="left", fontsize=8.0, fontweight="normal",
                         color="#8a4b00" if source == "recorded" else "#1a5e2a")
        buffer = io.StringIO()
        fig.savefig(
            buffer,
            format="svg",
            metadata={"Date": None, "Creator": None, "Format": None, "Type": None},
        )
    return _clean(buffer.getvalue())


_MEASURED_WORD = re.compile(r"\bmeasured\b")


def _say_recorded(fig: Any) -> None:
    """A chart of the document's own figures: its labels say "recorded", never "measured"."""
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        shown = text.get_text()
        if _MEASURED_WORD.search(shown):
            text.set_text(_MEASURED_WORD.sub("recorded", shown))


_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)


def _clean(svg: str) -> str:
    """Drop the XML prolog, DOCTYPE and RDF metadata (the page needs neither)."""
    svg = _PROLOG.sub("", svg, count=1)
    return _METADATA.sub("", svg, count=1).strip()


_ID = re.compile(r'\bid="([^"]+)"')


def svg_with_prefix(svg: str, prefix: str) -> str:
    """The same SVG with every id (and reference to it) prefixed.

    Several SVGs inlined in one page share one id namespace; matplotlib names
    groups ``figure_1``, ``axes_1``... in every plot, and a plot shown twice
    (beside its claim and in the Figures section) would repeat its clip-path ids.
    """
    ids = set(_ID.findall(svg))
    if not ids:
        return svg

    def rename(match: re.Match[str]) -> str:
        quote_or_paren, name = match.group(1), match.group(2)
        return f"{quote_or_paren}{prefix}{name}" if name in ids else match.group(0)

    svg = re.sub(r'(\bid=")([^"]+)', rename, svg)
    svg = re.sub(r"(url\(#)([^)]+)", rename, svg)
    return re.sub(r'(href="#)([^"]+)', rename, svg)
