"""Probes: plain functions that measure one thing each, with no pytest import.

One module (or small package) per thing probed:

* files: ``gguf_file`` (GGUF headers, read without touching tensor data),
  ``gguf_vocab`` (a GGUF vocabulary against cl100k_base), ``ollama_store``
  (manifests and blobs on disk), ``store_builder`` (writes Ollama-layout stores),
  ``artifacts`` (the bundled Gemma GGUF, located and verified offline);
* tokens and templates: ``tokens`` (cl100k_base offline), ``context_tokens``
  (decoding a returned context with the model's own vocabulary), ``hf_repo``
  (Hugging Face repository files, pinned snapshot or live Hub);
* arithmetic: ``memory`` (weight and KV-cache bytes, GB vs GiB), ``quant``
  (ggml quantization blocks);
* live systems: ``ollama_api`` (a server over HTTP), ``timing`` (client-side
  clocks: TTFT, tokens/s), ``listeners`` (which address a server binds),
  ``engine`` and ``engine_model`` (llama.cpp through llama-cpp-python);
* the machine: ``system`` (OS, CPU cores by type, memory), ``nvidia`` (what
  nvidia-smi and nvcc report), ``torch_cuda`` (torch's CUDA build, device and
  runtime libraries), ``gpu`` (matmul benchmarks), ``tools`` (bounded runs of
  command-line tools).

Failures raise the exceptions in :mod:`claims.probes.errors`.
"""
