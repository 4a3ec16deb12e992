"""Probes: plain functions that measure one thing each, with no pytest import.

One module per thing probed: ``gguf_file`` (GGUF headers), ``ollama_store``
(manifests and blobs on disk), ``tokens`` (cl100k_base offline), ``hf_repo``
(Hugging Face repository files), ``memory`` (weight and KV-cache arithmetic),
``ollama_api`` (a live server over HTTP), ``timing`` (client-side clocks),
``gpu`` (torch matmul benchmarks), ``system`` (machine fingerprint: OS, CPU
cores by type, memory), ``nvidia`` (what nvidia-smi and nvcc report),
``torch_cuda`` (torch's CUDA build, device and runtime libraries) and
``engine`` (llama.cpp through llama-cpp-python). Failures raise the exceptions
in :mod:`claims.probes.errors`.
"""
