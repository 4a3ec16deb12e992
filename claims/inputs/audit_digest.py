"""The digest of everything a mutation audit's result depends on, so a kept result is
reused only on the checkout it was made on.

``claims audit`` takes a minute or more (every stated figure perturbed, its claim's
tests rerun); its answer changes only when what it reads changes. So the result kept
in ``reports/audit.json`` carries :func:`audit_digest` of its checkout, and a later
``claims audit`` (``scripts/certify-offline.sh`` runs one before every certification)
reruns only when the digest of the checkout differs; ``--force`` reruns regardless
(``scripts/test.sh``'s audit test and CI always do). The report shows the kept audit
as this checkout's only when the digests agree.

What the digest covers, and why each:

* ``claims/`` whole (not only ``*.py``): the catalog and its anchors
  (``claims/catalog/*.toml``), the probes, the check API, the plugin the audit drives
  and the audit itself; a template or schema file changes no verdict, but telling
  "code the audit runs" from "code it does not" by hand would be a list to forget to
  update, and rerunning once too often only costs a minute;
* ``fixtures/`` whole: the recorded figures (``fixtures/recorded``) the claim tests
  judge and the audit perturbs, and every captured file a claim test reads;
* ``tests/claims/``, ``tests/conftest.py`` and ``conftest.py``: the claim tests the
  audit reruns and the fixtures they get;
* ``pyproject.toml``: the suite's version and pytest's configuration of the run.

The interpreter and the machine are not in the digest: the audit measures the suite's
checks, which are the same sources on every machine, and its result is kept with those
sources (``claims/audit/kept.json``, :data:`KEPT_AUDIT`) so that a fresh clone's first
certification need not rerun it (issue 51). The result names the Python and the
machine it ran on (:func:`platform_of`), and the terminal and the report say so
where they are not the run's own; that kept file is the audit's output, not one of its
inputs, and is left out of the digest.

Paths are hashed sorted, each with its contents, so the digest does not depend on
the order the file system lists them in, and a renamed or moved file changes it as
an edited one does. Bytecode caches and editor leftovers (``__pycache__``, hidden
files) are not inputs and are skipped. Hashing the ~1000 files (a few MB) takes a few
hundredths of a second: only the standard library is imported here, so the check
that a kept audit is current costs no more than starting Python.

The documents (``--claims-documents``) are not part of the checkout; whether the
transcriptions were audited against them, and which, is :func:`documents_digest`,
kept beside.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["AUDIT_INPUTS", "KEPT_AUDIT", "audit_digest", "documents_digest", "platform_of",
           "short"]

# What a mutation audit reads, relative to the checkout's root (see the module docstring).
AUDIT_INPUTS = (
    "claims",
    "fixtures",
    "tests/claims",
    "tests/conftest.py",
    "conftest.py",
    "pyproject.toml",
)
_SKIPPED_DIRS = {"__pycache__"}
# The audit result kept with the sources, relative to the checkout's root: proved current
# by the suite's own tests (tests/audit/test_kept.py) and by CI's full audit.
KEPT_AUDIT = "claims/audit/kept.json"


def _files(root: Path, rel: str) -> Iterator[tuple[bytes, Path]]:
    """(path relative to root as bytes, path) of each file under ``rel``; names are kept
    as bytes, so a file name that is not UTF-8 is hashed as it is, not skipped."""
    top = root / rel
    if top.is_file() or top.is_symlink():
        yield os.fsencode(rel), top
        return
    for here, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith(".")]
        for name in names:
            if name.startswith(".") or name.endswith((".pyc", ".pyo")):
                continue
            path = Path(here, name)
            relative = path.relative_to(root)
            if relative.as_posix() == KEPT_AUDIT:
                continue  # the audit's own output
            yield os.fsencode(relative), path


def _content(path: Path) -> bytes:
    """What a file contributes: its bytes, or where a link points (a link is not followed:
    its target may lie outside the checkout)."""
    try:
        if path.is_symlink():
            return b"link:" + os.fsencode(os.readlink(path))
        return path.read_bytes()
    except OSError as exc:  # unreadable: a state of its own, not a crash
        return f"unreadable: {exc.strerror}".encode()


def _hash(entries: Iterable[tuple[bytes, Path]], *extra: str) -> str:
    digest = hashlib.sha256()
    for text in extra:
        digest.update(text.encode() + b"\0")
    for rel, path in sorted(entries, key=lambda e: e[0]):
        content = _content(path)
        # Length-prefixed, so no two different trees hash the same bytes.
        digest.update(b"%d:%s%d:" % (len(rel), rel, len(content)))
        digest.update(content)
    return digest.hexdigest()


def audit_digest(root: Path) -> str:
    """SHA-256 over every input of a mutation audit of the checkout at ``root``."""
    root = Path(root)
    entries = [entry for rel in AUDIT_INPUTS for entry in _files(root, rel)]
    return _hash(entries, "sources")


def platform_of() -> dict[str, str]:
    """The interpreter and machine an audit ran on, as its result records them."""
    return {
        "python": ".".join(str(v) for v in sys.version_info[:3]),
        "machine": platform.machine() or "unknown",
    }


def documents_digest(documents: Path | None) -> str | None:
    """SHA-256 over the documents folder's files (None: no documents were given)."""
    if documents is None:
        return None
    folder = Path(documents)
    entries = [(os.fsencode(p.name), p) for p in folder.iterdir() if p.is_file()] \
        if folder.is_dir() else []
    return _hash(entries, f"documents {folder}")


def short(digest: object) -> str:
    """A digest as the terminal and the report show it (its first 12 hex digits)."""
    return str(digest)[:12] if isinstance(digest, str) and digest else "none"
