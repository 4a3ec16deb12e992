"""Where a run's evidence and report go, and what happens when they cannot go there.

Evidence is only worth what survives the run that made it, so the files are
treated as a database treats its own:

* **Checked before any test runs.** A target that exists and is not a regular
  file (a folder, ``/dev/full``, a FIFO) is a usage error: replacing a device
  node with a file, or failing on a folder at the end of a week of
  measurements, are both worse than refusing at once (:func:`check_targets`).
* **One writer per file.** Each run holds an exclusive lock (``flock``) on a
  lock file beside its evidence for the whole session. A second run started
  in the same checkout while the first holds it writes to files of its own
  (``evidence.<time>-<pid>.json`` and the matching report) and says so at the
  start and in its summary: neither overwrites the other (:func:`claim_targets`).
* **A full disk loses nothing.** Writes are atomic (temporary file beside the
  target, fsync, rename: :func:`claims.evidence.write_atomic`). One that fails
  (ENOSPC, EIO, a read-only remount) does not stop the run: the finished checks
  stay in memory, the writer tries again at the end, and if the target still
  cannot be written, writes a named fallback copy (:func:`fallback_paths`); the
  run says which, and exits non-zero (claims.plugin.writer).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from claims.evidence import write_atomic
from claims.plugin.options import Settings
from claims.terminal import safe

__all__ = ["RunFiles", "check_targets", "claim_targets", "fallback_paths", "release"]


def _check_one(path: Path, flag: str) -> None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        parent = next((p for p in path.parents if p.exists()), None)
        if parent is not None and not parent.is_dir():
            raise pytest.UsageError(
                f"{flag} {safe(path)}: {safe(parent)} is not a folder"
            ) from None
        return
    except OSError as exc:
        raise pytest.UsageError(f"{flag} {safe(path)}: cannot be used ({exc.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise pytest.UsageError(
            f"{flag} {safe(path)} is a folder; name a file in it "
            f"(e.g. {safe(path / ('evidence.json' if 'evidence' in flag else 'report.html'))})"
        )
    if not stat.S_ISREG(st.st_mode):
        raise pytest.UsageError(
            f"{flag} {safe(path)} exists and is not a regular file (a device, FIFO or "
            "socket); the run would replace it. Name a file"
        )


def check_targets(settings: Settings) -> None:
    """A usage error, before any test runs, for an evidence or report path that is no file."""
    if settings.evidence_path is not None:
        _check_one(settings.evidence_path, "--claims-evidence")
    if settings.report_path is not None:
        _check_one(settings.report_path, "--claims-report-html")


@dataclass
class RunFiles:
    """The files this run writes, the lock it holds, and what it had to do to get them."""

    settings: Settings
    lock_fd: int | None = None
    lock_path: Path | None = None
    # Said at the start and in the summary when this run did not get the files it was given.
    note: str | None = None


def _lock(path: Path) -> tuple[int | None, Path, bool]:
    """(fd, lock path, whether this run holds it); fd None: no lock could be made (say so)."""
    import fcntl

    lock = path.with_name(f".{path.name}.lock")
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None, lock, True  # a read-only folder: the write will say what is wrong
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None, lock, False
    except OSError:
        return fd, lock, True  # a file system without locks: carry on as before
    with contextlib.suppress(OSError):  # who holds it, for the second run's message
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    return fd, lock, True


def _holder(lock: Path) -> str:
    try:
        pid = lock.read_text("ascii", errors="replace").strip()[:20]
    except OSError:
        return "another run"
    return f"another run (pid {pid})" if pid.isdigit() else "another run"


def _own_name(path: Path, tag: str) -> Path:
    return path.with_name(f"{path.stem}.{tag}{path.suffix}")


def claim_targets(settings: Settings) -> RunFiles:
    """Lock this run's evidence file; if another run holds it, take files of this run's own."""
    assert settings.evidence_path is not None
    fd, lock, held = _lock(settings.evidence_path)
    if held:
        return RunFiles(settings, fd, lock if fd is not None else None)
    tag = f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    evidence = _own_name(settings.evidence_path, tag)
    report = _own_name(settings.report_path, tag) if settings.report_path is not None else None
    fd, lock, _ = _lock(evidence)
    note = (
        f"{_holder(settings.evidence_path.with_name(f'.{settings.evidence_path.name}.lock'))} "
        f"is writing {safe(settings.evidence_path)}; this run writes its evidence to "
        f"{safe(evidence)}" + (f" and its report to {safe(report)}" if report else "")
        + " instead (neither run overwrites the other)"
    )
    return RunFiles(replace(settings, evidence_path=evidence, report_path=report), fd,
                    lock if fd is not None else None, note)


def release(files: RunFiles) -> None:
    """Give up the lock (the lock file stays: removing it would race a run starting now)."""
    if files.lock_fd is not None:
        with contextlib.suppress(OSError):
            os.close(files.lock_fd)
        files.lock_fd = None


def fallback_paths(target: Path) -> list[Path]:
    """Where the evidence goes when its own file cannot be written: named after it and the run,
    in the system's temporary folder, then in the home folder (other file systems, likely)."""
    name = f"{target.stem}.fallback-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}{target.suffix}"
    places: list[Path] = []
    for place in (Path(tempfile.gettempdir()), Path.home()):
        if place.resolve() not in {p.resolve() for p in places} | {target.parent.resolve()}:
            places.append(place)
    return [p / name for p in places]


class WriteFailures:
    """The writes of a run's evidence that failed, and how the run ended up keeping it."""

    def __init__(self) -> None:
        self.count = 0
        self.first: str | None = None
        self.last: str | None = None

    def __bool__(self) -> bool:
        return self.count > 0

    def add(self, exc: OSError) -> None:
        why = exc.strerror or type(exc).__name__
        self.count += 1
        self.first = self.first or why
        self.last = why

    def settle(self, target: Path, written_at_end: bool, text: str) -> str:
        """What the run says at its end (and where the evidence is), after failures.

        ``written_at_end``: the last write to ``target`` succeeded (space came back);
        otherwise ``text`` (the whole evidence) is written to a fallback copy.
        """
        times = "once" if self.count == 1 else f"{self.count} times"
        head = f"evidence could not be written to {safe(target)} ({self.first}; {times})"
        if written_at_end:
            return f"{head}; written in full at the end, when it could be"
        tried = []
        for path in fallback_paths(target):
            try:
                write_atomic(path, text)
            except OSError as exc:
                tried.append(f"{safe(path)}: {exc.strerror or type(exc).__name__}")
                continue
            return f"{head}; every finished check is in the fallback copy {safe(path)}"
        return (f"{head}; no fallback copy could be written either "
                f"({'; '.join(tried) or 'no other place'}): the evidence is lost")
