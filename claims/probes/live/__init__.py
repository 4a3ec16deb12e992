"""Probes of running systems: an Ollama server, llama.cpp in process, the clocks that time them.

* :mod:`~claims.probes.live.ollama_api` - an Ollama server over HTTP, every
  call with a timeout;
* :mod:`~claims.probes.live.ollama_serve` - an ``ollama serve`` this suite
  starts on a private port and stops again;
* :mod:`~claims.probes.live.timing` - client-side clocks for streamed
  replies: TTFT, decode rate, repeats;
* :mod:`~claims.probes.live.listeners` - which local addresses a TCP port is
  listening on, from the kernel's socket tables;
* :mod:`~claims.probes.live.loopback` - which host names mean this machine;
* :mod:`~claims.probes.live.ollama_defaults` - Ollama's default address and the
  origins it allows when nothing is configured;
* :mod:`~claims.probes.live.engine` - llama.cpp running a GGUF file through
  llama-cpp-python; :mod:`~claims.probes.live.engine.model_file` says which
  file.
"""
