"""Text files read once per process and read again only when they change.

The catalog's files and their anchors are asked for hundreds of times a run (every
claim test that looks up its week's lab folder loads the catalog), and reading every
file each time made a run's reading grow with the square of the series (issue 51). Here
a file already read costs one ``stat``.

A file is taken as unchanged when its device, inode, size, modification time and change
time (nanoseconds) are those it had when it was read. That alone would miss an edit made
within one tick of the file system's clock after the read (the times would not move), so
a file is only kept when both its times were at least :data:`SETTLED_NS` older than the
read: git's rule for "racily clean" files. Any later edit then sets the modification
time to a later tick, and putting the old time back (``os.utime``, ``touch -d``) sets the
change time to now, which no user can set. A file too recent to keep is read every time.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Generic, TypeVar

__all__ = ["MAX_FILES", "SETTLED_NS", "FileMemo", "read_text", "settled_signature"]

# Longer than the coarsest timestamp in use (FAT's two seconds; ext4, XFS, btrfs, APFS
# keep nanoseconds, some network file systems one second).
SETTLED_NS = 2_000_000_000
# Distinct paths kept (least recently read dropped first): the catalog is a few dozen
# files; tests write many small made-up ones.
MAX_FILES = 4096

_Signature = tuple[int, int, int, int, int]
T = TypeVar("T")


def _signature(st: os.stat_result) -> _Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def settled_signature(path: Path | str, *, at_ns: int | None = None) -> _Signature | None:
    """What identifies the file's contents now (device, inode, size, modification and change
    times), or None when it may not (its times have not settled :data:`SETTLED_NS` before
    ``at_ns``, default now): something read from the file may be kept under this signature
    and reused while the file's signature is the same. ``OSError`` as ``os.stat`` raises it."""
    st = os.stat(os.fspath(path))
    now = time.time_ns() if at_ns is None else at_ns
    if max(st.st_mtime_ns, st.st_ctime_ns) > now - SETTLED_NS:
        return None
    return _signature(st)


class FileMemo(Generic[T]):
    """Values made from files (a file's text, a parsed header), each kept while its file is
    unchanged by the module's rule, the ``most`` read last."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._kept: OrderedDict[tuple[str, Hashable], tuple[_Signature, T]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, path: Path | str, make: Callable[[], T], key: Hashable = None) -> T:
        """What ``make()`` made from ``path`` (under ``key``, for several values of one file)
        when the file is as it was then; else ``make()`` again. A file that cannot be
        ``stat``'ed is left to ``make`` to report, and nothing it raises is kept."""
        name = os.fspath(path)
        try:
            before = _signature(os.stat(name))
        except OSError:
            return make()
        with self._lock:
            hit = self._kept.get((name, key))
            if hit is not None and hit[0] == before:
                self._kept.move_to_end((name, key))
                return hit[1]
        made_at = time.time_ns()
        value = make()
        # Kept only if nothing moved while it was made and both times had settled before.
        try:
            after = settled_signature(name, at_ns=made_at)
        except OSError:
            return value
        if after == before:
            with self._lock:
                self._kept[(name, key)] = (before, value)
                self._kept.move_to_end((name, key))
                while len(self._kept) > self.most:
                    self._kept.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._kept)

    def paths(self) -> list[str]:
        """The paths kept, least recently read first."""
        return [name for name, _ in self._kept]


_TEXTS: FileMemo[str] = FileMemo(MAX_FILES)


def read_text(path: Path | str) -> str:
    """The UTF-8 text of ``path``, from memory when the file has not changed since it was
    read. Raises what :meth:`pathlib.Path.read_text` raises (``OSError``,
    ``UnicodeDecodeError``), every time: a failure is never kept."""
    return _TEXTS.get(path, lambda: Path(path).read_text(encoding="utf-8"))
