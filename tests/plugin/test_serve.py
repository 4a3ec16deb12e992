"""--ollama-serve in the plugin: the tier's host, facts in the evidence, ordering, cleanup.

Runs inner pytest sessions (pytester) against the fake ``ollama`` executable
(claims.testing.fake_ollama_serve), so no Ollama is needed.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import gguf  # noqa: F401  (imported once here: pytester's in-process runs unload what they import,
import numpy  # noqa: F401  and numpy cannot be loaded twice in one process)
import pytest

from claims.plugin.serve import USER_ENV_NAMES
from claims.probes.files.ollama_store import MODEL_MEDIA_TYPE
from claims.testing.fake_ollama_serve import write_executable
from claims.testing.store_builder import StoreWriter, write_tiny_gguf


@pytest.fixture
def fake_setup(claims_pytester, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The arguments that point an inner session at the fake binary and a small user store."""
    tmp = tmp_path_factory.mktemp("serve")
    writer = StoreWriter(tmp / "models")
    blob = writer.blob_file(write_tiny_gguf(tmp / "m.gguf"), MODEL_MEDIA_TYPE, link="copy")[0]
    writer.model("tiny:latest", [blob], model_type="256")
    binary = write_executable(tmp / "bin" / "ollama")
    return [
        f"--ollama-serve={binary}",
        f"--ollama-models-dir={tmp / 'models'}",
        "--ollama-model=tiny",
    ]


def _pids(text: str) -> list[int]:
    return [int(p) for p in re.findall(r"PID=(\d+)", text)]


def _gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_a_missing_binary_is_a_usage_error(claims_pytester):
    claims_pytester.pytester.makepyfile("def test_nothing():\n    pass\n")
    result = claims_pytester.run("--ollama-serve=/no/such/ollama")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ollama-serve: /no/such/ollama is not an executable file*"])


def test_a_binary_not_on_path_is_a_usage_error(claims_pytester, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    claims_pytester.pytester.makepyfile("def test_nothing():\n    pass\n")
    result = claims_pytester.run("--ollama-serve")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ollama-serve: no executable 'ollama' on PATH*"])


@pytest.mark.slow
def test_the_tier_runs_on_the_private_server_and_it_is_gone_afterwards(
    claims_pytester, fake_setup
):
    claims_pytester.pytester.makepyfile(
        """
        import os
        import pytest

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_server(check, claims_settings, pytestconfig):
            from claims.plugin.serve import SERVE
            servers = pytestconfig.stash[SERVE]
            server = servers.current
            print(f"PID={server.pid}")
            for child in server.children():
                print(f"PID={child.pid}")
            assert claims_settings.ollama_host == server.url
            assert claims_settings.allow_unload  # the server is the suite's own
            # and so is its store: store claims read what the private server writes.
            assert claims_settings.models_dir == str(servers.models_dir)
            check.measure("answered", True, holds=True, expected="an answer")
        """
    )
    result = claims_pytester.run("-s", *fake_setup, subprocess=True)
    result.assert_outcomes(passed=1)
    pids = _pids(result.stdout.str())
    assert pids and all(_gone(pid) for pid in pids)
    evidence = claims_pytester.evidence()
    (check,) = claims_pytester.claim("T1-SERVER")["checks"]
    fact = check["facts"]["ollama_server"]
    assert fact["kind"] == "private" and fact["version"] == "0.31.2"
    assert fact["environment"]["OLLAMA_NO_CLOUD"] == "1"
    assert Path(fact["log"]).is_file() and "server config" in Path(fact["log"]).read_text()
    assert evidence["run"]["options"]["ollama_serve"].endswith("ollama")
    assert evidence["run"]["options"]["user_models_dir"] == fake_setup[1].split("=", 1)[1]
    assert evidence["run"]["options"]["models_dir"] != evidence["run"]["options"][
        "user_models_dir"]
    assert evidence["run"]["tier_status"]["ollama"]["server"] == "private"


@pytest.mark.slow
def test_the_server_is_stopped_after_a_failing_test(claims_pytester, fake_setup):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_fails(pytestconfig):
            from claims.plugin.serve import SERVE
            print(f"PID={pytestconfig.stash[SERVE].current.pid}")
            raise RuntimeError("boom")
        """
    )
    result = claims_pytester.run("-s", *fake_setup, subprocess=True)
    result.assert_outcomes(failed=1)
    assert all(_gone(pid) for pid in _pids(result.stdout.str()))


@pytest.mark.slow
def test_the_server_is_stopped_after_ctrl_c(claims_pytester, fake_setup):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_interrupted(pytestconfig):
            from claims.plugin.serve import SERVE
            print(f"PID={pytestconfig.stash[SERVE].current.pid}")
            raise KeyboardInterrupt
        """
    )
    result = claims_pytester.run("-s", *fake_setup, subprocess=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    pids = _pids(result.stdout.str())
    assert pids and all(_gone(pid) for pid in pids)


@pytest.mark.slow
def test_the_server_is_stopped_after_sigterm(claims_pytester, fake_setup):
    # Python's default SIGTERM would end pytest with no cleanup at all.
    claims_pytester.pytester.makepyfile(
        """
        import os, signal, time
        import pytest

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_terminated(pytestconfig):
            from claims.plugin.serve import SERVE
            print(f"PID={pytestconfig.stash[SERVE].current.pid}", flush=True)
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        """
    )
    result = claims_pytester.run("-s", *fake_setup, subprocess=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    pids = _pids(result.stdout.str())
    assert pids and all(_gone(pid) for pid in pids)


@pytest.mark.slow
def test_a_server_that_cannot_start_makes_the_tier_not_run_with_its_log(
    claims_pytester, tmp_path
):
    broken = write_executable(tmp_path / "bin" / "ollama", mode="exit")
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_server(check):
            raise AssertionError("must not run")
        """
    )
    result = claims_pytester.run(f"--ollama-serve={broken}", "-rs", subprocess=True)
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*--ollama-serve: *exited with status 1*told to exit*"])
    assert claims_pytester.claim("T1-SERVER")["verdict"] == "not-run"


@pytest.mark.slow
def test_group_tests_run_after_the_others_group_by_group(claims_pytester, fake_setup):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.ollama
        @pytest.mark.ollama_server("after-all")
        @pytest.mark.claim("T1-SERVER")
        def test_last(check):
            check.measure("ran", True, holds=True, expected="it ran")
            print("ORDER last")

        @pytest.mark.ollama
        @pytest.mark.ollama_server("b")
        @pytest.mark.claim("T1-SERVER")
        def test_b1(check):
            check.measure("ran", True, holds=True, expected="it ran")
            print("ORDER b1")

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_plain(check):
            check.measure("ran", True, holds=True, expected="it ran")
            print("ORDER plain")

        @pytest.mark.ollama
        @pytest.mark.ollama_server("a")
        @pytest.mark.claim("T1-SERVER")
        def test_a(check):
            check.measure("ran", True, holds=True, expected="it ran")
            print("ORDER a")

        @pytest.mark.ollama
        @pytest.mark.ollama_server("b")
        @pytest.mark.claim("T1-SERVER")
        def test_b2(check):
            check.measure("ran", True, holds=True, expected="it ran")
            print("ORDER b2")
        """
    )
    result = claims_pytester.run("-s", *fake_setup, subprocess=True)
    result.assert_outcomes(passed=5)
    order = re.findall(r"ORDER (\w+)", result.stdout.str())
    assert order == ["plain", "b1", "b2", "a", "last"]


def test_without_the_option_the_checks_say_they_used_the_users_server(claims_pytester):
    from claims.testing.fake_ollama import FakeOllama

    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_server(check):
            check.measure("answered", True, holds=True, expected="an answer")
        """
    )
    with FakeOllama() as fake:
        result = claims_pytester.run(f"--ollama-host={fake.url}")
    result.assert_outcomes(passed=1)
    (check,) = claims_pytester.claim("T1-SERVER")["checks"]
    fact = check["facts"]["ollama_server"]
    assert {k: fact[k] for k in ("kind", "url", "version")} == {
        "kind": "user's", "url": fake.url, "version": fake.version,
    }
    # The fake listens in this very process, whose environment /proc lets us read.
    assert isinstance(fact["environment"], dict)
    assert set(fact["environment"]) <= set(USER_ENV_NAMES)


@pytest.mark.slow
def test_logs_are_kept_under_reports(claims_pytester, fake_setup):
    claims_pytester.pytester.makepyfile(
        """
        import pytest

        @pytest.mark.ollama
        @pytest.mark.claim("T1-SERVER")
        def test_server(check):
            check.measure("ran", True, holds=True, expected="it ran")
        """
    )
    result = claims_pytester.run(*fake_setup, subprocess=True)
    result.assert_outcomes(passed=1)
    kept = claims_pytester.pytester.path / "reports" / "ollama-serve" / "main"
    (log,) = os.listdir(kept)
    assert "Listening on 127.0.0.1" in (kept / log).read_text()
    assert json.loads(claims_pytester.evidence_path.read_text())["run"]["complete"] is True


@pytest.mark.slow
def test_store_dedup_is_decided_against_the_private_servers_own_store(tmp_path):
    """MC-STORE-DEDUP under --ollama-serve --ollama-allow-create: the derived model is
    created on the private server and its manifest read from that server's store (the
    user's store is shared into it by hard link, and is left as it was)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    users = tmp_path / "models"
    writer = StoreWriter(users)
    # About 160 KB of weights, so that a derived model's metadata is well under 1% of them.
    gguf_file = write_tiny_gguf(tmp_path / "m.gguf", n_tokens=5000)
    blob = writer.blob_file(gguf_file, MODEL_MEDIA_TYPE, link="copy")[0]
    writer.model("tiny:latest", [blob], model_type="256")
    before = sorted(p.relative_to(users) for p in users.rglob("*"))
    binary = write_executable(tmp_path / "bin" / "ollama")
    evidence = tmp_path / "evidence.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
         "-p", "no:benchmark", "-q", "-m", "ollama", f"--rootdir={root}",
         "--claims-profile=generic", f"--ollama-serve={binary}", f"--ollama-models-dir={users}",
         "--ollama-model=tiny", "--ollama-allow-create", "--claim", "MC-STORE-DEDUP",
         f"--claims-evidence={evidence}", f"--claims-report-html={tmp_path / 'r.html'}",
         str(root / "tests" / "claims" / "mc" / "test_ollama_create.py")],
        cwd=root, capture_output=True, text=True, timeout=300,
    )
    doc = json.loads(evidence.read_text("utf-8"))
    (claim,) = [c for c in doc["claims"] if c["id"] == "MC-STORE-DEDUP"]
    assert claim["verdict"] == "reproduced", (claim["reason"], proc.stdout[-2000:])
    (check,) = claim["checks"]
    assert check["facts"]["ollama_store"] == doc["run"]["options"]["models_dir"] != str(users)
    assert sorted(p.relative_to(users) for p in users.rglob("*")) == before
