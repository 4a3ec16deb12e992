"""Week 5's tensors: the floating formats from their bit layouts, a tensor's bytes, the
matmul benchmark's arithmetic, and the lab's records read field by field.

Nothing here needs torch. The formats are decoded from their IEEE 754 bit patterns with
the standard library (``struct`` knows binary32 and binary16; bfloat16 is the upper half
of a binary32), so the offline tier decides the byte and format claims on a machine
without torch, and a test compares ``torch.finfo`` with the same values where torch is
installed. Units: bytes (B), MiB (2**20 B), milliseconds, GFLOP/s (1e9 FLOP per second).

The benchmark's records (``results.json``, ``model-run.yaml``) are read into typed
records; a missing, malformed or wrongly typed field raises :class:`InputError` naming
the file and the field. ``model-run.yaml`` is read by a small reader of the YAML it
uses (nested mappings, plain or quoted scalars, flow lists, folded ``>-`` blocks), not a
YAML library: anything else it refuses, naming the line.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from claims.probes.errors import InputError

__all__ = [
    "FORMATS",
    "MIB",
    "FloatFormat",
    "MatmulRow",
    "MatmulRun",
    "TensorReport",
    "built_shapes",
    "cpu_iterations",
    "gflops",
    "literal_tensors",
    "matmul_flops",
    "parse_report",
    "payload_bytes",
    "read_model_run",
    "read_results",
    "script_defaults",
    "tensor_bytes",
    "written_fields",
]

MIB = 1024**2


# ---- the formats ----------------------------------------------------------------
@dataclass(frozen=True)
class FloatFormat:
    """A binary floating format: sign bit, ``exponent_bits``, ``fraction_bits``.

    Values are decoded from bit patterns by ``struct`` (``struct_code`` "f" binary32,
    "e" binary16); a format without a code (bfloat16) is the upper half of a binary32.
    """

    name: str
    exponent_bits: int
    fraction_bits: int
    struct_code: str | None

    @property
    def bits(self) -> int:
        return 1 + self.exponent_bits + self.fraction_bits

    @property
    def element_bytes(self) -> int:
        """Bytes one element takes: the packed size ``struct`` gives, or bits / 8."""
        if self.struct_code is not None:
            return struct.calcsize("<" + self.struct_code)
        return self.bits // 8

    def decode(self, pattern: int) -> float:
        """The value of a bit pattern of this format."""
        if not 0 <= pattern < 1 << self.bits:
            raise ValueError(f"{pattern:#x} is not a {self.bits}-bit pattern")
        if self.struct_code is None:
            # The upper bits of a binary32: the rest of its fraction is zero.
            shift = 32 - self.bits
            return float(struct.unpack("<f", struct.pack("<I", pattern << shift))[0])
        raw = pattern.to_bytes(self.element_bytes, "little")
        return float(struct.unpack("<" + self.struct_code, raw)[0])

    def encode(self, value: float) -> int:
        """The bit pattern ``struct`` packs ``value`` to (bfloat16: binary32's upper bits,
        for a value binary32 holds exactly in its top bits, as 1.0)."""
        if self.struct_code is None:
            (word,) = struct.unpack("<I", struct.pack("<f", value))
            return int(word) >> (32 - self.bits)
        return int.from_bytes(struct.pack("<" + self.struct_code, value), "little")

    def packed_split(self) -> tuple[int, int]:
        """(exponent bits, fraction bits) read off the packed 1.0, not the declared layout:
        1.0 is the biased exponent 0b01...1 with a zero fraction, so its lowest set bit is
        the exponent's lowest, and the zeros below it are the fraction."""
        one = self.encode(1.0)
        fraction = (one & -one).bit_length() - 1
        return self.bits - 1 - fraction, fraction

    @property
    def _bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def one(self) -> int:
        """The bit pattern of 1.0 (biased exponent zero, fraction zero)."""
        return self._bias << self.fraction_bits

    @property
    def largest(self) -> float:
        """The largest finite value: the highest exponent below all-ones, fraction all ones
        (torch.finfo's ``max``)."""
        exponent = (1 << self.exponent_bits) - 2
        return self.decode((exponent << self.fraction_bits) | ((1 << self.fraction_bits) - 1))

    @property
    def step_near_one(self) -> float:
        """The gap between 1 and the next value up (torch.finfo's ``eps``)."""
        return self.decode(self.one + 1) - self.decode(self.one)


# IEEE 754 binary32 and binary16; bfloat16 keeps binary32's sign and 8 exponent bits and
# the top 7 of its 23 fraction bits.
FORMATS: dict[str, FloatFormat] = {
    "fp32": FloatFormat("float32", 8, 23, "f"),
    "fp16": FloatFormat("float16", 5, 10, "e"),
    "bf16": FloatFormat("bfloat16", 8, 7, None),
}


# ---- bytes and FLOPs ------------------------------------------------------------
def tensor_bytes(shape: Sequence[int], element_bytes: int) -> int:
    """Bytes of a dense tensor: element count times bytes per element (a scalar has one)."""
    return math.prod(shape) * element_bytes


def payload_bytes(n: int, element_bytes: int, matrices: int = 3) -> int:
    """Bytes of ``matrices`` n-by-n matrices (a matmul's two operands and its product)."""
    return matrices * tensor_bytes((n, n), element_bytes)


def matmul_flops(n: int) -> int:
    """Floating-point operations of an n-by-n matmul: n³ multiplies and n³ adds."""
    return 2 * n**3


def gflops(n: int, seconds: float) -> float:
    """The rate of one n-by-n matmul taking ``seconds``, in GFLOP/s."""
    return matmul_flops(n) / seconds / 1e9


# ---- what tensor_basics.py prints -----------------------------------------------
@dataclass(frozen=True)
class TensorReport:
    """One ``describe()`` line of tensor_basics.py: rank, shape, dtype, bytes, device."""

    name: str
    rank: int
    shape: tuple[int, ...]
    dtype: str
    element_bytes: int
    total_bytes: int
    device: str


_REPORT = re.compile(
    r"(?P<name>\S+)\s+rank=(?P<rank>\d+) shape=\((?P<shape>[\d, ]*)\) dtype=(?P<dtype>\w+) "
    r"elem=(?P<elem>\d+)B total=(?P<total>\d+)B dev=(?P<dev>\S+)\Z")


def parse_report(line: str) -> TensorReport | None:
    """A ``describe()`` line, or None when the line is not one."""
    m = _REPORT.match(line.strip())
    if m is None:
        return None
    shape = tuple(int(p) for p in m["shape"].replace(" ", "").split(",") if p)
    return TensorReport(m["name"], int(m["rank"]), shape, m["dtype"], int(m["elem"]),
                        int(m["total"]), m["dev"])


def built_shapes(source: str, where: str = "tensor_basics.py") -> dict[str, tuple[int, ...]]:
    """The shape of each tensor the script describes, read from its source: for each
    ``describe("name", x)`` call, the shape of the ``torch.tensor``/``zeros``/``ones``
    that made ``x`` (a literal's nesting, or the size arguments); a describe call whose
    name is computed (the loop over precisions) is keyed ``"*"``."""
    tree = _tree(source, where)
    made: dict[str, tuple[int, ...]] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            shape = _made_shape(node.value)
            if shape is not None:
                made.setdefault(node.targets[0].id, shape)
    out: dict[str, tuple[int, ...]] = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "describe" and len(node.args) == 2):
            label, arg = node.args
            key = label.value if isinstance(label, ast.Constant) and isinstance(
                label.value, str) else "*"
            shape = made.get(arg.id) if isinstance(arg, ast.Name) else _made_shape(arg)
            if shape is None:
                raise InputError(f"{where}: cannot tell the shape of {ast.unparse(arg)!r}")
            out[key] = shape
    return out


def _made_shape(node: ast.expr) -> tuple[int, ...] | None:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"):
        return None
    if node.func.attr in ("zeros", "ones", "empty", "randn"):
        sizes = [a.value for a in node.args
                 if isinstance(a, ast.Constant) and isinstance(a.value, int)]
        return tuple(sizes) if len(sizes) == len(node.args) else None
    if node.func.attr == "tensor" and node.args:
        try:
            data = ast.literal_eval(node.args[0])
        except ValueError:
            return None
        shape: list[int] = []
        while isinstance(data, list):
            shape.append(len(data))
            data = data[0] if data else None
        return tuple(shape)
    return None


def literal_tensors(source: str, where: str = "tensor_basics.py") -> dict[str, Any]:
    """The values of the tensors the script builds from literals (``x = torch.tensor([..])``),
    by variable name, and of those it fills (``torch.ones(2, 3)`` as nested lists)."""
    out: dict[str, Any] = {}
    for node in ast.walk(_tree(source, where)):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        call = node.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        shape = _made_shape(call)
        if call.func.attr == "tensor" and shape is not None:
            out[node.targets[0].id] = ast.literal_eval(call.args[0])
        elif call.func.attr in ("ones", "zeros") and shape is not None:
            fill = 1.0 if call.func.attr == "ones" else 0.0
            value: Any = fill
            for size in reversed(shape):
                value = [value] * size
            out[node.targets[0].id] = value
    return out


# ---- the benchmark script, read without running it -------------------------------
def _tree(source: str, where: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError as exc:
        raise InputError(f"{where}: not Python ({exc.msg}, line {exc.lineno})") from None


def script_defaults(source: str, where: str = "benchmark_matmul.py") -> dict[str, Any]:
    """The ``default=`` of each ``add_argument("--name", ...)`` call (name without dashes)."""
    found: dict[str, Any] = {}
    for node in ast.walk(_tree(source, where)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            for kw in node.keywords:
                if kw.arg == "default" and isinstance(kw.value, ast.Constant):
                    found[node.args[0].value.lstrip("-").replace("-", "_")] = kw.value.value
    return found


def _assigned(tree: ast.Module, name: str, where: str) -> ast.expr:
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name):
            return node.value
    raise InputError(f"{where}: assigns no {name!r}")


# What the readers of the script's arithmetic evaluate: numbers, the names each binds,
# these operators and max/min; anything else is an InputError naming the expression.
_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}


def _evaluate(node: ast.expr, bound: Callable[[ast.expr], float | None], where: str,
              what: str) -> float:
    """The value of the script's expression ``node``, ``bound`` giving each name's value
    (None: not one it binds); ``what`` says whose expression it is, for the error."""
    def value(node: ast.expr) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not (
                isinstance(node.value, bool)):
            return node.value
        named = bound(node)
        if named is not None:
            return named
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = value(node.left), value(node.right)
            try:
                return _OPERATORS[type(node.op)](left, right)
            except ZeroDivisionError:
                pass
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("max", "min") and node.args and not node.keywords):
            args = [value(a) for a in node.args]
            return max(args) if node.func.id == "max" else min(args)
        raise InputError(f"{where}: {what} {ast.unparse(node)!r}, which this reader does "
                         "not evaluate")

    result: float = value(node)
    return result


def cpu_iterations(source: str, iters: int, where: str = "benchmark_matmul.py") -> int:
    """How many CPU matmuls the script times for ``--iters iters``: its ``cpu_iters``
    expression, evaluated with ``args.iters`` = ``iters`` (a whole number)."""
    expr = _assigned(_tree(source, where), "cpu_iters", where)
    count = _evaluate(
        expr, lambda n: iters if isinstance(n, ast.Attribute) and n.attr == "iters" else None,
        where, "cpu_iters is computed by")
    if type(count) is not int:
        raise InputError(f"{where}: cpu_iters is computed by {ast.unparse(expr)!r}, which is "
                         f"not a whole number ({count!r})")
    return count


def cpu_warmup(source: str, where: str = "benchmark_matmul.py") -> int:
    """The warmup the script gives its CPU timing: the last argument of the call whose
    result it names ``cpu_s`` (``time_matmul(a_cpu, b_cpu, cpu_iters, 1)``), a whole number."""
    call = _assigned(_tree(source, where), "cpu_s", where)
    if (isinstance(call, ast.Call) and call.args and isinstance(call.args[-1], ast.Constant)
            and type(call.args[-1].value) is int):
        return call.args[-1].value
    raise InputError(f"{where}: cpu_s is computed by {ast.unparse(call)!r}, whose last "
                     "argument is not a whole number")


def script_gflops(source: str, size: int, seconds: float,
                  where: str = "benchmark_matmul.py") -> float:
    """What the script's ``gflops(size, seconds)`` returns, from its source: its one return
    expression evaluated with those two names bound."""
    func = next((node for node in ast.walk(_tree(source, where))
                 if isinstance(node, ast.FunctionDef) and node.name == "gflops"), None)
    body = func.body if func is not None else []
    if not (len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None):
        raise InputError(f"{where}: no gflops() that returns one expression")
    names: dict[str, float] = {"size": size, "seconds": seconds}
    return float(_evaluate(
        body[0].value, lambda n: names.get(n.id) if isinstance(n, ast.Name) else None,
        where, "gflops() computes"))


def written_fields(source: str, name: str, where: str = "benchmark_matmul.py") -> list[str]:
    """The keys of the dict literal the script assigns to ``name`` (``payload``, ``row``)."""
    expr = _assigned(_tree(source, where), name, where)
    if not isinstance(expr, ast.Dict):
        raise InputError(f"{where}: {name} is not a dict literal")
    keys = [k.value for k in expr.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if len(keys) != len(expr.keys):
        raise InputError(f"{where}: {name} has keys that are not plain strings")
    return keys


# ---- the records: results.json and model-run.yaml ---------------------------------
@dataclass(frozen=True)
class MatmulRow:
    """One precision's row of results.json: median ms, GFLOP/s and peak MiB as printed."""

    precision: str
    median_ms: Decimal
    gflops: Decimal
    peak_mib: Decimal


@dataclass(frozen=True)
class MatmulRun:
    """results.json, every field the claims read, typed (numbers kept as printed)."""

    path: str
    captured_date: str
    device: str
    torch: str
    cuda_runtime: str
    dtype_bytes: dict[str, int]
    size: int
    warmup: int
    gpu_iters: int
    cpu_iters: int
    run_device: str
    rows: tuple[MatmulRow, ...]
    cpu_fp32_ms: Decimal
    gpu_speedup_fp32: Decimal | None
    fields: tuple[str, ...]  # every field path the file holds, for the annotation claim
    matmul_fields: tuple[str, ...]  # the keys of its matmul object

    def row(self, precision: str) -> MatmulRow:
        for row in self.rows:
            if row.precision == precision:
                return row
        raise InputError(f"{self.path}: matmul.precisions has no {precision!r} row")


class _Fields:
    """Typed access to a parsed document, each error naming the file and the field."""

    def __init__(self, where: str, data: Any) -> None:
        self.where = where
        self.data = data

    def _get(self, path: str) -> Any:
        node = self.data
        walked: list[str] = []
        for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
            if part.startswith("["):
                index = int(part[1:-1])
                if not isinstance(node, list) or index >= len(node):
                    raise InputError(f"{self.where}: field {''.join(walked)}{part} is missing")
                node = node[index]
                walked.append(part)
                continue
            name = ("." if walked else "") + part
            if not isinstance(node, dict):
                raise InputError(f"{self.where}: field {''.join(walked)} must be an object")
            if part not in node:
                raise InputError(f"{self.where}: field {''.join(walked)}{name} is missing")
            node = node[part]
            walked.append(name)
        return node

    def text(self, path: str) -> str:
        value = self._get(path)
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{self.where}: field {path} must be a non-empty string, "
                             f"got {_shown(value)}")
        return value

    def count(self, path: str) -> int:
        value = self._get(path)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(f"{self.where}: field {path} must be a whole number, "
                             f"got {_shown(value)}")
        return value

    def number(self, path: str, *, optional: bool = False) -> Decimal | None:
        value = self._get(path)
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)) or (
                isinstance(value, Decimal) and not value.is_finite()):
            raise InputError(f"{self.where}: field {path} must be a number, got {_shown(value)}")
        return Decimal(value)

    def positive(self, path: str) -> Decimal:
        value = self.number(path)
        assert value is not None
        if value <= 0:
            raise InputError(f"{self.where}: field {path} must be positive, got {value}")
        return value

    def items(self, path: str) -> list[Any]:
        value = self._get(path)
        if not isinstance(value, list) or not value:
            raise InputError(f"{self.where}: field {path} must be a non-empty list, "
                             f"got {_shown(value)}")
        return value


def _shown(value: Any) -> str:
    """A value for an error message: its type and a short repr (file text is untrusted)."""
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    kind = "null" if value is None else type(value).__name__
    return f"{kind} {text}".encode("ascii", "backslashreplace").decode("ascii")


def _paths(value: Any, prefix: str = "") -> list[str]:
    if isinstance(value, dict):
        out: list[str] = []
        for key, item in value.items():
            out += _paths(item, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
        return sorted({p for item in value for p in _paths(item, prefix + "[]")})
    return [prefix]


def read_results(path: Path) -> MatmulRun:
    """results.json of the Week 5 lab, checked field by field (InputError names the field)."""
    where = str(path)
    try:
        data = json.loads(path.read_text("utf-8"), parse_float=Decimal,
                          parse_constant=lambda c: c)
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: cannot read ({exc})") from None
    except ValueError as exc:
        raise InputError(f"{where}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: not a JSON object")
    f = _Fields(where, data)
    rows = []
    for i, _ in enumerate(f.items("matmul.precisions")):
        at = f"matmul.precisions[{i}]"
        rows.append(MatmulRow(f.text(f"{at}.precision"), f.positive(f"{at}.median_ms"),
                              f.positive(f"{at}.gflops"), f.positive(f"{at}.peak_mib")))
    dtype_bytes = {name: f.count(f"dtype_bytes.{name}") for name in ("float32", "float16",
                                                                      "bfloat16")}
    matmul = f._get("matmul")
    return MatmulRun(
        path=where,
        captured_date=f.text("captured_date"),
        device=f.text("hardware.device"),
        torch=f.text("hardware.torch"),
        cuda_runtime=f.text("hardware.cuda_runtime"),
        dtype_bytes=dtype_bytes,
        size=f.count("matmul.size"),
        warmup=f.count("matmul.warmup"),
        gpu_iters=f.count("matmul.gpu_iters"),
        cpu_iters=f.count("matmul.cpu_iters"),
        run_device=f.text("matmul.device"),
        rows=tuple(rows),
        cpu_fp32_ms=f.positive("matmul.cpu_fp32_ms"),
        gpu_speedup_fp32=f.number("matmul.gpu_speedup_fp32", optional=True),
        fields=tuple(_paths(data)),
        matmul_fields=tuple(matmul),
    )


# model-run.yaml: the fields the claims read, and the type each must have.
MODEL_RUN_FIELDS: Mapping[str, str] = {
    "environment.version": "text",
    "environment.command": "text",
    "hardware.device": "text",
    "hardware.memory": "text",
    "hardware.driver": "text",
    "hardware.cuda": "text",
    "workload.size": "count",
    "workload.precisions": "list",
    "results.gpu_fp32_median_ms": "number",
    "results.gpu_fp16_median_ms": "number",
    "results.gpu_bf16_median_ms": "number",
    "results.gpu_fp32_gflops": "number",
    "results.cpu_fp32_median_ms": "number",
    "results.gpu_speedup_fp32": "number",
    "results.fp32_peak_mib": "number",
    "results.fp16_peak_mib": "number",
    "notes": "text",
}


def _scalar(text: str, where: str) -> Any:
    """A YAML scalar as model-run.yaml writes them: quoted text stays text, digits are
    numbers (kept as printed), anything else plain text."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text.startswith("["):
        if not text.endswith("]"):
            raise InputError(f"{where}: an unclosed flow list {text!r}")
        inner = text[1:-1].strip()
        return [_scalar(p.strip(), where) for p in inner.split(",")] if inner else []
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d*(?:[eE][-+]?\d+)?", text):
        try:
            return Decimal(text)
        except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
            raise InputError(f"{where}: not a number {text!r}") from None
    return text


def _yaml(text: str, where: str) -> dict[str, Any]:
    """Nested mappings of scalars, flow lists and folded (``>-``) blocks, two spaces a level."""
    root: dict[str, Any] = {}
    stack: list[tuple[int, dict[str, Any]]] = [(-1, root)]
    folded: tuple[dict[str, Any], str, int] | None = None
    parts: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        at = f"{where}, line {number}"
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        if "\t" in raw[:indent + 1]:
            raise InputError(f"{at}: a tab in the indentation")
        if folded is not None:
            if indent > folded[2]:
                parts.append(raw.strip())
                continue
            folded[0][folded[1]] = " ".join(parts)
            folded, parts = None, []
        key, sep, rest = raw.strip().partition(":")
        if not sep or not re.fullmatch(r"[A-Za-z_][\w-]*", key) or (rest and rest[0] != " "):
            raise InputError(f"{at}: not a 'key: value' line this reader knows")
        while stack and indent <= stack[-1][0]:
            stack.pop()
        parent = stack[-1][1]
        if key in parent:
            raise InputError(f"{at}: {key} given twice")
        value = rest.strip()
        if value in (">-", ">", "|", "|-"):
            folded = (parent, key, indent)
        elif not value:
            child: dict[str, Any] = {}
            parent[key] = child
            stack.append((indent, child))
        else:
            parent[key] = _scalar(value, at)
    if folded is not None:
        folded[0][folded[1]] = " ".join(parts)
    return root


def read_model_run(path: Path) -> dict[str, Any]:
    """model-run.yaml, with every field of :data:`MODEL_RUN_FIELDS` checked for its type:
    a flat ``{"hardware.driver": "580.159.03", ...}`` (numbers as Decimal, as printed)."""
    where = str(path)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{where}: cannot read ({exc})") from None
    f = _Fields(where, _yaml(text, where))
    out: dict[str, Any] = {}
    for field, kind in MODEL_RUN_FIELDS.items():
        if kind == "text":
            value = f._get(field)
            # An unquoted version (13.0) is a number to YAML; the record means its text.
            out[field] = str(value) if isinstance(value, (int, Decimal)) and not isinstance(
                value, bool) else f.text(field)
        elif kind == "count":
            out[field] = f.count(field)
        elif kind == "number":
            out[field] = f.positive(field)
        else:
            out[field] = [str(v) for v in f.items(field)]
    return out
