"""The KV cache: what llama.cpp allocates, and the formula from the file's metadata.

* :func:`allocate_kv_cache` - the KV-cache bytes llama.cpp allocates for a
  context of ``n_ctx`` tokens, as it reports them (MiB with two decimals):
  :class:`KVAllocation`, one :class:`KVCachePart` per cache.
* :class:`KVShape` - the formula's inputs read from a GGUF header, and the
  formula in bytes: as the masterclass writes it (every layer keeps the whole
  context) and aware of sliding windows (window layers keep only their window).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from claims.probes.arithmetic.memory import bits_per_weight, kv_cache_bytes_split
from claims.probes.errors import InputError, ProbeError
from claims.probes.files.gguf_file import GGUFHeader
from claims.probes.live.engine.runtime import LlamaLog, llama_cpp_module

__all__ = [
    "ARCH_SWA_PERIOD",
    "KV_MIB_HALF_UNIT",
    "MIB",
    "SWA_CELL_PAD",
    "KVAllocation",
    "KVCachePart",
    "KVShape",
    "allocate_kv_cache",
    "element_bytes",
    "parse_kv_log",
]

MIB = 1024 * 1024
# llama.cpp prints KV sizes in MiB with two decimals ("%7.2f MiB"), so a printed
# size stands for anything within half a hundredth of a MiB.
KV_MIB_HALF_UNIT = 0.005
# llama.cpp pads the sliding-window cache to a multiple of 256 cells
# (src/llama-kv-cache-iswa.cpp: "the SWA cache is always padded to 256").
SWA_CELL_PAD = 256
# Architectures whose sliding-window layer pattern llama.cpp hard-codes rather
# than reading from the file (src/llama-model.cpp, set_swa_pattern(n): layer il
# slides unless il % n == n - 1). Gemma 3: five local layers, then one global.
ARCH_SWA_PERIOD: dict[str, int] = {"gemma3": 6}


# --- what llama.cpp allocates ------------------------------------------------------


@dataclass(frozen=True)
class KVCachePart:
    """One KV cache llama.cpp created: cells, layers, element types, size in MiB."""

    owner: str
    size_mib: float
    cells: int | None
    layers: int | None
    k_type: str
    k_mib: float
    v_type: str
    v_mib: float


@dataclass(frozen=True)
class KVAllocation:
    """The KV cache(s) of one llama.cpp context, as llama.cpp reported them."""

    n_ctx: int
    n_ubatch: int
    swa_full: bool
    parts: tuple[KVCachePart, ...]
    log: tuple[str, ...]

    @property
    def total_mib(self) -> float:
        return sum(p.size_mib for p in self.parts)

    @property
    def bytes_low(self) -> float:
        """Smallest byte count consistent with the printed MiB figures."""
        return sum(max(0.0, p.size_mib - KV_MIB_HALF_UNIT) for p in self.parts) * MIB

    @property
    def bytes_high(self) -> float:
        return sum(p.size_mib + KV_MIB_HALF_UNIT for p in self.parts) * MIB

    def agrees_with(self, n_bytes: float) -> bool:
        """Whether an exact byte count rounds to the printed sizes."""
        return self.bytes_low <= n_bytes <= self.bytes_high


_KV_SIZE_RE = re.compile(
    r"(?P<owner>llama_kv_cache\w*|llama_new_context_with_model):\s+(?:KV self )?size\s*=\s*"
    r"(?P<mib>\d+(?:\.\d+)?) MiB"
    r"(?:\s*\(\s*(?P<cells>\d+) cells,\s*(?P<layers>\d+) layers,[^)]*\))?"
    r",\s*K \((?P<ktype>\w+)\):\s*(?P<kmib>\d+(?:\.\d+)?) MiB"
    r",\s*V \((?P<vtype>\w+)\):\s*(?P<vmib>\d+(?:\.\d+)?) MiB"
)


def parse_kv_log(lines: list[str] | tuple[str, ...]) -> tuple[KVCachePart, ...]:
    """The KV-cache size lines of a llama.cpp context log.

    Current llama.cpp prints one line per cache ("llama_kv_cache: size = 6.00
    MiB (2048 cells, 3 layers, 1/1 seqs), K (f16): 3.00 MiB, V (f16): 3.00
    MiB"; a sliding-window model has two caches); older builds printed one
    "KV self size" line without cells and layers. Both are read.
    """
    parts = []
    for line in lines:
        m = _KV_SIZE_RE.search(line)
        if m is None:
            continue
        parts.append(
            KVCachePart(
                owner=m["owner"],
                size_mib=float(m["mib"]),
                cells=int(m["cells"]) if m["cells"] else None,
                layers=int(m["layers"]) if m["layers"] else None,
                k_type=m["ktype"],
                k_mib=float(m["kmib"]),
                v_type=m["vtype"],
                v_mib=float(m["vmib"]),
            )
        )
    return tuple(parts)


def allocate_kv_cache(
    model: Any, n_ctx: int, *, n_batch: int, n_threads: int, swa_full: bool
) -> KVAllocation:
    """Create (and free) a context of ``n_ctx`` tokens on a loaded model; return its KV caches.

    ``model`` is the ``llama_model`` pointer of a loaded model; the micro-batch
    is the batch. Read from llama.cpp's log on purpose: its C API has no call
    for the allocated KV size (``llama_get_memory_breakdown`` is C++-only and
    not exported with C linkage; ``llama_state_get_size`` counts the cells in
    use, not the allocation), so the INFO line llama.cpp prints when it
    creates each cache is the one source.
    """
    lib = llama_cpp_module()
    params = lib.llama_context_default_params()
    params.n_ctx = n_ctx
    params.n_batch = n_batch
    params.n_ubatch = n_batch
    params.n_threads = n_threads
    params.n_threads_batch = n_threads
    params.flash_attn_type = lib.LLAMA_FLASH_ATTN_TYPE_DISABLED
    params.swa_full = swa_full
    params.no_perf = True
    with LlamaLog() as log:
        ctx = lib.llama_init_from_model(model, params)
        if not ctx:
            raise ProbeError(f"llama.cpp could not create a context of {n_ctx} tokens")
        try:
            actual = int(lib.llama_n_ctx(ctx))
        finally:
            lib.llama_free(ctx)
    lines = tuple(log.lines)
    parts = parse_kv_log(lines)
    if not parts:
        raise ProbeError(
            "llama.cpp printed no KV-cache size line for the new context "
            "(its log format may have changed)"
        )
    return KVAllocation(
        n_ctx=actual,
        n_ubatch=n_batch,
        swa_full=swa_full,
        parts=parts,
        log=tuple(ln for ln in lines if "kv" in ln.lower() or "context" in ln),
    )


# --- the formula side: the file's own metadata -----------------------------------


@dataclass(frozen=True)
class KVShape:
    """What the KV-cache formula needs, read from the file's metadata.

    ``swa_layers`` marks the layers that attend over a sliding window of
    ``sliding_window`` tokens (None when the file has no window);
    ``swa_source`` says where the per-layer pattern came from.
    """

    architecture: str
    layers: int
    kv_heads: tuple[int, ...]
    key_length: int
    value_length: int
    sliding_window: int | None
    swa_layers: tuple[bool, ...] | None
    swa_source: str

    @classmethod
    def from_header(cls, header: GGUFHeader) -> KVShape:
        """The formula's inputs from a header
        (:func:`claims.probes.files.gguf_file.read_header`)."""
        arch = header.get("general.architecture")
        if not isinstance(arch, str):
            raise InputError(
                "no general.architecture key", path=str(header.path), field="general.architecture"
            )

        def arch_key(suffix: str) -> Any:
            return header.get(f"{arch}.{suffix}")

        def need_int(suffix: str) -> int:
            value = arch_key(suffix)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InputError(
                    f"missing or not an integer: {value!r}",
                    path=str(header.path),
                    field=f"{arch}.{suffix}",
                )
            return value

        layers = need_int("block_count")
        heads = arch_key("attention.head_count")
        heads_kv = arch_key("attention.head_count_kv")
        if heads_kv is None:
            heads_kv = heads  # no GQA: every head keeps its own K and V
        if isinstance(heads_kv, list):
            kv_heads = tuple(int(h) for h in heads_kv)
        elif isinstance(heads_kv, int):
            kv_heads = (int(heads_kv),) * layers
        else:
            raise InputError(
                f"unusable KV head count {heads_kv!r}",
                path=str(header.path),
                field=f"{arch}.attention.head_count_kv",
            )
        if len(kv_heads) != layers:
            raise InputError(
                f"{len(kv_heads)} KV head counts for {layers} layers",
                path=str(header.path),
                field=f"{arch}.attention.head_count_kv",
            )
        key_length = arch_key("attention.key_length")
        value_length = arch_key("attention.value_length")
        if key_length is None or value_length is None:
            # Without explicit lengths a head is embedding_length / head_count wide.
            n_embd = need_int("embedding_length")
            n_head = heads if isinstance(heads, int) else max(heads or [0])
            if not n_head:
                raise InputError(
                    "no head count to derive the head size from",
                    path=str(header.path),
                    field=f"{arch}.attention.head_count",
                )
            key_length = key_length or n_embd // n_head
            value_length = value_length or n_embd // n_head
        window = arch_key("attention.sliding_window")
        window = int(window) if isinstance(window, int) and window > 0 else None
        pattern = arch_key("attention.sliding_window_pattern")
        swa_layers: tuple[bool, ...] | None = None
        source = "no sliding window in the file"
        if window is not None:
            if isinstance(pattern, list) and len(pattern) == layers:
                swa_layers = tuple(bool(x) for x in pattern)
                source = f"{arch}.attention.sliding_window_pattern (per layer)"
            else:
                period = (
                    pattern
                    if isinstance(pattern, int) and pattern > 0
                    else ARCH_SWA_PERIOD.get(arch)
                )
                if period is not None:
                    swa_layers = tuple(il % period != period - 1 for il in range(layers))
                    source = (
                        f"{arch}.attention.sliding_window_pattern = {period}"
                        if isinstance(pattern, int)
                        else f"llama.cpp's built-in {arch} pattern: every {period}th layer global"
                    )
                else:
                    source = f"a window is set but the {arch} layer pattern is unknown here"
        return cls(
            arch, layers, kv_heads, int(key_length), int(value_length), window, swa_layers, source
        )

    @property
    def global_layers(self) -> int:
        return self.layers if self.swa_layers is None else self.swa_layers.count(False)

    @property
    def window_layers(self) -> int:
        return 0 if self.swa_layers is None else self.swa_layers.count(True)

    def _layer_bytes_per_cell(self, il: int, bytes_per_element: Fraction) -> Fraction:
        return self.kv_heads[il] * (self.key_length + self.value_length) * bytes_per_element

    def naive_bytes(self, n_ctx: int, bytes_per_element: Fraction | float = 2) -> float:
        """The masterclass formula: every layer keeps K and V for the whole context."""
        if len(set(self.kv_heads)) == 1:
            return float(
                kv_cache_bytes_split(
                    self.layers,
                    self.kv_heads[0],
                    self.key_length,
                    self.value_length,
                    n_ctx,
                    float(bytes_per_element),
                )
            )
        bpe = Fraction(bytes_per_element)
        return float(sum(self._layer_bytes_per_cell(il, bpe) for il in range(self.layers)) * n_ctx)

    def swa_cells(self, n_ctx: int, n_ubatch: int, n_seq: int = 1) -> int:
        """Cells llama.cpp gives a window layer: window + one micro-batch, padded, capped."""
        if self.sliding_window is None:
            return n_ctx
        wanted = min(n_ctx, self.sliding_window * n_seq + n_ubatch)
        return -(-wanted // SWA_CELL_PAD) * SWA_CELL_PAD

    def swa_aware_bytes(
        self, n_ctx: int, n_ubatch: int, bytes_per_element: Fraction | float = 2, n_seq: int = 1
    ) -> float | None:
        """KV bytes when window layers keep only their window (None if the pattern is unknown)."""
        if self.sliding_window is None:
            return self.naive_bytes(n_ctx, bytes_per_element)
        if self.swa_layers is None:
            return None
        bpe = Fraction(bytes_per_element)
        swa = self.swa_cells(n_ctx, n_ubatch, n_seq)
        total = Fraction(0)
        for il in range(self.layers):
            cells = swa if self.swa_layers[il] else n_ctx
            total += self._layer_bytes_per_cell(il, bpe) * cells
        return float(total)


def element_bytes(type_name: str) -> Fraction:
    """Bytes per element of a KV-cache type as llama.cpp prints it ("f16", "q8_0")."""
    return bits_per_weight(type_name) / 8
