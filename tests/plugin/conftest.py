"""Fixtures for testing the claims plugin itself with pytester."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpcore  # noqa: F401  (see below)
import pytest

from tests.signals import default_signals

# httpx imports httpcore lazily and caches its exception map on first use.
# pytester's in-process runs drop modules first imported inside a run, so a second
# run would import a fresh httpcore whose errors that map no longer knows: a
# refused connection would escape as a raw httpcore.ConnectError. Importing it
# here keeps one httpcore for the whole session.

# The toy catalog (tests/toy_catalog/T1.toml): the plugin's behaviour is tested apart
# from the real documents' records (which other tests cover).
TOY_CATALOG = Path(__file__).resolve().parents[1] / "toy_catalog"


SUBPROCESS_TIMEOUT_S = 120


def free_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ClaimsPytester:
    """pytester with the claims plugin, the test catalog and a closed Ollama port."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        catalog = pytester.path / "catalog"
        shutil.copytree(TOY_CATALOG, catalog)
        self.base_args = [
            "-p",
            "claims.plugin",
            "-p",
            "no:cacheprovider",
            "--strict-markers",
            f"--claims-catalog={catalog}",
            f"--ollama-host=http://127.0.0.1:{free_port()}",
            "--claims-profile=generic",
        ]

        self._children: list[subprocess.Popen[str]] = []

    def run(self, *args: str, subprocess: bool = False) -> pytest.RunResult:
        if subprocess:
            # A bound, so a hung child fails the test instead of hanging the session.
            return self.pytester.runpytest_subprocess(
                *self.base_args, *args, timeout=SUBPROCESS_TIMEOUT_S
            )
        return self.pytester.runpytest(*self.base_args, *args)

    def start(self, *args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        """A child pytest of the project running in the background (for a test that acts
        on it while it runs: a signal, a second run at once), its stdout and stderr as one
        text; ``env`` adds to this process's environment. Killed at the test's end if it
        is still running (:meth:`close`)."""
        child = subprocess.Popen(
            [sys.executable, "-m", "pytest", *self.base_args, *args],
            cwd=self.pytester.path, env={**os.environ, **(env or {})}, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            preexec_fn=default_signals,  # it hears a signal even if this run ignores it
        )
        self._children.append(child)
        return child

    @staticmethod
    def output(child: subprocess.Popen[str], timeout: float = SUBPROCESS_TIMEOUT_S) -> str:
        """What a started child printed, once it ended (bounded: a hung child fails)."""
        return child.communicate(timeout=timeout)[0]

    def close(self) -> None:
        """Kill the started children that are still running, and reap them."""
        for child in self._children:
            if child.poll() is None:
                child.kill()
                child.communicate()

    @property
    def evidence_path(self) -> Path:
        return self.pytester.path / "reports" / "evidence.json"

    def evidence(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.evidence_path.read_text(encoding="utf-8"))
        return data

    def claim(self, claim_id: str) -> dict[str, Any]:
        for claim in self.evidence()["claims"]:
            if claim["id"] == claim_id:
                return claim
        raise KeyError(claim_id)


@pytest.fixture
def claims_pytester(pytester: pytest.Pytester) -> Iterator[ClaimsPytester]:
    project = ClaimsPytester(pytester)
    yield project
    project.close()


@pytest.fixture
def spare_home(claims_pytester: ClaimsPytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project's ``spare/`` folder as TMPDIR and HOME of every child run (where the
    evidence writer puts a fallback copy), so nothing lands in the real ones."""
    spare = claims_pytester.pytester.path / "spare"
    spare.mkdir(exist_ok=True)
    monkeypatch.setenv("TMPDIR", str(spare))
    monkeypatch.setenv("HOME", str(spare))
    return spare
