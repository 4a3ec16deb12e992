"""Probes of tokens: cl100k_base offline, and token ids decoded with a model's own vocabulary.

* :mod:`~claims.probes.tokens.cl100k_base` - tiktoken's cl100k_base, loaded
  from a bundled, hash-checked file with no network;
* :mod:`~claims.probes.tokens.context` - an Ollama ``context`` array decoded
  with the vocabulary of the model's GGUF file;
* :mod:`~claims.probes.tokens.vocab` - a GGUF vocabulary compared with
  cl100k_base, id by id, as raw bytes.
"""
