"""llama-cpp-python itself: importing it, how many threads to give it, its log.

llama.cpp reports through one process-wide log callback; :class:`LlamaLog`
captures that log so nothing reaches stderr and the probes can read what
llama.cpp said (load errors, KV-cache sizes).
"""

from __future__ import annotations

import ctypes
import os
import re
from types import ModuleType
from typing import Any

from claims.probes.errors import PrerequisiteMissing

__all__ = ["MAX_LOG_CHARS", "LlamaLog", "default_threads", "llama_cpp_module", "load_failure"]

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
        # Kept on self: ctypes does not hold the callback, and a collected one crashes.
        self._callback = lib.llama_log_callback(self._on_log)
        lib.llama_log_set(self._callback, ctypes.c_void_p(0))
        return self

    def __exit__(self, *exc: object) -> None:
        lib = llama_cpp_module()
        lib.llama_log_set(_package_log_callback(), ctypes.c_void_p(0))

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
