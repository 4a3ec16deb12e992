"""Installed, the plugin is loaded by every pytest run of the environment: it must leave
the user's other projects alone.

A session that collects no claim test and names none of the suite's options gets no
evidence, no report, no socket guard and no terminal section, and starts about as fast
as with the plugin disabled (``-p no:claims.plugin``), measured side by side. Each run
here is a real pytest process in a project that knows nothing of the suite.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

# A project of its own: a test that reaches a loopback alias the suite's socket guard
# would refuse (it allows the names of claims.probes.live.loopback.LOOPBACK_HOSTS only),
# one that checks the plugin is loaded at all, and markers the suite also uses, for the
# project's own meaning.
UNRELATED = '''
import socket

import pytest


def test_reaches_a_loopback_alias():
    server = socket.socket()
    server.bind(("127.0.0.2", 0))
    server.listen(1)
    with server, socket.create_connection(server.getsockname(), timeout=5):
        pass


def test_the_suites_plugin_is_loaded(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("claims.plugin")


@pytest.mark.offline
def test_with_a_marker_of_the_same_name():
    pass
'''

SUBPROCESS_TIMEOUT_S = 120


def _installed() -> None:
    if not any(ep.value == "claims.plugin" for ep in entry_points(group="pytest11")):
        pytest.skip("the suite is not installed (pip install -e .): no pytest11 entry point")


def _project(tmp_path: Path, name: str = "elsewhere") -> Path:
    project = tmp_path / name
    project.mkdir()
    (project / "test_mine.py").write_text(UNRELATED, "utf-8")
    # The project's own configuration registers its marker, as a strict project would.
    (project / "pytest.ini").write_text(
        "[pytest]\naddopts = --strict-markers\nmarkers =\n    offline: the project's own\n",
        "utf-8",
    )
    return project


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=project, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S,
    )


def _files(project: Path) -> set[str]:
    return {str(p.relative_to(project)) for p in project.rglob("*") if "__pycache__" not in p.parts}


@pytest.mark.slow
def test_another_project_is_left_alone(tmp_path: Path) -> None:
    _installed()
    project = _project(tmp_path)
    proc = _pytest(project)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "3 passed" in out, out[-3000:]
    # No terminal section of the suite's, no warning (pytest's plugins line names it).
    assert "claims profile" not in out and "evidence:" not in out, out[-3000:]
    assert "warning" not in out.lower(), out[-3000:]
    # Exactly what the same run leaves without the plugin (other plugins write their own:
    # pytest-benchmark makes .benchmarks/ in any run).
    twin = _project(tmp_path, "twin")
    assert _pytest(twin, "-p", "no:claims.plugin", "-k", "not loaded").returncode == 0
    assert _files(project) == _files(twin), "the run wrote into the project"


@pytest.mark.slow
def test_naming_an_option_of_the_suite_makes_it_act(tmp_path: Path) -> None:
    """The other side: a run that asks for the suite gets it, in any folder."""
    _installed()
    project = _project(tmp_path)
    evidence = tmp_path / "evidence.json"
    proc = _pytest(project, f"--claims-evidence={evidence}", "-k", "loaded")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert evidence.is_file() and "claims profile" in out


def _cpu_seconds(project: Path, *args: str) -> float:
    """CPU seconds (user + system) one pytest process took: on a busy machine its wall time
    measures the neighbours, its CPU time mostly itself."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = _pytest(project, "-q", "-k", "not loaded", *args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert proc.returncode == 0, proc.stdout[-2000:]
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


@pytest.mark.slow
@pytest.mark.alone  # timed side by side: a neighbour would move the figures
def test_start_up_costs_about_nothing_measured_side_by_side(tmp_path: Path) -> None:
    """Within 10 % of the same runs with the plugin disabled, in CPU time: the least of
    several alternating runs each (the one the machine disturbed least)."""
    _installed()
    project = _project(tmp_path)
    timings: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(7):
        timings["with"].append(_cpu_seconds(project))
        timings["without"].append(_cpu_seconds(project, "-p", "no:claims.plugin"))
    ratio = min(timings["with"]) / min(timings["without"])
    print(f"pytest in another project: {min(timings['with']):.3f} CPU s with the plugin, "
          f"{min(timings['without']):.3f} CPU s without (ratio {ratio:.3f})")
    assert ratio <= 1.10, timings


@pytest.mark.slow
def test_under_xdist_the_controller_writes_evidence_without_any_option(
    pytester: pytest.Pytester,
) -> None:
    """The controller collects nothing under -n: it activates on the workers' records."""
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.offline
        @pytest.mark.claim("W2-DIGEST-FILENAME", source="recorded")
        def test_claim(check):
            check.measure("a blob's name", "sha256-ab", holds=True, expected="sha256-<hex>")
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "claims.plugin", "-p", "xdist", "-p", "no:cacheprovider", "-n", "2",
        timeout=SUBPROCESS_TIMEOUT_S,
    )
    result.assert_outcomes(passed=1)
    evidence = json.loads((pytester.path / "reports" / "evidence.json").read_text("utf-8"))
    (claim,) = [c for c in evidence["claims"] if c["id"] == "W2-DIGEST-FILENAME"]
    assert [c["outcome"] for c in claim["checks"]] == ["passed"]
