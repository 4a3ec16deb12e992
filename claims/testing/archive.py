"""Extracting a tar archive so that nothing in it lands outside the target folder.

Python's ``tarfile.data_filter`` (``extractall(..., filter="data")``) arrived in a patch
release: 3.11.4 (and 3.12.0). Debian 12's own ``python3`` is 3.11.2, where the ``filter``
argument is a ``TypeError``. :func:`extract_all` uses the filter where this interpreter has
it and otherwise checks each member itself, keeping the same guarantees:

* no member is written outside the target folder (an absolute name, ``..``, or a path
  through a link extracted earlier that leads out);
* no symbolic or hard link points outside it;
* no device file or FIFO is created;
* no file keeps setuid, setgid or sticky bits or group/other write permission, and the
  archive's owners are not applied (the extracting user owns everything).

A refused member raises :class:`UnsafeMember` (a :class:`tarfile.TarError`, as the
filter's own ``tarfile.FilterError`` is) naming it, and nothing after it is extracted.
"""

from __future__ import annotations

import copy
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["UnsafeMember", "extract_all", "has_data_filter"]


class UnsafeMember(tarfile.TarError):
    """A member the fallback refuses: it would leave the target folder or is not plain data."""


def has_data_filter() -> bool:
    """True when this interpreter's tarfile has the "data" extraction filter (3.11.4+)."""
    return hasattr(tarfile, "data_filter")


def extract_all(tar: tarfile.TarFile, target: Path) -> None:
    """Extract every member of ``tar`` under ``target``, refusing anything unsafe."""
    if has_data_filter():
        tar.extractall(target, filter="data")
        return
    # Checked one at a time as extractall reaches each member, so a path through a link
    # that an earlier member created is resolved as it really is on disk.
    tar.extractall(target, members=_checked(tar, Path(target)))


def _checked(tar: tarfile.TarFile, target: Path) -> Iterator[tarfile.TarInfo]:
    root = os.path.realpath(target)
    for member in tar:
        yield _sanitized(member, root)


def _inside(root: str, path: str) -> bool:
    return os.path.commonpath([root, path]) == root


def _sanitized(member: tarfile.TarInfo, root: str) -> tarfile.TarInfo:
    name = member.name
    if os.path.isabs(name):
        raise UnsafeMember(f"{name!r}: an absolute path")
    dest = os.path.realpath(os.path.join(root, name))
    if not _inside(root, dest):
        raise UnsafeMember(f"{name!r} would be written outside {root}")
    if member.ischr() or member.isblk() or member.isfifo():
        raise UnsafeMember(f"{name!r} is a device file or FIFO")
    if member.issym():
        if os.path.isabs(member.linkname):
            raise UnsafeMember(f"{name!r} links to an absolute path {member.linkname!r}")
        linked = os.path.realpath(os.path.join(os.path.dirname(dest), member.linkname))
        if not _inside(root, linked):
            raise UnsafeMember(f"{name!r} links outside {root} ({member.linkname!r})")
    elif member.islnk():
        if os.path.isabs(member.linkname):
            raise UnsafeMember(f"{name!r} links to an absolute path {member.linkname!r}")
        linked = os.path.realpath(os.path.join(root, member.linkname))
        if not _inside(root, linked):
            raise UnsafeMember(f"{name!r} links outside {root} ({member.linkname!r})")
    elif not (member.isreg() or member.isdir()):
        raise UnsafeMember(f"{name!r} is neither a file, a folder nor a link")
    safe = copy.copy(member)
    # The extracting user owns what it writes: an empty name makes tarfile (as root) fall
    # back to these ids instead of looking the archive's owner up.
    safe.uid, safe.gid, safe.uname, safe.gname = os.getuid(), os.getgid(), "", ""
    if member.isreg():
        mode = (member.mode & 0o755) | 0o600
        if not mode & 0o100:
            mode &= ~0o111
        safe.mode = mode
    elif member.isdir():
        safe.mode = (member.mode & 0o755) | 0o700
    return safe
