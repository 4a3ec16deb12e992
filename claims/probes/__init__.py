"""Probes: plain functions that measure one thing each, with no pytest import.

One subpackage per kind of thing probed, one module (or small package) per thing:

* :mod:`~claims.probes.files` - files on disk, read offline: ``gguf_file``
  (GGUF headers, read without touching tensor data; ``gguf_file.token_strings``,
  the one decoder of token strings into bytes), ``ollama_store`` (manifests and blobs; its
  ``names`` is the suite's one model-name rule),
  ``hf_repo`` (a Hugging Face repository's small files, listing and card, from
  a pinned snapshot or the live Hub), ``artifacts`` (the bundled Gemma GGUF,
  located and verified offline);
* :mod:`~claims.probes.tokens` - tokens: ``cl100k_base`` (tiktoken's
  cl100k_base, offline), ``context`` (decoding a returned context with the
  model's own vocabulary), ``vocab`` (a GGUF vocabulary against cl100k_base);
* :mod:`~claims.probes.arithmetic` - figures computed from other figures:
  ``memory`` (weight and KV-cache bytes, GB vs GiB), ``quant`` (ggml
  quantization blocks);
* :mod:`~claims.probes.live` - running systems: ``ollama_api`` (a server over
  HTTP), ``ollama_serve`` (a server this suite starts), ``timing``
  (client-side clocks: TTFT, tokens/s), ``listeners`` (which address a server
  binds), ``loopback`` (which hosts are this machine), ``ollama_defaults``
  (Ollama's default address and origins), ``engine`` (llama.cpp through
  llama-cpp-python; ``engine.model_file``, which GGUF file it runs);
* :mod:`~claims.probes.machine` - the machine: ``system`` (OS, CPU cores by
  type, memory), ``nvidia`` (what nvidia-smi and nvcc report), ``torch_cuda``
  (torch's CUDA build, device and runtime libraries), ``gpu`` (matmul
  benchmarks), ``tools`` (bounded runs of command-line tools).

Failures raise the exceptions in :mod:`claims.probes.errors`, shared by all.
What builds test data (fixture and hostile stores, fake servers) is not a probe and
lives in :mod:`claims.testing`.
"""
