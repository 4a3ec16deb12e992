"""A GGUF model loaded in llama.cpp (:class:`Engine`), and the ways to load one.

* :meth:`Engine.load` - seconds to build the model and its context (client
  clock, ``perf_counter_ns``), with llama.cpp's log captured, not printed.
  Any file name works: llama.cpp reads the content, so an Ollama blob with no
  extension loads like a ``.gguf``.
* :meth:`Engine.generate` - one streamed generation with explicit temperature,
  seed and token limit (:class:`~claims.probes.live.engine.generation.Generation`).
* :meth:`Engine.kv_cache_allocation` - the KV caches a context of a given
  size gets (:func:`~claims.probes.live.engine.kv.allocate_kv_cache`).
* :func:`cold_start` - time to first token measured from the start of
  loading: what a request to an unloaded model waits for.
* :func:`loaded` - ``with loaded(path) as engine:``.
"""

from __future__ import annotations

import contextlib
import ctypes
import time
from collections.abc import Iterator
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any

from claims.probes.errors import InputError
from claims.probes.files.gguf_file import GGUF_MAGIC, read_magic
from claims.probes.live.engine.generation import Generation, PerfCounters
from claims.probes.live.engine.kv import KVAllocation, allocate_kv_cache
from claims.probes.live.engine.runtime import (
    LlamaLog,
    default_threads,
    llama_cpp_module,
    load_failure,
)

__all__ = ["ColdStart", "Engine", "cold_start", "loaded"]


# eq=False: two loads of one file are two engines (identity, as before the dataclass).
@dataclass(eq=False)
class Engine:
    """A GGUF model loaded in llama.cpp, with one context of ``n_ctx`` tokens."""

    path: Path
    llama: Any = field(repr=False)
    _: KW_ONLY
    load_s: float
    load_log: tuple[str, ...] = field(repr=False)
    n_threads: int
    n_batch: int
    seed: int

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
        PerfCounters.reset(self._ctx)
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
            perf=PerfCounters.read(self._ctx),
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

        The new context has this engine's batch and threads; its own context is untouched.
        """
        return allocate_kv_cache(
            self._model, n_ctx, n_batch=self.n_batch, n_threads=self.n_threads, swa_full=swa_full
        )

    def close(self) -> None:
        self.llama.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


@contextlib.contextmanager
def loaded(path: Path | str, **kwargs: Any) -> Iterator[Engine]:
    """``with loaded(path) as engine:`` - load, use, free."""
    engine = Engine.load(path, **kwargs)
    try:
        yield engine
    finally:
        engine.close()
