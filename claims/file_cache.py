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
from pathlib import Path

__all__ = ["MAX_FILES", "SETTLED_NS", "read_text", "settled_signature"]

# Longer than the coarsest timestamp in use (FAT's two seconds; ext4, XFS, btrfs, APFS
# keep nanoseconds, some network file systems one second).
SETTLED_NS = 2_000_000_000
# Distinct paths kept (least recently read dropped first): the catalog is a few dozen
# files; tests write many small made-up ones.
MAX_FILES = 4096

_Signature = tuple[int, int, int, int, int]
_kept: OrderedDict[str, tuple[_Signature, str]] = OrderedDict()
_lock = threading.Lock()


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


def read_text(path: Path | str) -> str:
    """The UTF-8 text of ``path``, from memory when the file has not changed since it was
    read. Raises what :meth:`pathlib.Path.read_text` raises (``OSError``,
    ``UnicodeDecodeError``), every time: a failure is never kept."""
    key = os.fspath(path)
    before = _signature(os.stat(key))
    with _lock:
        hit = _kept.get(key)
        if hit is not None and hit[0] == before:
            _kept.move_to_end(key)
            return hit[1]
    read_at = time.time_ns()
    text = Path(key).read_text(encoding="utf-8")
    after = _signature(os.stat(key))
    # Kept only if nothing moved while it was read and both times had settled before it.
    if after == before and max(before[3], before[4]) <= read_at - SETTLED_NS:
        with _lock:
            _kept[key] = (before, text)
            _kept.move_to_end(key)
            while len(_kept) > MAX_FILES:
                _kept.popitem(last=False)
    return text
