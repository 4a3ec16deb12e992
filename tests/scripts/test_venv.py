"""scripts/_venv.sh, the set-up the README's two commands share, run as they run it.

pip is faked: the environment's ``bin/python`` is a shell script that records each
``-m pip`` call (and, for ``pip wheel``, leaves a wheel where it was told) and runs this
interpreter for everything else. So what is checked is the script's own logic: a
reinstall only when pyproject.toml, the extras or the checkout changed; llama-cpp-python
built once into the wheel cache and installed from there by the next environment; a
line at least every heartbeat while a long step runs, with the build's progress.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

# The fake interpreter: pip calls are logged; `import llama_cpp` fails until the fake wheel
# is "installed"; everything else is this interpreter.
FAKE_PYTHON = r"""#!/usr/bin/env bash
here="$(cd "$(dirname "$0")" && pwd)"
if [ "$1" = "-m" ] && [ "$2" = pip ]; then
  echo "pip ${*:3}" >>"$PIP_CALLS"
  if [ "$3" = wheel ]; then
    for a in "$@"; do
      if [ "$prev" = --wheel-dir ]; then
        echo $$ >"$PIP_CALLS.build-pid"
        echo "[ 50%] Building C object" ; sleep "${FAKE_BUILD_S:-0}"
        touch "$a/llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl"
      fi
      prev="$a"
    done
  fi
  if [ "$3" = install ] && [[ " $* " == *" --no-index "* ]]; then
    for a in "$@"; do
      if [ "$prev" = --find-links ]; then
        ls "$a"/*.whl >/dev/null 2>&1 || exit 1
        touch "$here/../llama_cpp_installed"
      fi
      prev="$a"
    done
  fi
  exit 0
fi
if [ "$1" = -c ] && [ "$2" = "import llama_cpp" ]; then
  [ -f "$here/../llama_cpp_installed" ]; exit $?
fi
exec "$REAL_PYTHON" "$@"
"""


def _checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "_venv.sh", repo / "scripts" / "_venv.sh")
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    return repo


def _venv(where: Path) -> Path:
    (where / "bin").mkdir(parents=True)
    py = where / "bin" / "python"
    py.write_text(FAKE_PYTHON, encoding="utf-8")
    py.chmod(0o755)
    return where


def _setup(repo: Path, venv: Path, extras: str, tmp_path: Path,
           **env: str) -> tuple[str, list[str]]:
    calls = tmp_path / "pip-calls.txt"
    calls.unlink(missing_ok=True)
    run_env = {
        **os.environ,
        "VENV": str(venv),
        "PIP_CALLS": str(calls),
        "REAL_PYTHON": sys.executable,
        "CLAIMS_WHEEL_CACHE": str(tmp_path / "wheels"),
        **env,
    }
    proc = subprocess.run(
        ["bash", "-c", f'source scripts/_venv.sh "{extras}"'],
        cwd=repo, env=run_env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pip = calls.read_text("utf-8").splitlines() if calls.exists() else []
    return proc.stdout, pip


def test_the_suite_is_reinstalled_only_when_what_pip_installs_changed(tmp_path):
    repo, venv = _checkout(tmp_path), _venv(tmp_path / "venv")
    out, pip = _setup(repo, venv, "", tmp_path)
    assert [c for c in pip if c.startswith("pip install --editable")] == [
        "pip install --editable ."
    ], pip
    assert "installing the suite" in out and "usually" in out and "done in" in out, out

    out, pip = _setup(repo, venv, "", tmp_path)
    assert pip == [] and "not reinstalling" in out, (out, pip)

    # Other extras are another install; a changed pyproject.toml is too.
    _out, pip = _setup(repo, venv, "hub", tmp_path)
    assert pip == ["pip install --editable .[hub]"], pip
    with (repo / "pyproject.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n# a changed dependency\n")
    _out, pip = _setup(repo, venv, "", tmp_path)
    assert pip == ["pip install --editable ."], pip


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the AVX2 build is for x86-64 only")
def test_llama_cpp_python_is_built_once_and_reinstalled_from_the_wheel_cache(tmp_path):
    repo = _checkout(tmp_path)
    out, pip = _setup(repo, _venv(tmp_path / "first"), "engine", tmp_path)
    wheel_calls = [c for c in pip if c.startswith("pip wheel")]
    assert len(wheel_calls) == 1 and "--no-cache-dir" in wheel_calls[0], pip
    assert "building llama-cpp-python" in out.lower() or "building llama" in out, out
    (built,) = (tmp_path / "wheels").rglob("*.whl")
    # The folder is named for the CMAKE_ARGS (with the AVX2 default), the Python, the machine.
    assert built.parent.parent.name == "llama-cpp-python"

    # A second environment: installed from the cache, nothing built.
    out, pip = _setup(repo, _venv(tmp_path / "second"), "engine", tmp_path)
    assert not [c for c in pip if c.startswith("pip wheel")], pip
    assert "from the wheel built before" in out, out

    # Other CMAKE_ARGS are another build (pip's own cache would have reused the wheel).
    _out, pip = _setup(repo, _venv(tmp_path / "third"), "engine", tmp_path,
                       CMAKE_ARGS="-DGGML_NATIVE=ON")
    assert [c for c in pip if c.startswith("pip wheel")], pip


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the AVX2 build is for x86-64 only")
def test_a_long_build_says_it_is_still_running_with_its_progress(tmp_path):
    repo = _checkout(tmp_path)
    out, _pip = _setup(repo, _venv(tmp_path / "venv"), "engine", tmp_path,
                       CLAIMS_HEARTBEAT_S="1", FAKE_BUILD_S="4")
    still = [line for line in out.splitlines() if "still building llama-cpp-python" in line]
    assert len(still) >= 2, out
    assert "build step [ 50%]" in still[-1], still


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the AVX2 build is for x86-64 only")
@pytest.mark.parametrize("how", ["Ctrl-C", "SIGTERM"])
def test_a_signal_during_a_long_build_stops_the_build_and_the_script(tmp_path, how):
    # A `&` command of a script starts with SIGINT ignored: the build outlived a Ctrl-C.
    import pty
    import signal
    import time

    from tests.signals import own_terminal

    repo = _checkout(tmp_path)
    calls = tmp_path / "pip-calls.txt"
    env = {**os.environ, "VENV": str(_venv(tmp_path / "venv")), "PIP_CALLS": str(calls),
           "REAL_PYTHON": sys.executable, "CLAIMS_WHEEL_CACHE": str(tmp_path / "wheels"),
           "FAKE_BUILD_S": "300"}
    master, follower = pty.openpty()
    proc = subprocess.Popen(["bash", "-c", 'source scripts/_venv.sh "engine"'], cwd=repo,
                            env=env, stdin=follower, stdout=follower, stderr=follower,
                            preexec_fn=own_terminal)
    os.close(follower)
    build_pid = Path(f"{calls}.build-pid")
    try:
        deadline = time.monotonic() + 120  # a hang detector: the fake build takes 300 s
        while not build_pid.exists() or not build_pid.read_text().strip():
            assert proc.poll() is None and time.monotonic() < deadline, "no build started"
            time.sleep(0.1)
        build = int(build_pid.read_text())
        if how == "Ctrl-C":
            os.write(master, b"\x03")
        else:
            proc.send_signal(signal.SIGTERM)
        status = proc.wait(timeout=120)
        while Path(f"/proc/{build}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert status == (130 if how == "Ctrl-C" else 143)
    assert not Path(f"/proc/{build}").exists(), "the build outlived the script"


def test_shellcheck_finds_nothing_in_the_scripts():
    exe = shutil.which("shellcheck")
    if exe is None:
        pytest.skip("shellcheck is not installed (Debian: apt-get install shellcheck)")
    scripts = sorted(p.name for p in (ROOT / "scripts").glob("*.sh"))
    # CI's own scripts too: a mistake there fails every submission, not one test.
    scripts += sorted(f"../.ci/{p.name}" for p in (ROOT / ".ci").iterdir() if p.is_file())
    # -x follows `source _venv.sh`, so a name it defines is known where it is used.
    proc = subprocess.run([exe, "-x", "--severity=info", *scripts], cwd=ROOT / "scripts",
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_unwritable_cache_stops_the_scripts_once_with_what_to_set(tmp_path):
    repo, venv = _checkout(tmp_path), _venv(tmp_path / "venv")
    _setup(repo, venv, "", tmp_path)  # installed: require_cache runs after this
    blocker = tmp_path / "home is a file"
    blocker.write_text("", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("CLAIMS_CACHE_DIR", "XDG_CACHE_HOME")}
    script = 'source scripts/_venv.sh ""; require_cache; echo "after the check"'
    # The fake's `import claims` is the real interpreter's, from this checkout.
    common = {**env, "VENV": str(venv), "PIP_CALLS": str(tmp_path / "calls"),
              "REAL_PYTHON": sys.executable, "PYTHONPATH": str(ROOT)}

    refused = subprocess.run(["bash", "-c", script], cwd=repo, env={**common, "HOME": str(blocker)},
                             capture_output=True, text=True, timeout=120, check=False)
    named = subprocess.run(["bash", "-c", script], cwd=repo,
                           env={**common, "HOME": str(blocker),
                                "CLAIMS_CACHE_DIR": str(tmp_path / "cache dir ü")},
                           capture_output=True, text=True, timeout=120, check=False)

    out = refused.stdout + refused.stderr
    assert refused.returncode == 4, out
    assert out.count("cannot be used") == 1 and "Set CLAIMS_CACHE_DIR" in out, out
    assert "Traceback" not in out and "after the check" not in out, out
    assert named.returncode == 0 and "after the check" in named.stdout, named.stderr
