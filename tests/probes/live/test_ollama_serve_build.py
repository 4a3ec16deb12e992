"""What the private-server probes read from a server's text, on both recorded releases.

The runner's llama.cpp build (claims.probes.live.ollama_serve.build) and the ``server
config`` line (MC-ENV-DEFAULTS) are parsed from what real Ollama 0.31.2 and 0.32.15
printed (fixtures/ollama-*/cli/), and from the fake executable answering as each.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import httpx
import pytest

from claims.probes.live.ollama_serve import (
    CLAIM_VARIABLES,
    PrivateServers,
    flag_value,
    parse_runner_build,
    parse_server_config,
    runner_binary,
    runner_version,
)
from claims.probes.live.ollama_serve.build import _FORMS
from claims.testing.fake_ollama_serve import write_executable
from claims.testing.ollama_versions import RELEASES
from claims.testing.store_builder import StoreWriter, write_tiny_gguf

ROOT = Path(__file__).resolve().parents[3]
VERSIONS = sorted(RELEASES)
MODEL_MEDIA_TYPE = "application/vnd.ollama.image.model"


def cli(version: str, name: str) -> str:
    return (ROOT / "fixtures" / f"ollama-{version}" / "cli" / name).read_text("utf-8")


# --- the runner's build, from real text -----------------------------------------------------------
@pytest.mark.parametrize(
    ("version", "name", "label", "source"),
    [
        ("0.31.2", "serve-log-excerpt.txt", "b9888 (cb295bf59)", "runner start line"),
        ("0.31.2", "prebuilt-serve-log-lines.txt", "b9888 (cb295bf)", "runner start line"),
        ("0.31.2", "runner-version.txt", "b9888 (cb295bf)", "llama-server --version"),
        ("0.32.15", "serve-log-excerpt.txt", "b10488 (9d77fa1)", "runner start line"),
        ("0.32.15", "prebuilt-serve-log-lines.txt", "b10488 (9d77fa1)", "runner start line"),
        ("0.32.15", "runner-version.txt", "b10488 (9d77fa1)", "llama-server --version"),
    ],
)
def test_the_build_each_release_printed(version: str, name: str, label: str, source: str):
    found = parse_runner_build(cli(version, name))
    assert found is not None
    assert (found.label, found.source) == (label, source)
    assert found.build == RELEASES[version].llama_cpp_build


@pytest.mark.parametrize("version", VERSIONS)
def test_what_ollama_create_logs_before_any_runner_started(version: str):
    # The first lines of the prebuilt server's log: `ollama create` quantizing, no runner yet.
    lines = cli(version, "prebuilt-serve-log-lines.txt").splitlines()
    before = "\n".join(lines[: next(i for i, x in enumerate(lines) if "starting llama" in x)])
    found = parse_runner_build(before)
    assert found is not None and found.build == RELEASES[version].llama_cpp_build
    expected = "build info line" if version == "0.31.2" else "llama-server --version"
    assert found.source == expected


def test_the_last_runner_start_wins_and_junk_is_none():
    two = (
        "cmn  common_param: common_params_print_info: build 9888 (cb295bf) with GNU\n"
        "cmn  common_param: common_params_print_info: build 10488 (9d77fa1) with GNU\n"
    )
    found = parse_runner_build(two)
    assert found is not None and found.label == "b10488 (9d77fa1)"
    assert parse_runner_build("") is None
    assert parse_runner_build("build 12 (zzzzzzz)\nversion: x\n") is None
    assert parse_runner_build("common_params_print_info: build 99999999999 (abcdef0)") is None


def test_the_schema_names_every_source_the_parser_gives():
    schema = json.loads((ROOT / "claims" / "schema" / "evidence.schema.json").read_text())
    record = schema["$defs"]["RunnerBuildRecord"]
    assert set(record["properties"]["source"]["enum"]) == {source for source, _ in _FORMS}


def _script(path: Path, text: str, status: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ncat <<'EOF'\n{text}EOF\nexit {status}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("version", VERSIONS)
def test_runner_version_runs_the_llama_server_beside_the_binary(tmp_path: Path, version: str):
    ollama = _script(tmp_path / "bin" / "ollama", "")
    assert runner_binary(ollama) is None and runner_version(ollama) is None
    _script(tmp_path / "lib" / "ollama" / "llama-server", RELEASES[version].runner_version_text)
    assert runner_binary(ollama) == tmp_path / "lib" / "ollama" / "llama-server"
    found = runner_version(ollama)
    assert found is not None and found.build == RELEASES[version].llama_cpp_build


def test_a_runner_that_fails_or_says_nothing_is_no_build(tmp_path: Path):
    ollama = _script(tmp_path / "bin" / "ollama", "")
    _script(tmp_path / "lib" / "ollama" / "llama-server", "usage: no such flag\n", status=1)
    assert runner_version(ollama) is None


# --- the server config line (MC-ENV-DEFAULTS) ------------------------------------------------
@pytest.mark.parametrize("version", VERSIONS)
def test_the_server_config_line_of_each_release(version: str):
    config = parse_server_config(cli(version, "serve-start.log"))
    assert config is not None
    assert {k: config[k] for k in CLAIM_VARIABLES} == {
        "OLLAMA_NUM_PARALLEL": "1",
        "OLLAMA_MAX_LOADED_MODELS": "0",
        "OLLAMA_KEEP_ALIVE": "5m0s",
        "OLLAMA_CONTEXT_LENGTH": "0",
        "OLLAMA_FLASH_ATTENTION": "false",
    }
    assert config["OLLAMA_ORIGINS"].startswith("[http://localhost ")
    assert config["OLLAMA_NO_CLOUD"] == "true"


def test_both_releases_log_the_same_settings():
    configs = [parse_server_config(cli(v, "serve-start.log")) for v in VERSIONS]
    assert all(c is not None for c in configs)
    keys = [{k: v for k, v in (c or {}).items() if k != "OLLAMA_HOST"} for c in configs]
    assert keys[0] == keys[1]


# --- the fake executable, answering as each release -----------------------------------------------
@pytest.fixture(scope="module")
def user_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("user")
    writer = StoreWriter(tmp / "models")
    gguf = write_tiny_gguf(tmp / "m.gguf", seed=0, n_tokens=32)
    writer.model("tiny:latest", [writer.blob_file(gguf, MODEL_MEDIA_TYPE, link="copy")[0]],
                 model_type="256")
    return tmp / "models"


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
def test_the_fake_executable_logs_and_runs_as_the_release(
    tmp_path: Path, user_store: Path, version: str
):
    rel = RELEASES[version]
    binary = write_executable(tmp_path / "bin" / "ollama", version=version)
    pool = PrivateServers(binary, user_store, startup_timeout=30.0,
                          base_env={**os.environ, "OLLAMA_NUM_PARALLEL": "3"})
    try:
        server = pool.use()
        assert server.version == version
        record = pool.record_of(server)
        assert record.reported_config is not None
        assert record.runner_build is None  # no llama-server beside the fake binary
        httpx.post(f"{server.url}/api/generate", json={"model": "tiny", "prompt": ""},
                   timeout=10, trust_env=False)
        (runner,) = [c for c in server.children() if "--model" in c.argv]
        # The fake's runner is a child process that prints its build line as it starts.
        deadline = time.monotonic() + 20
        while "llama_server: listening" not in server.log_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        record = pool.record_of(server)
        log = server.log_text()
        # keep_alive 0: 0.31.2 still lists the model for a moment, 0.32.15 does not.
        with httpx.Client(base_url=server.url, timeout=10, trust_env=False) as http:
            http.post("/api/generate", json={"model": "tiny", "keep_alive": 0})
            listed_after_unload = bool(http.get("/api/ps").json()["models"])
    finally:
        pool.close()
    assert listed_after_unload is rel.ps_lists_unloading
    assert f'source={rel.source_listening} msg="Listening on' in log
    assert f"(version {version})" in log
    assert rel.load_flags[0] in runner.argv
    # Where the real runner has it: right before --flash-attn.
    at = runner.argv.index(rel.load_flags[0])
    assert runner.argv[at + len(rel.load_flags)] == "--flash-attn"
    assert flag_value(runner.argv, "-np") == "1"
    assert record.runner_build is not None
    assert record.runner_build["build"] == rel.llama_cpp_build
    assert record.runner_build["source"] == "runner start line"
