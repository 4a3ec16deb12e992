"""extract_all keeps every member inside the target, with tarfile's "data" filter and
without it (as on Python 3.11.2, forced here on any interpreter by hiding the filter)."""

from __future__ import annotations

import contextlib
import io
import stat
import tarfile
from pathlib import Path

import pytest

from claims.testing import archive
from claims.testing.archive import extract_all

NATIVE = archive.has_data_filter()
# The fallback forced where the filter exists (3.12+): tarfile warns that 3.14 will filter
# by default, which is what the fallback stands in for.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Python 3.14 will, by default, filter:DeprecationWarning")


@pytest.fixture(params=["data filter", "fallback"])
def way(request, monkeypatch):
    """Each test runs through tarfile's filter (where this Python has it) and the fallback."""
    if request.param == "data filter" and not NATIVE:
        pytest.skip("this Python's tarfile has no data filter (before 3.11.4): the fallback "
                    "is what runs here, and its parameter tests it")
    if request.param == "fallback":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
        assert not archive.has_data_filter()
    return request.param


def _archive(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _info(name: str, kind: bytes = tarfile.REGTYPE, *, link: str = "", mode: int = 0o644
          ) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, mode
    return info


def _extract(tmp_path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    target = tmp_path / "target"
    target.mkdir()
    with tarfile.open(_archive(tmp_path / "a.tar", members)) as tar:
        extract_all(tar, target)
    return target


def _outside(tmp_path: Path) -> list[str]:
    """What exists beside the target folder that the test did not put there."""
    return sorted(p.name for p in tmp_path.iterdir() if p.name not in {"target", "a.tar"})


def test_a_plain_archive_extracts_whole(tmp_path, way):
    target = _extract(tmp_path, [
        (_info("models", tarfile.DIRTYPE, mode=0o755), None),
        (_info("models/blob"), b"weights"),
        (_info("models/same", tarfile.LNKTYPE, link="models/blob"), None),
        (_info("models/latest", tarfile.SYMTYPE, link="blob"), None),
    ])
    assert (target / "models" / "blob").read_bytes() == b"weights"
    assert (target / "models" / "same").stat().st_ino == (target / "models" / "blob").stat().st_ino
    assert (target / "models" / "latest").readlink() == Path("blob")
    assert _outside(tmp_path) == []


@pytest.mark.parametrize(("case", "members"), [
    ("a parent path", [(_info("../escaped"), b"x")]),
    ("a symlink out by ..", [(_info("up", tarfile.SYMTYPE, link="../escaped"), None),
                             (_info("up"), b"x")]),
    ("an absolute symlink", [(_info("etc", tarfile.SYMTYPE, link="/etc"), None)]),
    ("a hard link out", [(_info("hard", tarfile.LNKTYPE, link="../a.tar"), None)]),
    ("a path through an earlier link", [
        (_info("sub", tarfile.DIRTYPE, mode=0o755), None),
        (_info("sub/root", tarfile.SYMTYPE, link=".."), None),
        (_info("sub/root/../escaped"), b"x"),
    ]),
    ("a character device", [(_info("tty", tarfile.CHRTYPE), None)]),
    ("a block device", [(_info("disk", tarfile.BLKTYPE), None)]),
    ("a FIFO", [(_info("pipe", tarfile.FIFOTYPE), None)]),
])
def test_an_unsafe_member_is_refused_and_nothing_leaves_the_target(tmp_path, way, case, members):
    with pytest.raises(tarfile.TarError):
        _extract(tmp_path, members)
    assert _outside(tmp_path) == [], case
    target = tmp_path / "target"
    assert not [p for p in target.rglob("*")
                if stat.S_ISCHR(p.lstat().st_mode) or stat.S_ISBLK(p.lstat().st_mode)
                or stat.S_ISFIFO(p.lstat().st_mode)]


def test_an_absolute_name_stays_inside_the_target(tmp_path, way):
    # The filter strips the leading slash; the fallback refuses the member. Either way
    # nothing is written at the absolute path.
    outside = tmp_path / "abs-escaped"
    with contextlib.suppress(tarfile.TarError):
        _extract(tmp_path, [(_info(str(outside)), b"x")])
    assert not outside.exists()


def test_setuid_and_shared_write_bits_are_dropped(tmp_path, way):
    target = _extract(tmp_path, [(_info("tool", mode=0o4777), b"#!/bin/sh\n"),
                                 (_info("notes", mode=0o666), b"text")])
    assert stat.S_IMODE((target / "tool").stat().st_mode) == 0o755
    assert stat.S_IMODE((target / "notes").stat().st_mode) == 0o644
