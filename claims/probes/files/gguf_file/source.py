"""How the reader gets a GGUF file's bytes: positioned reads into one bounded window.

The file is never memory-mapped. With a mapping, a file that another process
truncates while it is read ends this process with SIGBUS (gguf.GGUFReader's
np.memmap has that failure); with ``os.pread`` the same event is a short read,
reported as a :class:`GGUFTruncatedError` naming the file and the offset.

A :class:`Source` keeps one window of the file, ``CHUNK_BYTES`` or the largest
single request, whichever is more, and reads a new one where the parse goes
next: the header is read in chunks as the parse advances, skipped ranges (a
megabyte of token scores) are never read, and neither are the tensor data
behind the header, so the cost follows the header and not the file. Every
range is checked against the file's size (taken when it was opened) before it
is read, so no length or count from the file sizes a buffer before the bytes
it claims are known to exist.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path
from types import TracebackType
from typing import Any

from claims.probes.errors import InputError
from claims.probes.files.gguf_file.errors import GGUFFormatError, GGUFTruncatedError

__all__ = ["CHUNK_BYTES", "Source"]

# Large enough that walking Gemma's 4.4 MB of token strings takes a few dozen
# reads, small enough that a lying length in a huge file costs one small read
# where it points, not a large one.
CHUNK_BYTES = 64 << 10


class Source:
    """One open regular file: bounds-checked reads of its bytes and scalars.

    Offsets are file offsets in bytes; ``order`` is the struct byte-order
    prefix ("<" or ">") scalars are decoded with.
    """

    def __init__(self, fd: int, st: os.stat_result, path: str, order: str = "<") -> None:
        self.fd = fd
        self.path = path
        self.size = st.st_size  # bytes when opened; every range is checked against it
        self.mtime_ns = st.st_mtime_ns
        self.order = order
        self._window = b""
        self._window_at = 0  # file offset of the window's first byte
        self._structs: dict[str, struct.Struct] = {}

    @classmethod
    def open(cls, path: Path | str, order: str = "<") -> Source:
        """Open a regular file for reading; anything else (folder, FIFO, device) is refused.

        O_NONBLOCK keeps open() of a FIFO from waiting for a writer; it changes
        nothing for regular files. The type is checked on the open descriptor, so
        the file cannot be swapped between check and use.
        """
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            raise InputError(f"cannot open: {exc.strerror}", path=str(path)) from None
        try:
            st = os.fstat(fd)
        except OSError as exc:  # pragma: no cover - fstat on an open fd rarely fails
            os.close(fd)
            raise InputError(f"cannot stat: {exc.strerror}", path=str(path)) from None
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise InputError("not a regular file", path=str(path))
        return cls(fd, st, str(path), order)

    def close(self) -> None:
        self._window = b""
        os.close(self.fd)

    def __enter__(self) -> Source:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- errors and bounds ------------------------------------------------------------
    def fail(
        self, cls: type[GGUFFormatError], problem: str, offset: int, fieldname: str
    ) -> GGUFFormatError:
        """An error of ``cls`` naming this file, ``offset`` and ``fieldname`` (to raise)."""
        return cls(problem, path=self.path, offset=offset, field=fieldname)

    def need(self, offset: int, nbytes: int, fieldname: str, at: int | None = None) -> None:
        """Bytes [offset, offset + nbytes) must lie in the file; ``at`` is the
        offset to report when it differs (the length field that asked for them)."""
        if nbytes > self.size - offset:
            left = max(0, self.size - offset)
            where = "" if at is None else f" from offset {offset:,}"
            raise self.fail(
                GGUFTruncatedError,
                f"needs {nbytes:,} bytes{where} but only {left:,} remain before the end of the "
                f"file ({self.size:,} bytes)",
                offset if at is None else at,
                fieldname,
            )

    def check_count(
        self, start: int, count: int, min_item: int, at: int, fieldname: str, what: str
    ) -> None:
        """Refuse a count whose items, from ``start``, cannot fit in the bytes left.

        Checked before any loop or allocation is sized by the count; ``at`` is
        where the count itself is stored (the offset the error reports).
        """
        left = max(0, self.size - start)
        if count * min_item > left:
            raise self.fail(
                GGUFTruncatedError,
                f"{what} count {count:,} needs at least {count * min_item:,} bytes but only "
                f"{left:,} remain after offset {start:,} (file is {self.size:,} bytes)",
                at,
                fieldname,
            )

    # -- bytes --------------------------------------------------------------------------
    def span(self, offset: int, nbytes: int, fieldname: str) -> tuple[bytes, int]:
        """A buffer holding bytes [offset, offset + nbytes) and the file offset of its
        first byte: the current window if it holds them, else a new one read from
        ``offset`` (checked against the file's size first)."""
        window, at = self._window, self._window_at
        if at <= offset and offset + nbytes <= at + len(window):
            return window, at
        self.need(offset, nbytes, fieldname)
        window = self._pread(offset, min(max(nbytes, CHUNK_BYTES), self.size - offset))
        if len(window) < nbytes:
            raise self.fail(
                GGUFTruncatedError,
                f"read {len(window):,} of {nbytes:,} bytes: the file had {self.size:,} bytes "
                "when opened and was truncated while being read",
                offset,
                fieldname,
            )
        self._window, self._window_at = window, offset
        return window, offset

    def read(self, offset: int, nbytes: int, fieldname: str) -> bytes:
        """Exactly the bytes [offset, offset + nbytes) (checked against the file's size)."""
        window, at = self.span(offset, nbytes, fieldname)
        if at == offset and len(window) == nbytes:
            return window
        return window[offset - at : offset - at + nbytes]

    def _pread(self, offset: int, nbytes: int) -> bytes:
        """Up to ``nbytes`` from ``offset``; fewer only where the file now ends."""
        parts: list[bytes] = []
        got = 0
        try:
            while got < nbytes:  # a regular file answers in full unless at its end
                part = os.pread(self.fd, nbytes - got, offset + got)
                if not part:
                    break
                parts.append(part)
                got += len(part)
        except OSError as exc:
            raise InputError(
                f"cannot read: {exc.strerror}", path=self.path, offset=offset + got
            ) from None
        return parts[0] if len(parts) == 1 else b"".join(parts)

    # -- scalars ------------------------------------------------------------------------
    def set_order(self, order: str) -> None:
        """Decode scalars in this byte order from now on ("<" or ">")."""
        self.order = order
        self._structs.clear()

    def struct(self, fmt: str) -> struct.Struct:
        """A compiled struct for ``fmt`` in the file's byte order."""
        s = self._structs.get(fmt)
        if s is None:
            s = self._structs[fmt] = struct.Struct(self.order + fmt)
        return s

    def scalar(self, offset: int, fmt: str, fieldname: str) -> Any:
        s = self.struct(fmt)
        window, at = self.span(offset, s.size, fieldname)
        return s.unpack_from(window, offset - at)[0]

    def u32(self, offset: int, fieldname: str) -> int:
        return int(self.scalar(offset, "I", fieldname))

    def u64(self, offset: int, fieldname: str) -> int:
        return int(self.scalar(offset, "Q", fieldname))
