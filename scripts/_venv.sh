# shellcheck shell=bash
# Shared by the scripts: create (or reuse) the virtual environment and install
# the suite into it, saying what each step does and how long it usually takes.
# Usage: source scripts/_venv.sh EXTRAS [PIP ARGS...]
#
# The usual times below were measured on a two-core x86-64 VM with a warm pip cache
# (docs/setup.md, "How long it takes"); a step taking longer prints a line a minute.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
# Wheels built here (llama-cpp-python), kept where the next environment finds them.
WHEEL_CACHE="${CLAIMS_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/claims-suite/wheels}"

say() { printf 'claims-suite: %s\n' "$*"; }
# How often a long step says it is still running (seconds).
HEARTBEAT_S="${CLAIMS_HEARTBEAT_S:-60}"

# Runs a command as a job of its own and waits for it, so that a Ctrl-C, SIGTERM or a
# closed terminal (SIGHUP) stops it and then this script within seconds, as it would stop
# the command typed alone: a Ctrl-C reaches the job's whole process group (pip and the
# compilers it started, pytest and its workers), SIGTERM and SIGHUP its first process
# (pytest ends its session through its interrupt path; xdist stops its workers); this
# script then exits 128 + the signal's number. Job control is on for the launch because a
# `&` command of a script without it starts with SIGINT and SIGQUIT ignored, which would
# leave it running after a Ctrl-C; with it, the command keeps this script's dispositions,
# so a run started with SIGINT ignored on purpose (`cmd &` in a script) still ignores it.
# Its stdin is /dev/null: a job outside the terminal's foreground group cannot read it.
#   stoppable command...     (sets JOB_STATUS)
# JOB_LOG (a file for its output) and JOB_WAITER (a function to run while it runs) are
# quietly's.
JOB_PID=""
JOB_STATUS=0
JOB_LOG=""
JOB_WAITER=""
stoppable() {
  set -m
  if [ -n "$JOB_LOG" ]; then
    "$@" </dev/null >"$JOB_LOG" 2>&1 &
  else
    "$@" </dev/null &
  fi
  JOB_PID=$!
  set +m
  trap 'stop_job INT' INT
  trap 'stop_job TERM' TERM
  trap 'stop_job HUP' HUP
  if [ -n "$JOB_WAITER" ]; then "$JOB_WAITER"; fi
  JOB_STATUS=0
  wait "$JOB_PID" || JOB_STATUS=$?
  trap - INT TERM HUP
  JOB_PID=""
}
# shellcheck disable=SC2317  # reached through the traps stoppable sets
stop_job() {  # $1: INT, TERM or HUP
  local target="$JOB_PID" code
  code=$((128 + $(kill -l "$1")))
  trap '' INT TERM HUP  # once: a second Ctrl-C must not cut the job's own cleanup short
  # On a line of its own: the job may be halfway through one (pytest's progress dots).
  printf '\n'
  say "SIG$1: stopping (exit status $code once it has ended)"
  [ "$1" = INT ] && target="-$JOB_PID"
  kill -s "$1" -- "$target" 2>/dev/null || true
  # Its own cleanup (pytest writes its evidence) gets a minute, then the group is killed.
  for _ in $(seq 60); do
    kill -0 "$JOB_PID" 2>/dev/null || break
    sleep 1
  done
  kill -s KILL -- "-$JOB_PID" 2>/dev/null || true
  wait "$JOB_PID" 2>/dev/null || true
  exit "$code"
}

# Runs a command with its output in a log file, printing a line at least once a minute
# (the log's last progress line, when it has one) and the log's tail if it fails; a
# signal stops it as `stoppable` says.
#   quietly "what it does" LOG command...
quietly() {
  local status
  QUIET_WHAT="$1" QUIET_LOG="$2" QUIET_START=$SECONDS JOB_LOG="$2" JOB_WAITER=heartbeat
  shift 2
  stoppable "$@"
  JOB_LOG="" JOB_WAITER=""
  status=$JOB_STATUS
  if [ "$status" -ne 0 ]; then
    say "$QUIET_WHAT failed (exit status $status); the end of its log ($QUIET_LOG):"
    tail -n 40 "$QUIET_LOG" >&2
    return "$status"
  fi
}
# shellcheck disable=SC2317  # called by stoppable, for quietly
heartbeat() {
  local last
  while kill -0 "$JOB_PID" 2>/dev/null; do
    # A minute in steps of a tenth of a second, so a quick step (the audit reusing its
    # kept result) ends as soon as it is done, not at the next whole second.
    for _ in $(seq "$((HEARTBEAT_S * 10))"); do
      kill -0 "$JOB_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$JOB_PID" 2>/dev/null; then
      # cmake's progress: "[ 45%] Building ..." (make) or "[45/120] Building ..." (ninja).
      last=$(grep -aoE '\[ *[0-9]+(%|/[0-9]+)\]' "$QUIET_LOG" | tail -n 1 || true)
      say "  still $QUIET_WHAT: $((SECONDS - QUIET_START)) s so far${last:+, build step $last}"
    fi
  done
}

# A step's header, its usual duration, and how long it took.
step_start=0
begin() { say "$1 (usually $2)..."; step_start=$SECONDS; }
done_in() { say "  done in $((SECONDS - step_start)) s"; }

LOGS="$VENV/.claims-suite-logs"
if [ ! -x "$VENV/bin/python" ]; then
  begin "creating the virtual environment $VENV" "10 s to 1 min"
  "$PYTHON" -m venv "$VENV"
  mkdir -p "$LOGS"
  quietly "upgrading pip" "$LOGS/pip-upgrade.log" \
    "$VENV/bin/python" -m pip install --upgrade pip
  done_in
fi
mkdir -p "$LOGS"
extras="$1"; shift
target="."
[ -n "$extras" ] && target=".[${extras}]"

# llama-cpp-python (the engine extra) builds from source. Its default native build
# crashed on a CPU with AMX (a Sapphire Rapids VM: SIGSEGV in ggml's AMX matmul on the
# first decode of the bundled Gemma GGUF, llama-cpp-python 0.3.36), so unless CMAKE_ARGS
# says otherwise it is built for the AVX2 level every x86-64 machine since 2015 has
# (as the prebuilt Ollama runners are). pip's own wheel cache ignores CMAKE_ARGS (a wheel
# built with other flags would be reused), so the build bypasses it (--no-cache-dir) and
# the wheel is kept in WHEEL_CACHE instead, in a folder named for the CMAKE_ARGS, the
# Python and the machine: a second environment installs it in seconds instead of
# rebuilding it. An installed build is kept. To rebuild (a newer release), remove the folder.
if [[ ",$extras," == *,engine,* && "$(uname -m)" == x86_64 ]] \
    && ! "$VENV/bin/python" -c "import llama_cpp" 2>/dev/null; then
  engine_requirement=$("$VENV/bin/python" - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    print(tomllib.load(f)["project"]["optional-dependencies"]["engine"][0])
PY
)
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON}"
  build_key=$("$VENV/bin/python" - <<'PY'
import hashlib, os, platform, sys
key = "\n".join([os.environ["CMAKE_ARGS"], sys.implementation.cache_tag, platform.machine()])
print(hashlib.sha256(key.encode()).hexdigest()[:16])
PY
)
  wheels="$WHEEL_CACHE/llama-cpp-python/$build_key"
  mkdir -p "$wheels"
  if ! "$VENV/bin/python" -m pip install --quiet --no-deps --no-index --find-links "$wheels" \
      "$engine_requirement" 2>/dev/null; then
    begin "building $engine_requirement from source for AVX2 (CMAKE_ARGS='$CMAKE_ARGS')" \
      "4 to 25 min on two cores, by their load; once: the wheel is kept in $wheels"
    quietly "building llama-cpp-python" "$LOGS/llama-cpp-python-build.log" \
      "$VENV/bin/python" -m pip wheel --verbose --no-deps --no-cache-dir \
      --wheel-dir "$wheels" "$engine_requirement"
    done_in
    "$VENV/bin/python" -m pip install --quiet --no-deps --no-index --find-links "$wheels" \
      "$engine_requirement"
  else
    say "llama-cpp-python installed from the wheel built before ($wheels)"
  fi
fi

# The suite is installed editable: its code is read from this checkout, so only a change
# of what pip installs (pyproject.toml, the extras, the extra pip arguments) or of where
# the checkout is needs a reinstall; otherwise the step is skipped.
# One stamp per set of extras and arguments (certify-offline.sh and test.sh install
# different ones into the same environment), holding what pyproject.toml and the checkout were.
read -r stamp_name stamp < <("$VENV/bin/python" - "$PWD" "$target" "$@" <<'PY'
import hashlib, sys
with open("pyproject.toml", "rb") as f:
    text = f.read()
what = "\0".join(sys.argv[2:]).encode()
print(hashlib.sha256(what).hexdigest()[:16],
      hashlib.sha256(text + sys.argv[1].encode() + what).hexdigest())
PY
)
mkdir -p "$VENV/.claims-suite-installed"
stamp_file="$VENV/.claims-suite-installed/$stamp_name"
if [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ] \
    && "$VENV/bin/python" -c "import claims" 2>/dev/null; then
  say "the suite is installed in $VENV and pyproject.toml has not changed: not reinstalling"
else
  begin "installing the suite and its dependencies into $VENV (pip install -e '$target'${*:+ $*})" \
    "0.5 to 2 min for the offline set, 1 to 4 min with torch and the extras"
  rm -f "$stamp_file"
  quietly "installing the suite" "$LOGS/pip-install.log" \
    "$VENV/bin/python" -m pip install --editable "$target" "$@"
  echo "$stamp" >"$stamp_file"
  done_in
fi

# The suite's cache folder (CLAIMS_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache): checked
# once before the runs, so a user who cannot write it reads one message naming it and what
# to set, not the same stop from the audit and from each pytest call. Exits 4 (pytest's
# usage error: nothing ran).
require_cache() {
  "$VENV/bin/python" -c '
import sys
from claims.probes.files.artifacts import CacheUnwritable, cache_dir
from claims.terminal import safe
try:
    cache_dir()
except CacheUnwritable as exc:
    sys.exit("claims-suite: " + safe(str(exc)))
' || exit 4
}
