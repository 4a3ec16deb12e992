"""claims.testing.ollama_versions: each release's values, held to that release's recordings.

The fakes answer as 0.31.2 or 0.32.15 from these values; every one of them is checked
here against fixtures/ollama-<version>/ (README there), so a value copied wrong, or a
difference the table claims, fails.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest

from claims.testing.ollama_versions import DEFAULT_RELEASE, RELEASES, OllamaRelease, release

ROOT = Path(__file__).resolve().parents[2]
VERSIONS = sorted(RELEASES)
# Requests sent while the model was loaded at the context they asked for (08 loads it,
# 20, 22 and 24 reload it for another num_ctx).
WARM = ("09", "10", "11", "12", "13", "14", "16", "18", "25")


def folder(r: OllamaRelease) -> Path:
    return ROOT / "fixtures" / r.recordings


def cli(r: OllamaRelease, name: str) -> str:
    return (folder(r) / "cli" / name).read_text("utf-8")


def exchange(r: OllamaRelease, prefix: str) -> dict[str, Any]:
    (path,) = (folder(r) / "http").glob(f"{prefix}-*.json")
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def final_object(data: dict[str, Any]) -> dict[str, Any]:
    if "lines" not in data:
        body: dict[str, Any] = data["body"]
        return body
    lines = [x["line"] for x in data["lines"] if x["line"].strip().startswith("{")]
    last: dict[str, Any] = json.loads(lines[-1])
    return last


def runner_command(r: OllamaRelease) -> list[str]:
    line = next(x for x in cli(r, "serve-log-excerpt.txt").splitlines() if "starting llama" in x)
    return line.split('cmd="', 1)[1].rstrip('"').split()


@pytest.fixture(params=VERSIONS)
def rel(request: pytest.FixtureRequest) -> OllamaRelease:
    return RELEASES[request.param]


def test_the_version_is_what_the_server_and_its_cli_reported(rel: OllamaRelease) -> None:
    assert exchange(rel, "01")["body"] == {"version": rel.version}
    assert cli(rel, "version.txt").endswith(f"ollama version is {rel.version}\n")
    assert f"(version {rel.version})" in cli(rel, "serve-start.log")


def test_the_runner_build_is_what_the_runner_printed(rel: OllamaRelease) -> None:
    assert rel.runner_build_line in cli(rel, "serve-log-excerpt.txt").splitlines()
    assert cli(rel, "runner-version.txt") == rel.runner_version_text
    assert f"build {rel.llama_cpp_build} " in cli(rel, "prebuilt-serve-log-lines.txt")


def test_the_load_flags_are_the_runners_and_only_this_releases(rel: OllamaRelease) -> None:
    argv = runner_command(rel)
    at = argv.index("--no-log-timestamps") + 1
    assert tuple(argv[at : at + len(rel.load_flags)]) == rel.load_flags
    assert argv[at + len(rel.load_flags)] == "--flash-attn"
    for other in RELEASES.values():
        if other.load_flags != rel.load_flags:
            assert other.load_flags[0] not in argv


def test_the_log_sources_are_the_servers(rel: OllamaRelease) -> None:
    log = cli(rel, "serve-start.log")
    for source, msg in (
        (rel.source_config, "server config"),
        (rel.source_blobs, "total blobs: 0"),
        (rel.source_default_ctx, "vram-based default context"),
    ):
        assert re.search(rf'source={re.escape(source)} msg="{msg}', log), (source, msg)
    assert re.search(rf'source={re.escape(rel.source_listening)} msg="Listening on ', log)


def test_the_killed_runner_warning_source_is_the_servers(rel: OllamaRelease) -> None:
    # 0.31.2's from the suite's own private servers (fixtures/recorded/ollama-serve/).
    log = (
        (ROOT / "fixtures" / "recorded" / "ollama-serve" / "built-0.31.2.log").read_text("utf-8")
        if rel.version == "0.31.2"
        else cli(rel, "killed-runner-log-lines.txt")
    )
    line = next(x for x in log.splitlines() if "no longer running" in x)
    assert f"source={rel.source_runner_gone} " in line
    assert 'sys=11 string="signal: segmentation fault"' in line


def test_the_warm_load_duration_is_the_recorded_median(rel: OllamaRelease) -> None:
    warm = [final_object(exchange(rel, n))["load_duration"] / 1e9 for n in WARM]
    assert statistics.median(warm) == pytest.approx(rel.warm_load_duration_s, rel=0.1)


def test_the_two_releases_differ_in_warm_load_duration_by_far() -> None:
    # The README's row: a quarter second against a millisecond, not noise.
    slow = [final_object(exchange(RELEASES["0.31.2"], n))["load_duration"] for n in WARM]
    fast = [final_object(exchange(RELEASES["0.32.15"], n))["load_duration"] for n in WARM]
    assert min(slow) > 50 * max(fast)


def test_the_openai_finish_delta(rel: OllamaRelease) -> None:
    events = [
        json.loads(x["line"].removeprefix("data: "))
        for x in exchange(rel, "29")["lines"]
        if x["line"].startswith("data: {")
    ]
    finishing = [e for e in events if e["choices"] and e["choices"][0]["finish_reason"]]
    assert len(finishing) == 1
    delta = finishing[0]["choices"][0]["delta"]
    assert (delta == {}) is rel.openai_finish_delta_empty
    if not rel.openai_finish_delta_empty:
        assert delta == {"role": "assistant", "content": ""}


def test_the_store_readme_digests_and_config_blob_difference() -> None:
    configs = {}
    for v in VERSIONS:
        blobs = list((folder(RELEASES[v]) / "store" / "blobs").iterdir())
        assert len(blobs) == 1
        configs[v] = json.loads(blobs[0].read_bytes())
        tags = exchange(RELEASES[v], "03")["body"]["models"][0]
        assert tags["size"] == 253_113_024 + blobs[0].stat().st_size
    assert "rootfs" in configs["0.31.2"] and "rootfs" not in configs["0.32.15"]
    assert {k: v for k, v in configs["0.31.2"].items() if k != "rootfs"} == configs["0.32.15"]


def test_release_by_name_default_and_unknown() -> None:
    assert release(None).version == DEFAULT_RELEASE == "0.31.2"
    assert release(" 0.32.15 ").version == "0.32.15"
    with pytest.raises(ValueError, match=r"no recordings of Ollama '0.99.0'.*0.31.2, 0.32.15"):
        release("0.99.0")


def test_ps_after_an_unload(rel: OllamaRelease) -> None:
    path = folder(rel) / "private-server" / "unload-and-24h.json"
    unload = json.loads(path.read_text("utf-8"))["unload"]
    assert bool(unload["ps_reads"][0]["models"]) is rel.ps_lists_unloading
    # Either way the model is gone within the reads taken (a few tens of ms).
    assert unload["ps_reads"][-1]["models"] == []


def test_ollama_ps_prints_the_same_table_on_both() -> None:
    """The captured 0.31.2 `ollama ps` and 0.32.15's with a model loaded (cli/ps-loaded.txt)."""
    tables = [
        cli(RELEASES["0.31.2"], "ps.txt").splitlines(),
        cli(RELEASES["0.32.15"], "ps-loaded.txt").splitlines(),
    ]
    rows = [[re.split(r"\s{2,}", line.strip()) for line in table] for table in tables]
    header = ["NAME", "ID", "SIZE", "PROCESSOR", "CONTEXT", "UNTIL"]
    for table in rows:
        assert table[0] == header
        name, model_id, size, processor, context, until = table[1]
        assert name == "gemma3:270m" and re.fullmatch(r"[0-9a-f]{12}", model_id)
        assert re.fullmatch(r"\d+ MB", size) and processor == "100% CPU"
        assert context.isdigit() and until.endswith("from now")
