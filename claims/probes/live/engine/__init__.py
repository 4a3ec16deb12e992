"""llama.cpp running a GGUF file on this machine, through llama-cpp-python.

The engine tier checks runtime claims one layer below Ollama, with no server:
the model file (a ``.gguf`` or an Ollama blob with no extension) is loaded by
path and driven directly. What is measured, in which unit, and where:

* :mod:`~claims.probes.live.engine.model` - :class:`Engine`: seconds to load
  (client clock, ``perf_counter_ns``, llama.cpp's log captured, not printed);
  one streamed generation with explicit temperature, seed and token limit;
  :func:`cold_start`, time to first token counted from the start of loading.
* :mod:`~claims.probes.live.engine.generation` - what a generation returns: text,
  token ids, time to the first non-empty token and the total (seconds, client
  clock), and llama.cpp's own counters (:class:`PerfCounters`: milliseconds
  and token counts for prompt processing and for generation, hence tokens/s).
* :mod:`~claims.probes.live.engine.kv` - the KV-cache bytes llama.cpp allocates for
  a context size, as it reports them (MiB with two decimals), set against
  :class:`KVShape`, the formula from the file's own metadata, with and
  without sliding windows.
* :mod:`~claims.probes.live.engine.vocab` - :func:`compare_vocabulary`, the
  engine's tokenization of a text against the token strings stored in the file.
* :mod:`~claims.probes.live.engine.sampling` - :func:`apply_penalties` /
  :func:`penalty_window`, llama.cpp's repeat-penalty sampler applied to
  hand-made logits, and how many recent tokens it remembers.
* :mod:`~claims.probes.live.engine.bits` - bits per parameter of the file against
  the width its quantization label promises.
* :mod:`~claims.probes.live.engine.runtime` - importing llama-cpp-python, its
  thread count, and :class:`LlamaLog`, which captures llama.cpp's log.

Which file the tier runs is :mod:`claims.probes.live.engine.model_file`. Nothing here
imports pytest. llama-cpp-python is imported on first use, so a machine
without it gets :class:`~claims.probes.errors.PrerequisiteMissing` with the
install hint, not an ImportError.
"""

from __future__ import annotations

from claims.probes.live.engine.bits import bits_per_parameter, nominal_bits, quantization_label
from claims.probes.live.engine.generation import Generation, PerfCounters
from claims.probes.live.engine.kv import (
    KVAllocation,
    KVCachePart,
    KVShape,
    element_bytes,
    parse_kv_log,
)
from claims.probes.live.engine.model import ColdStart, Engine, cold_start, loaded
from claims.probes.live.engine.runtime import (
    LlamaLog,
    default_threads,
    llama_cpp_module,
    load_failure,
)
from claims.probes.live.engine.sampling import apply_penalties, penalty_window
from claims.probes.live.engine.vocab import VocabComparison, compare_vocabulary, reconstruct_text

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
