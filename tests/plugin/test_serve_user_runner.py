"""The user's server's runner build: read beside the listening process's own executable.

claims.plugin.serve._user_runner_build finds the process listening at the tier's URL
(/proc), takes its executable (/proc/PID/exe) and runs the ``llama-server --version``
installed beside it, as a real Ollama install lays them out (bin/ollama,
lib/ollama/llama-server). Here the "server" is a copy of this Python interpreter named
``bin/ollama`` serving HTTP, and the runner a script printing what each real release's
runner printed (fixtures/ollama-*/cli/runner-version.txt).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from claims.plugin.serve import _user_runner_build
from claims.testing.ollama_versions import RELEASES

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def install(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """<tmp>/bin/ollama (a Python copy) listening on loopback; yields (prefix, url)."""
    binary = tmp_path / "bin" / "ollama"
    binary.parent.mkdir(parents=True)
    shutil.copy2(Path(sys.executable).resolve(), binary)
    probe = subprocess.run([str(binary), "-c", "import http.server"], capture_output=True,
                           timeout=30, check=False)
    if probe.returncode != 0:
        pytest.skip("a copy of this Python interpreter does not run from another folder")
    port = _free_port()
    proc = subprocess.Popen(
        [str(binary), "-m", "http.server", "--bind", "127.0.0.1", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield tmp_path, f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("version", sorted(RELEASES))
def test_the_runner_beside_the_servers_binary_is_asked(install, version: str):
    prefix, url = install
    runner = prefix / "lib" / "ollama" / "llama-server"
    runner.parent.mkdir(parents=True)
    text = RELEASES[version].runner_version_text
    runner.write_text(f"#!/bin/sh\ncat <<'EOF'\n{text}EOF\n", encoding="utf-8")
    runner.chmod(0o755)
    found = _user_runner_build(url)
    assert isinstance(found, dict), found
    assert found["build"] == RELEASES[version].llama_cpp_build
    assert found["source"] == "llama-server --version"


def test_no_runner_beside_it_says_so(install):
    prefix, url = install
    assert _user_runner_build(url) == f"not known: no llama-server beside {prefix}/bin/ollama"


def test_a_server_elsewhere_or_not_listening_is_not_known():
    assert _user_runner_build("http://192.0.2.1:11434").startswith("not known: the server is at")
    found = _user_runner_build(f"http://127.0.0.1:{_free_port()}")
    assert found.startswith("not known: the server's process is not readable")
