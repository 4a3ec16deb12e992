"""Fixtures for testing the claims plugin itself with pytester."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from typing import Any

import httpcore  # noqa: F401  (see below)
import pytest

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

    def run(self, *args: str, subprocess: bool = False) -> pytest.RunResult:
        if subprocess:
            # A bound, so a hung child fails the test instead of hanging the session.
            return self.pytester.runpytest_subprocess(
                *self.base_args, *args, timeout=SUBPROCESS_TIMEOUT_S
            )
        return self.pytester.runpytest(*self.base_args, *args)

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
def claims_pytester(pytester: pytest.Pytester) -> ClaimsPytester:
    return ClaimsPytester(pytester)
