"""MC claims decided on what a real Ollama 0.31.2 printed (fixtures/ollama-0.31.2/cli/):
its server log with default settings, `ollama run --help` and a `--verbose` run.

These are recordings of the real program (their README says how they were made), so
the evidence source is a fixture, not the document and not this machine.
"""

from __future__ import annotations

import re
import shlex

import pytest

from claims.probes.live.ollama_serve.environment import parse_server_config
from claims.testing.recordings import fixtures_dir
from claims.testkit import Interval, not_applicable

pytestmark = pytest.mark.offline

RUNNER_START = re.compile(r'msg="starting llama-server" cmd="(?P<cmd>[^"]*)"')


def _cli(name: str) -> str:
    return (fixtures_dir() / "ollama-0.31.2" / "cli" / name).read_text("utf-8")


def _flag_value(argv: list[str], flag: str) -> str | None:
    if flag not in argv:
        return None
    i = argv.index(flag)
    return argv[i + 1] if i + 1 < len(argv) else ""


@pytest.mark.claim("MC-FLASH-DEFAULT")
def test_default_flash_attention_setting_and_what_the_runner_is_told(check):
    log = _cli("serve-log-excerpt.txt")
    config = parse_server_config(log)
    if config is None:
        raise AssertionError("the recorded log has no 'server config' line")
    check.fact("recording", "fixtures/ollama-0.31.2/cli/serve-log-excerpt.txt (Ollama 0.31.2, "
               "default settings)")
    check.against("variable default", config.get("OLLAMA_FLASH_ATTENTION", "<absent>"),
                  note="the 'server config' line")
    starts = [m.group("cmd") for m in RUNNER_START.finditer(log)]
    if not starts:
        raise AssertionError("the recorded log shows no runner start")
    argv = shlex.split(starts[0])
    check.attach("runner command line", starts[0])
    told = _flag_value(argv, "--flash-attn")
    check.against("flash attention when unset", told if told is not None else "<not passed>",
                  note="llama-server's --flash-attn argument (auto: llama.cpp decides)")


@pytest.mark.claim("MC-CLI-VERBOSE")
def test_run_verbose_prints_the_generation_rate(check):
    help_text = _cli("run-help.txt")
    flags = re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", help_text, re.MULTILINE)
    check.against("flag", "--verbose" if "--verbose" in flags else "<not listed>",
                  note="ollama run --help")
    described = re.search(r"^\s+--verbose\s+(.+)$", help_text, re.MULTILINE)
    check.observe("its description", described.group(1).strip() if described else None)
    run = _cli("run-verbose.txt")
    rates = dict(re.findall(r"^(eval rate|prompt eval rate):\s+([\d.]+) tokens/s$", run,
                            re.MULTILINE))
    check.attach("ollama run --verbose (recorded)", run)
    check.against("rate line", "eval rate" if "eval rate" in rates else "<none>")
    counts = dict(re.findall(r"^(eval count|eval duration):\s+([\d.]+)", run, re.MULTILINE))
    if "eval rate" in rates and counts.keys() >= {"eval count", "eval duration"}:
        rate = float(counts["eval count"]) / float(counts["eval duration"])
        printed = Interval.stated(rates["eval rate"])
        check.measure("eval rate = eval count / eval duration", float(rates["eval rate"]),
                      unit="tok/s", holds=printed.contains(rate),
                      expected=f"{rate:.2f} tok/s (in tokens per second), at the printed "
                               "precision")


@pytest.mark.claim("MC-MMAP-LOADING")
def test_cpu_load_maps_the_model_file(check):
    log = _cli("serve-log-excerpt.txt")
    decisions = [line for line in log.splitlines() if "mmap" in line and "llama-server" in line
                 and "starting llama-server" not in line]
    for line in decisions:
        check.attach("scheduler's mmap decision", line)
    starts = [m.group("cmd") for m in RUNNER_START.finditer(log)]
    if not starts:
        raise AssertionError("the recorded log shows no runner start")
    argv = shlex.split(starts[0])
    cpu = [line for line in decisions if "reason=cpu" in line]
    check.observe("load on CPU (scheduler's reason)", bool(cpu))
    if not cpu and "--no-mmap" not in argv:
        not_applicable("the recorded load is not a CPU-only load the scheduler decided on")
    check.against("memory-mapped on a CPU load", "--no-mmap" not in argv,
                  note="llama-server's command line (--no-mmap turns mapping off)")
