"""claims.file_cache: a file read once is read again exactly when it changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from claims import file_cache

HOUR_NS = 3600 * 10**9


@pytest.fixture
def reads(monkeypatch):
    """How many times each path was really read, through Path.read_text."""
    counted: dict[str, int] = {}
    real = Path.read_text

    def counting(self: Path, *args, **kwargs):
        counted[str(self)] = counted.get(str(self), 0) + 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counting)
    monkeypatch.setattr(file_cache, "_TEXTS", file_cache.FileMemo(file_cache.MAX_FILES))
    return counted


def _settle(monkeypatch) -> None:
    """Files written by the test count as settled 50 ms later (not two seconds)."""
    monkeypatch.setattr(file_cache, "SETTLED_NS", 50_000_000)
    time.sleep(0.06)


def test_a_settled_file_is_read_once(tmp_path, reads, monkeypatch):
    path = tmp_path / "a.toml"
    path.write_text("x = 1\n", encoding="utf-8")
    _settle(monkeypatch)
    assert [file_cache.read_text(path) for _ in range(3)] == ["x = 1\n"] * 3
    assert reads[str(path)] == 1


def test_a_file_just_written_is_read_every_time(tmp_path, reads):
    # Too recent to tell apart from an edit made in the same clock tick.
    path = tmp_path / "a.toml"
    path.write_text("x = 1\n", encoding="utf-8")
    file_cache.read_text(path)
    file_cache.read_text(path)
    assert reads[str(path)] == 2


def test_an_edit_is_seen_at_once(tmp_path, reads, monkeypatch):
    path = tmp_path / "a.toml"
    path.write_text("x = 1\n", encoding="utf-8")
    _settle(monkeypatch)
    assert file_cache.read_text(path) == "x = 1\n"
    path.write_text("x = 2\n", encoding="utf-8")  # same size
    assert file_cache.read_text(path) == "x = 2\n"


def test_an_edit_with_its_old_times_put_back_is_seen(tmp_path, reads, monkeypatch):
    # touch -d / os.utime can restore the modification time, not the change time.
    path = tmp_path / "a.toml"
    path.write_text("x = 1\n", encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns - HOUR_NS, st.st_mtime_ns - HOUR_NS))
    _settle(monkeypatch)
    old = path.stat()
    assert file_cache.read_text(path) == "x = 1\n"
    path.write_text("x = 2\n", encoding="utf-8")
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert path.stat().st_mtime_ns == old.st_mtime_ns
    assert file_cache.read_text(path) == "x = 2\n"


def test_a_file_replaced_by_another_is_seen(tmp_path, reads, monkeypatch):
    path = tmp_path / "a.toml"
    path.write_text("x = 1\n", encoding="utf-8")
    other = tmp_path / "b.toml"
    other.write_text("x = 2\n", encoding="utf-8")
    os.utime(other, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    _settle(monkeypatch)
    assert file_cache.read_text(path) == "x = 1\n"
    os.replace(other, path)
    assert file_cache.read_text(path) == "x = 2\n"


def test_errors_are_raised_every_time_and_never_kept(tmp_path, reads, monkeypatch):
    path = tmp_path / "a.toml"
    with pytest.raises(FileNotFoundError):
        file_cache.read_text(path)
    path.write_bytes(b"\xff\xfe")
    _settle(monkeypatch)
    before = reads.get(str(path), 0)  # the missing file's attempt, if it got as far as a read
    for _ in range(2):
        with pytest.raises(UnicodeDecodeError):
            file_cache.read_text(path)
    assert reads[str(path)] == before + 2


def test_the_kept_files_are_bounded(tmp_path, reads, monkeypatch):
    monkeypatch.setattr(file_cache, "_TEXTS", file_cache.FileMemo(3))
    paths = [tmp_path / f"{i}.toml" for i in range(5)]
    for path in paths:
        path.write_text("x\n", encoding="utf-8")
    _settle(monkeypatch)
    for path in paths:
        file_cache.read_text(path)
    assert file_cache._TEXTS.paths() == [str(p) for p in paths[-3:]]
