"""llama.cpp running a GGUF file on this machine, through llama-cpp-python.

The engine tier checks runtime claims one layer below Ollama, with no server:
the model file (a ``.gguf`` or an Ollama blob with no extension) is loaded by
path and driven directly. What this module measures, and in which unit:

* :meth:`Engine.load` - seconds to build the model and its context (client
  clock, ``perf_counter_ns``), with llama.cpp's log captured, not printed.
* :meth:`Engine.generate` - one streamed generation with explicit temperature,
  seed and token limit: the text and token ids, time to the first token with
  non-empty text and the total (seconds, client clock), and llama.cpp's own
  performance counters (:class:`PerfCounters`: milliseconds and token counts
  for prompt processing and for generation, hence tokens per second).
* :func:`cold_start` - time to first token measured from the start of loading:
  what a request to an unloaded model waits for.
* :meth:`Engine.kv_cache_allocation` - the KV-cache bytes llama.cpp allocates
  for a context size, as it reports them (MiB with two decimals), set against
  :class:`KVShape`, the formula from the file's own metadata.
* :func:`compare_vocabulary` - the engine's tokenization of a text against the
  token strings stored in the file.
* :func:`apply_penalties` / :func:`penalty_window` - llama.cpp's repeat-penalty
  sampler applied to hand-made logits, and how many recent tokens it remembers.

Nothing here imports pytest. llama-cpp-python is imported on first use, so a
machine without it gets :class:`~claims.probes.errors.PrerequisiteMissing`
with the install hint, not an ImportError.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

from claims.probes.errors import InputError, PrerequisiteMissing, ProbeError
from claims.probes.gguf_file import GGUF_MAGIC, GGUFHeader, read_magic
from claims.probes.memory import bits_per_weight, kv_cache_bytes_split

__all__ = [
    "ColdStart",
    "Engine",
    "Generation",
    "KVAllocation",
    "KVCachePart",
    "KVShape",
    "LlamaLog",
    "PerfCounters",
    "VocabComparison",
    "apply_penalties",
    "bits_per_parameter",
    "cold_start",
    "compare_vocabulary",
    "default_threads",
    "element_bytes",
    "llama_cpp_module",
    "load_failure",
    "loaded",
    "nominal_bits",
    "parse_kv_log",
    "penalty_window",
    "quantization_label",
    "reconstruct_text",
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
# A log is for diagnosis; a runaway one must not grow without bound.
MAX_LOG_CHARS = 2_000_000


def llama_cpp_module() -> ModuleType:
    """The llama_cpp package, or PrerequisiteMissing saying how to install it."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise PrerequisiteMissing(
            f"llama-cpp-python is not installed ({exc}); pip install 'claims-suite[engine]'"
        ) from None
    except OSError as exc:  # the package is there but its shared library will not load
        raise PrerequisiteMissing(f"llama-cpp-python cannot load libllama: {exc}") from None
    return llama_cpp


def default_threads() -> int:
    """Half the CPUs this process may run on (at least one), as llama-cpp-python does.

    Not all of them: llama.cpp's worker threads spin at every barrier, so when
    another process takes a core the others wait for it. Measured on a 2-core
    machine with a concurrent test run: two 16-token generations took 13 s with
    2 threads and 0.4 s with 1. The claims compare rates and times measured
    under the same setting, so they do not need the last bit of throughput.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, cpus // 2)


# --- llama.cpp's log ------------------------------------------------------------


class LlamaLog:
    """Collects llama.cpp's log text while active, so nothing reaches stderr.

    llama-cpp-python installs one process-wide log callback that prints to
    stderr; ``verbose=False`` only hides the loader's output. While this
    context is active our callback receives every line instead (the KV-cache
    sizes are INFO lines); on exit the package's own callback is put back.
    """

    def __init__(self) -> None:
        self._chunks: list[str] = []
        self._size = 0
        self._callback: Any = None

    def _on_log(self, level: int, text: bytes | None, user_data: Any) -> None:
        if not text or self._size > MAX_LOG_CHARS:
            return
        chunk = text.decode("utf-8", errors="replace")
        self._chunks.append(chunk)
        self._size += len(chunk)

    def __enter__(self) -> LlamaLog:
        lib = llama_cpp_module()
        self._callback = lib.llama_log_callback(self._on_log)
        lib.llama_log_set(self._callback, ctypes.c_void_p(0))
        return self

    def __exit__(self, *exc: object) -> None:
        lib = llama_cpp_module()
        restore = _package_log_callback()
        lib.llama_log_set(restore, ctypes.c_void_p(0))

    @property
    def text(self) -> str:
        return "".join(self._chunks)

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


_SILENT_CALLBACK: Any = None


def _package_log_callback() -> Any:
    """llama-cpp-python's own callback (prints ERROR and up); a silent one if it moved."""
    global _SILENT_CALLBACK
    try:
        from llama_cpp import _logger

        return _logger.llama_log_callback
    except (ImportError, AttributeError):
        if _SILENT_CALLBACK is None:
            lib = llama_cpp_module()
            _SILENT_CALLBACK = lib.llama_log_callback(lambda level, text, user: None)
        return _SILENT_CALLBACK


def load_failure(lines: list[str]) -> str | None:
    """The informative part of a failed load's log: the first two error lines.

    The last line llama.cpp prints is always the generic "failed to load
    model"; the reason (a truncated tensor, an unreadable header, an unknown
    architecture) comes before it.
    """
    picked = [
        ln.strip()
        for ln in lines
        if re.search(r"error|failed", ln, re.IGNORECASE) and "load_from_file_impl" not in ln
    ]
    return "; ".join(dict.fromkeys(picked[:2])) or None


# --- results -------------------------------------------------------------------


@dataclass(frozen=True)
class PerfCounters:
    """llama.cpp's own timers for one generation (``llama_perf_context``).

    llama.cpp books a decode call of more than one token as prompt processing
    and a single-token call as generation; times are milliseconds.
    """

    prompt_tokens: int
    prompt_ms: float
    eval_tokens: int
    eval_ms: float

    @property
    def prompt_tokens_per_s(self) -> float | None:
        return self.prompt_tokens / self.prompt_ms * 1000 if self.prompt_ms > 0 else None

    @property
    def eval_tokens_per_s(self) -> float | None:
        return self.eval_tokens / self.eval_ms * 1000 if self.eval_ms > 0 else None


@dataclass(frozen=True)
class Generation:
    """One generation: what was asked, what came back, and how long it took.

    ``seed`` is the seed asked for; None means llama.cpp drew a random one
    (``LLAMA_DEFAULT_SEED``). ``ttft_s`` is client-observed: from the call to
    the first generated token whose text is non-empty. ``total_s`` runs to
    the last token.
    """

    prompt: str
    text: str
    token_ids: tuple[int, ...]
    prompt_tokens: int
    finish_reason: str
    temperature: float
    seed: int | None
    max_tokens: int
    ttft_s: float | None
    total_s: float
    perf: PerfCounters
    sampling: dict[str, float] = field(default_factory=dict)

    @property
    def completion_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def client_decode_tokens_per_s(self) -> float | None:
        """Tokens after the first, over the time after the first (client clock)."""
        if self.ttft_s is None or self.completion_tokens < 2 or self.total_s <= self.ttft_s:
            return None
        return (self.completion_tokens - 1) / (self.total_s - self.ttft_s)

    def to_json(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "text": self.text,
            "token_ids": list(self.token_ids),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "finish_reason": self.finish_reason,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "sampling": dict(self.sampling),
            "ttft_ms": None if self.ttft_s is None else round(self.ttft_s * 1000, 3),
            "total_ms": round(self.total_s * 1000, 3),
            "perf": {
                "prompt_tokens": self.perf.prompt_tokens,
                "prompt_ms": round(self.perf.prompt_ms, 3),
                "eval_tokens": self.perf.eval_tokens,
                "eval_ms": round(self.perf.eval_ms, 3),
            },
        }


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


@dataclass(frozen=True)
class VocabComparison:
    """The engine's tokenization of ``text`` set against the file's vocabulary."""

    text: str
    token_ids: tuple[int, ...]
    engine_pieces: tuple[str, ...]
    file_pieces: tuple[str | None, ...]
    engine_vocab_size: int
    file_vocab_size: int
    file_reconstruction: str | None
    engine_detokenized: str

    @property
    def mismatches(self) -> list[dict[str, Any]]:
        """Ids whose token string differs between engine and file (or is outside the file)."""
        out = []
        for tid, eng, fil in zip(self.token_ids, self.engine_pieces, self.file_pieces, strict=True):
            if fil is None or eng != fil:
                out.append({"id": tid, "engine": eng, "file": fil})
        return out


@dataclass(frozen=True)
class ColdStart:
    """A model loaded and asked at once: the first token waits for the load."""

    engine: Engine
    load_s: float
    first: Generation

    @property
    def ttft_s(self) -> float | None:
        """Seconds from the start of loading to the first non-empty token."""
        if self.first.ttft_s is None:
            return None
        return self.load_s + self.first.ttft_s


# --- the engine ------------------------------------------------------------------


class Engine:
    """A GGUF model loaded in llama.cpp, with one context of ``n_ctx`` tokens."""

    def __init__(
        self,
        path: Path,
        llama: Any,
        *,
        load_s: float,
        load_log: tuple[str, ...],
        n_threads: int,
        n_batch: int,
        seed: int,
    ) -> None:
        self.path = path
        self.llama = llama
        self.load_s = load_s
        self.load_log = load_log
        self.n_threads = n_threads
        self.n_batch = n_batch
        self.seed = seed

    @classmethod
    def load(
        cls,
        path: Path | str,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 42,
        n_batch: int = 512,
        swa_full: bool | None = None,
    ) -> Engine:
        """Load ``path`` (any file name; llama.cpp reads the content, not the extension).

        ``swa_full=None`` keeps llama.cpp's own default for sliding-window caches.
        """
        p = Path(path)
        if not p.is_file():
            raise InputError("no such model file", path=str(p))
        magic = read_magic(p)
        if magic != GGUF_MAGIC:
            raise InputError(
                f"not a GGUF file: magic {magic.hex(' ')}, expected 47 47 55 46",
                path=str(p),
                offset=0,
            )
        lib = llama_cpp_module()
        threads = n_threads or default_threads()
        kwargs: dict[str, Any] = dict(
            model_path=str(p),
            n_ctx=n_ctx,
            n_batch=n_batch,
            n_ubatch=n_batch,
            n_threads=threads,
            n_threads_batch=threads,
            seed=seed,
            verbose=False,
            flash_attn=False,
        )
        if swa_full is not None:
            kwargs["swa_full"] = swa_full
        with LlamaLog() as log:
            t0 = time.perf_counter_ns()
            try:
                llama = lib.Llama(**kwargs)
            except (ValueError, RuntimeError) as exc:
                detail = load_failure(log.lines) or str(exc)
                raise InputError(
                    f"llama.cpp could not load the model: {detail}", path=str(p)
                ) from None
            load_s = (time.perf_counter_ns() - t0) / 1e9
        return cls(
            p,
            llama,
            load_s=load_s,
            load_log=tuple(log.lines),
            n_threads=threads,
            n_batch=n_batch,
            seed=seed,
        )

    # -- facts about the loaded model ------------------------------------------
    @property
    def _model(self) -> Any:
        return self.llama._model.model

    @property
    def _ctx(self) -> Any:
        return self.llama._ctx.ctx

    @property
    def _vocab(self) -> Any:
        return llama_cpp_module().llama_model_get_vocab(self._model)

    @property
    def n_ctx(self) -> int:
        return int(self.llama.n_ctx())

    @property
    def n_params(self) -> int:
        """Parameters llama.cpp counted in the model's tensors."""
        return int(llama_cpp_module().llama_model_n_params(self._model))

    @property
    def tensor_bytes(self) -> int:
        """Bytes of tensor data llama.cpp loaded (the file minus its header and padding)."""
        return int(llama_cpp_module().llama_model_size(self._model))

    @property
    def description(self) -> str:
        buf = ctypes.create_string_buffer(256)
        llama_cpp_module().llama_model_desc(self._model, buf, ctypes.sizeof(buf))
        return buf.value.decode("utf-8", errors="replace")

    @property
    def vocab_size(self) -> int:
        return int(llama_cpp_module().llama_vocab_n_tokens(self._vocab))

    def chat_template(self) -> str | None:
        """The default chat template llama.cpp read from the file, if it has one."""
        raw = llama_cpp_module().llama_model_chat_template(self._model, None)
        return None if raw is None else raw.decode("utf-8", errors="replace")

    def token_text(self, token_id: int) -> str:
        """The token's string as stored in the vocabulary (not its rendered piece)."""
        raw: bytes = llama_cpp_module().llama_vocab_get_text(self._vocab, token_id)
        return raw.decode("utf-8", errors="replace")

    def is_end_of_generation(self, token_id: int) -> bool:
        return bool(llama_cpp_module().llama_vocab_is_eog(self._vocab, token_id))

    def tokenize(self, text: str, *, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))

    def detokenize(self, token_ids: list[int] | tuple[int, ...]) -> str:
        return bytes(self.llama.detokenize(list(token_ids))).decode("utf-8", errors="replace")

    # -- generation -----------------------------------------------------------
    def _perf_reset(self) -> None:
        llama_cpp_module().llama_perf_context_reset(self._ctx)

    def _perf(self) -> PerfCounters:
        data = llama_cpp_module().llama_perf_context(self._ctx)
        return PerfCounters(
            prompt_tokens=int(data.n_p_eval),
            prompt_ms=float(data.t_p_eval_ms),
            eval_tokens=int(data.n_eval),
            eval_ms=float(data.t_eval_ms),
        )

    def generate(
        self,
        prompt: str,
        *,
        max_tokens: int,
        temperature: float,
        seed: int | None = None,
        top_k: int = 40,
        top_p: float = 0.95,
        min_p: float = 0.05,
        repeat_penalty: float = 1.0,
    ) -> Generation:
        """Generate up to ``max_tokens`` tokens, streaming, from a fresh context.

        The KV cache is cleared first, so every call pays the full prompt
        processing (no prefix reuse between calls) and repeated calls start
        from the same state. ``seed=None`` lets llama.cpp draw a random seed.
        """
        lib = llama_cpp_module()
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        prompt_ids = self.llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        self.llama.reset()
        self.llama.set_seed(lib.LLAMA_DEFAULT_SEED if seed is None else seed)
        self._perf_reset()
        out: list[int] = []
        ttft_ns: int | None = None
        finish = "length"
        t0 = time.perf_counter_ns()
        stream = self.llama.generate(
            prompt_ids,
            top_k=top_k,
            top_p=top_p,
            min_p=min_p,
            temp=temperature,
            repeat_penalty=repeat_penalty,
            reset=True,
        )
        try:
            for token in stream:
                if self.is_end_of_generation(token):
                    finish = "stop"
                    break
                out.append(int(token))
                if ttft_ns is None and self.llama.detokenize([token]):
                    ttft_ns = time.perf_counter_ns() - t0
                if len(out) >= max_tokens:
                    break
        finally:
            stream.close()
        total_ns = time.perf_counter_ns() - t0
        return Generation(
            prompt=prompt,
            text=self.detokenize(out),
            token_ids=tuple(out),
            prompt_tokens=len(prompt_ids),
            finish_reason=finish,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            ttft_s=None if ttft_ns is None else ttft_ns / 1e9,
            total_s=total_ns / 1e9,
            perf=self._perf(),
            sampling={
                "top_k": top_k,
                "top_p": top_p,
                "min_p": min_p,
                "repeat_penalty": repeat_penalty,
            },
        )

    # -- KV cache ---------------------------------------------------------------
    def kv_cache_allocation(self, n_ctx: int, *, swa_full: bool) -> KVAllocation:
        """Create (and free) a context of ``n_ctx`` tokens; return the KV caches it allocated.

        Read from llama.cpp's log on purpose: its C API has no call for the
        allocated KV size (``llama_get_memory_breakdown`` is C++-only and not
        exported with C linkage; ``llama_state_get_size`` counts the cells in
        use, not the allocation), so the INFO line llama.cpp prints when it
        creates each cache is the one source.
        """
        lib = llama_cpp_module()
        params = lib.llama_context_default_params()
        params.n_ctx = n_ctx
        params.n_batch = self.n_batch
        params.n_ubatch = self.n_batch
        params.n_threads = self.n_threads
        params.n_threads_batch = self.n_threads
        params.flash_attn_type = lib.LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.swa_full = swa_full
        params.no_perf = True
        with LlamaLog() as log:
            ctx = lib.llama_init_from_model(self._model, params)
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
            n_ubatch=self.n_batch,
            swa_full=swa_full,
            parts=parts,
            log=tuple(ln for ln in lines if "kv" in ln.lower() or "context" in ln),
        )

    def close(self) -> None:
        self.llama.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cold_start(
    path: Path | str,
    prompt: str,
    *,
    max_tokens: int,
    n_ctx: int = 512,
    n_threads: int | None = None,
    seed: int = 42,
) -> ColdStart:
    """Load a model and generate at once (temperature 0): the first token waits for the load.

    The load and the first generation are timed back to back, so the cold
    time to first token is load seconds plus the first call's TTFT. The file's
    pages may already sit in the OS page cache; this is a process-cold start.
    """
    engine = Engine.load(path, n_ctx=n_ctx, n_threads=n_threads, seed=seed)
    try:
        first = engine.generate(prompt, max_tokens=max_tokens, temperature=0.0, seed=seed)
    except BaseException:
        engine.close()
        raise
    return ColdStart(engine=engine, load_s=engine.load_s, first=first)


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
        """The formula's inputs from a header (:func:`claims.probes.gguf_file.read_header`)."""
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


# --- vocabulary --------------------------------------------------------------------

_BYTE_TOKEN_RE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
SPM_SPACE = "\u2581"


def _gpt2_byte_decoder() -> dict[str, int]:
    # GPT-2's reversible byte <-> printable character map (byte-level BPE vocabularies
    # such as phi4's store tokens this way). tiktoken keeps raw bytes and offers no
    # such table, and transformers is not a dependency, so it is spelled out here.
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = printable[:]
    n = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


def reconstruct_text(
    pieces: list[str], tokenizer_model: str | None, *, add_space_prefix: bool = False
) -> str | None:
    """Join token strings back into text, the way the file's tokenizer model stores them.

    ``llama`` (SentencePiece): U+2581 is a space and ``<0xNN>`` a raw byte;
    ``gpt2`` (byte-level BPE): every character stands for one byte. Other
    tokenizer models return None (not reconstructed here). When the vocabulary
    prefixes a space to the text (``add_space_prefix``) that space is dropped.
    """
    if tokenizer_model == "llama":
        out = bytearray()
        for piece in pieces:
            m = _BYTE_TOKEN_RE.fullmatch(piece)
            if m:
                out.append(int(m.group(1), 16))
            else:
                out.extend(piece.replace(SPM_SPACE, " ").encode("utf-8"))
        text = out.decode("utf-8", errors="replace")
        return text[1:] if add_space_prefix and text.startswith(" ") else text
    if tokenizer_model == "gpt2":
        table = _gpt2_byte_decoder()
        try:
            raw = bytes(table[ch] for piece in pieces for ch in piece)
        except KeyError:
            return None
        return raw.decode("utf-8", errors="replace")
    return None


def compare_vocabulary(engine: Engine, header: GGUFHeader, text: str) -> VocabComparison:
    """Tokenize ``text`` with the engine; look every id up in the file's own token list.

    The file's token strings come from the GGUF header reader, not from the
    engine, so the comparison is between two independent readings of the file.
    """
    tokenizer = header.tokenizer
    file_vocab_size = tokenizer.token_count or 0
    ids = engine.tokenize(text, add_bos=False, special=False)
    engine_pieces = tuple(engine.token_text(t) for t in ids)
    inside = sorted({t for t in ids if 0 <= t < file_vocab_size})
    stored = header.tokens(inside) if inside else {}
    file_pieces = tuple(stored.get(t) for t in ids)
    known = [p for p in file_pieces if p is not None]
    rebuilt = None
    if len(known) == len(ids):
        rebuilt = reconstruct_text(
            known,
            tokenizer.model,
            add_space_prefix=header.get("tokenizer.ggml.add_space_prefix") is True,
        )
    return VocabComparison(
        text=text,
        token_ids=tuple(ids),
        engine_pieces=engine_pieces,
        file_pieces=file_pieces,
        engine_vocab_size=engine.vocab_size,
        file_vocab_size=file_vocab_size,
        file_reconstruction=rebuilt,
        engine_detokenized=engine.detokenize(ids),
    )


# --- sampling: llama.cpp's repeat penalty ------------------------------------------


def apply_penalties(
    logits: list[float],
    history: list[int],
    *,
    last_n: int,
    repeat: float,
    frequency: float = 0.0,
    presence: float = 0.0,
) -> list[float]:
    """Logits after llama.cpp's own penalties sampler has seen ``history``.

    Runs ``llama_sampler_init_penalties`` on hand-made logits (token id =
    index), so no model is needed: what is measured is the sampler's rule,
    exactly as generation applies it.
    """
    lib = llama_cpp_module()
    n = len(logits)
    sampler = lib.llama_sampler_init_penalties(n, last_n, repeat, frequency, presence)
    if not sampler:
        raise ProbeError("llama.cpp refused the penalty sampler parameters")
    try:
        for token in history:
            lib.llama_sampler_accept(sampler, token)
        data = (lib.llama_token_data * n)(
            *(lib.llama_token_data(i, float(v), 0.0) for i, v in enumerate(logits))
        )
        cur = lib.llama_token_data_array(data, n, -1, False)
        lib.llama_sampler_apply(sampler, ctypes.byref(cur))
        # Samplers may reorder the array; read back by token id.
        out = [0.0] * n
        for i in range(int(cur.size)):
            item = cur.data[i]
            out[int(item.id)] = float(item.logit)
        return out
    finally:
        lib.llama_sampler_free(sampler)


def penalty_window(last_n: int, *, repeat: float = 2.0, probe_up_to: int = 512) -> int:
    """How many of the most recent tokens the penalties sampler remembers, by experiment.

    Token 0 is seen once, then ``k`` other tokens; the window is the largest
    ``k + 1`` for which token 0 is still penalized (0 when it never is).
    """
    fillers = list(range(1, probe_up_to + 1))
    logits = [1.0] * (probe_up_to + 1)

    def penalized(k: int) -> bool:
        return apply_penalties(logits, [0, *fillers[:k]], last_n=last_n, repeat=repeat)[0] != 1.0

    if not penalized(0):
        return 0
    lo, hi = 0, probe_up_to  # penalized(lo) holds; find the last k that is penalized
    if penalized(hi):
        return hi + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if penalized(mid):
            lo = mid
        else:
            hi = mid
    return lo + 1


# --- bits per parameter ----------------------------------------------------------

_NOMINAL_RE = re.compile(r"^I?Q(\d)")


def quantization_label(header: GGUFHeader) -> str | None:
    """The file's quantization label from ``general.file_type`` (15 -> "Q4_K_M"), if set."""
    found = header.file_type
    if found is None:
        return None
    return found[1].removeprefix("MOSTLY_").removeprefix("ALL_")


def nominal_bits(label: str | None) -> int | None:
    """The bit width a label promises: Q4_K_M -> 4, Q8_0 -> 8, F16/BF16 -> 16, F32 -> 32."""
    if not label:
        return None
    upper = label.upper()
    if upper in ("F16", "BF16"):
        return 16
    if upper == "F32":
        return 32
    m = _NOMINAL_RE.match(upper)
    return int(m.group(1)) if m else None


def bits_per_parameter(n_bytes: int | float, n_params: int) -> float:
    """On-disk bits per parameter: bytes x 8 / parameters (Week 4's measure)."""
    if n_params <= 0:
        raise ValueError("parameter count must be positive")
    return float(n_bytes) * 8 / n_params


@contextlib.contextmanager
def loaded(path: Path | str, **kwargs: Any) -> Iterator[Engine]:
    """``with loaded(path) as engine:`` - load, use, free."""
    engine = Engine.load(path, **kwargs)
    try:
        yield engine
    finally:
        engine.close()
