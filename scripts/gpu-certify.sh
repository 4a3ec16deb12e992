#!/usr/bin/env bash
# gpu-certify.sh - certify an NVIDIA machine against the gpu tier's claims (Week 1's, and
# Week 5's matmul at FP32, FP16 and BF16), install included.
#
# Usage (from a fresh copy of the repository, on the machine to certify):
#
#     scripts/gpu-certify.sh                  # auto-detects the profile (dgx-spark on a Spark)
#     PROFILE=generic scripts/gpu-certify.sh  # any other NVIDIA machine, named explicitly
#     PYTHON=~/venvs/w1/bin/python scripts/gpu-certify.sh   # reuse that interpreter's CUDA torch
#
# What it does, in order (about 1-3 minutes of install on a fresh machine with a
# normal network, then a few minutes of tests; the whole run is bounded by RUN_TIMEOUT):
#
#   0. Asks the driver through nvidia-smi (NVML) first: a driver/library version mismatch
#      (a driver update without a reboot), no devices found, nvidia-smi missing or a
#      driver not loaded stops the run within seconds, with exit status 4 and the state
#      and its remedy named, before anything is installed.
#   1. Finds a Python >= 3.11 and a torch that already has CUDA: $VENV's own, else the
#      one $PYTHON imports (a virtual environment such as Week 1's ~/venvs/w1, a conda
#      environment, the system's python). To reuse it, $VENV is created from the same
#      interpreter and given a .pth file naming every site-packages directory that
#      interpreter imports from, so torch and the CUDA libraries it brought are used as
#      they are (venv --system-site-packages would see only the *base* interpreter's
#      packages, not a virtual environment's). Otherwise torch is installed as the one
#      table in claims/probes/machine/torch_wheels.py decides from the driver AND every
#      GPU's compute capability (nvidia-smi --query-gpu=compute_cap): PyPI's CUDA 13.0
#      build (R580+, Turing to Blackwell; Week 1's point: it brings its CUDA runtime as
#      wheels), else the cu126 index (R525+, Maxwell to Hopper: a P4 or V100 on R580
#      included), else a refusal that says which driver or torch would work (a B200 or
#      RTX 5090 on R575). DRY_RUN=1 prints that choice and why, and stops. After the
#      install, one CUDA kernel runs (smoke test) before the claims start.
#   2. pip install -e . (the suite itself; torch is not one of its core dependencies,
#      so an existing CUDA torch is never replaced by a CPU one).
#   3. Runs the gpu tier and Week 1's offline tests in one pytest session, without
#      xdist (pytest-benchmark times the matmul series and switches itself off under
#      xdist), in certification mode (--claims-require-live: a missing prerequisite fails
#      instead of skipping):
#          pytest tests/claims -p no:xdist -m "gpu or offline" --claim <W1 and gpu-tier ids>
#      Every claim with the gpu tier is selected, so a new week's gpu claims join without an
#      edit here: Week 5's run the lab's benchmark at its own size (4096), each timing
#      claim decided by the suite's timing rule (at most 1 % chance of refuting a true
#      claim; a busy machine leaves it undecided), typically under a minute on a GPU.
#   4. Keeps reports/evidence.json, reports/report.html and reports/benchmark.json, and
#      copies them with this script's log, pip's log, nvidia-smi's output and pip freeze
#      into reports/gpu-certify-<host>-<UTC time>/ so later runs do not overwrite them.
#
# Every exit, a failed step included, leaves that folder with gpu-certify.log (all this
# script and the tools it ran printed), exit-status.txt and whatever evidence exists; a
# pytest session stopped at its limit, by Ctrl-C or by SIGTERM is interrupted once with
# SIGINT, so it ends through its own interrupt path and writes its evidence (the checks it
# finished, with their verdicts; "complete": false, since not every check ran), and
# report.html is rendered from evidence.json when pytest could not write it.
#
# Offline machines: run once with the network, PREPARE_ONLY=1 (installs, runs nothing),
# then later SKIP_INSTALL=1 (uses $VENV exactly as it is; needs no network).
#
# torch pin policy: TORCH_SPEC defaults to the range the suite is tested with, the 2.13
# series (CI runs torch 2.13.0; the probes read both forms of CUDA dependency its wheels
# declare, nvidia-* wheels and cuda-toolkit[...]). A newer torch can change the TF32 API
# or how its wheel declares CUDA, so widen the range only after the suite passed on it
# (TORCH_SPEC='torch==2.14.0' to try one).
#
# Environment knobs:
#   PROFILE=auto|dgx-spark|generic   machine profile (default auto; under REQUIRE_LIVE=1 a
#                                    failed detection fails the run)
#   VENV=.venv-gpu                   virtual environment to create or reuse
#   PYTHON=python3                   interpreter to start from (3.11 or later); its CUDA
#                                    torch, if it has one, is reused
#   TORCH_SPEC='torch>=2.13,<2.14'   what to pip install when no CUDA torch exists
#   TORCH_INDEX_URL=<url>            the wheel index to install torch from (default: the one
#                                    torch_wheels.BUILDS picks for this driver and GPU)
#   DRY_RUN=0                        1 to print which torch would be reused or installed, from
#                                    which index and why, and stop (nothing is installed)
#   REQUIRE_LIVE=1                   0 to let missing prerequisites skip instead of fail
#   SKIP_INSTALL=0                   1 to run with $VENV exactly as it is (a second run)
#   INSTALL_SUITE=1                  0 to skip `pip install -e .` (the suite already there)
#   PREPARE_ONLY=0                   1 to stop once the environment is ready (no tests)
#   RUN_TIMEOUT=1800                 seconds for the whole run, installs included
#   TEST_TIMEOUT=600                 seconds for the pytest session (within RUN_TIMEOUT)
#   CLAIMS_MATMUL_N=4096             matrix size (the post's figures are for 4096)
#   Extra arguments are passed to pytest (e.g. -k speedup, -x).
#
# Exit status: pytest's (0: every claim decided and none refuted unexpectedly;
# 1: a refutation, or with REQUIRE_LIVE=1 a check that could not run); 3 when the
# environment could not be prepared (an install that failed, a driver or GPU no torch
# wheel supports, a smoke test that failed); 4 when nvidia-smi cannot reach the driver
# (the state and remedy are named; nothing was installed); 124 when a step ran past its limit, a slow download included (137 when it
# ignored SIGINT and had to be killed) or RUN_TIMEOUT ran out; 130 when interrupted by
# Ctrl-C (SIGINT), 143 by SIGTERM, 129 by a closed terminal (SIGHUP).

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

DEFAULT_TORCH_SPEC='torch>=2.13,<2.14'
PROFILE="${PROFILE:-auto}"
VENV="${VENV:-.venv-gpu}"
PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${TORCH_SPEC:-$DEFAULT_TORCH_SPEC}"
TORCH_INDEX_URL="${TORCH_INDEX_URL:-}"
REQUIRE_LIVE="${REQUIRE_LIVE:-1}"
SKIP_INSTALL="${SKIP_INSTALL:-0}"
INSTALL_SUITE="${INSTALL_SUITE:-1}"
PREPARE_ONLY="${PREPARE_ONLY:-0}"
DRY_RUN="${DRY_RUN:-0}"
RUN_TIMEOUT="${RUN_TIMEOUT:-1800}"
TEST_TIMEOUT="${TEST_TIMEOUT:-600}"
REPORTS="${REPORTS:-$ROOT/reports}"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
KEEP="$REPORTS/gpu-certify-$(hostname -s 2>/dev/null || echo host)-$STAMP"
LOG="$KEEP/gpu-certify.log"
START=$SECONDS
DEADLINE=$((SECONDS + RUN_TIMEOUT))
PY=""
STEP="starting"
OURS=".made-by-gpu-certify"  # marks an environment this script created (and may replace)
INTERRUPTED=""               # INT, TERM or HUP once a signal asked the run to stop
PYTEST_PID=""                # the pytest session's timeout(1), while it runs

# Which torch build fits this machine is decided by ONE table, in Python so that it is
# tested: claims/probes/machine/torch_wheels.py (BUILDS: for torch 2.13, each CUDA build
# with the driver branch it needs, the compute capabilities it ships kernels for and the
# source of both). `python -m claims.probes.machine.torch_wheels choose` reads the driver
# and every GPU's compute capability from nvidia-smi and prints the index, then why.
WHEELS_MODULE=claims.probes.machine.torch_wheels
EXIT_NVML=4  # NVML cannot reach the driver: nothing is installed, the state is named

mkdir -p "$REPORTS" "$KEEP"
# Everything printed from here on goes to the terminal and to the log. tee ignores Ctrl-C
# and SIGTERM, so it outlives the commands it records and the log ends with the run.
exec > >(trap '' INT TERM HUP; exec tee -a "$LOG") 2>&1
TEE_PID=$!

say() { printf '[gpu-certify %3ds] %s\n' "$((SECONDS - START))" "$*"; }
die() { say "error: $*"; printf '%s: %s\n' "$STEP" "$*" >"$KEEP/failure.txt"; exit 3; }
timed_out() {  # $1: what ran past its limit
    say "error: $1 ran past its time limit (exit 124); see the log for how far it got"
    printf '%s: %s ran past its time limit\n' "$STEP" "$1" >"$KEEP/failure.txt"
    exit 124
}
# $1: a command's exit status, $2: what it was; 124/137 (timeout's) mean its limit, not failure
check_status() {
    case "$1" in
        0) return 0 ;;
        124|137) timed_out "$2" ;;
        *) die "$2 failed with exit status $1 (its output is in the log)" ;;
    esac
}

remaining() { echo $((DEADLINE - SECONDS)); }

# $1: at most this many seconds (capped by what is left of RUN_TIMEOUT); then a command
bounded() {
    local limit="$1" left
    shift
    left="$(remaining)"
    if [ "$left" -le 0 ]; then
        say "RUN_TIMEOUT=${RUN_TIMEOUT}s is used up before: $*"
        printf '%s: RUN_TIMEOUT used up\n' "$STEP" >"$KEEP/failure.txt"
        exit 124
    fi
    [ "$limit" -gt "$left" ] && limit="$left"
    # --foreground: the command stays in this terminal's process group, so Ctrl-C reaches
    # it. At the limit SIGINT first, so pytest ends its session and writes its evidence;
    # KILL 20 s later.
    timeout --foreground --signal=INT --kill-after=20 "$limit" "$@"
}

# shellcheck disable=SC2317  # reached through the INT and TERM traps
on_signal() {  # $1: INT, TERM or HUP (a closed terminal)
    if [ -n "$PYTEST_PID" ]; then
        # pytest runs in its own process group (see run_pytest): it hears the signal only
        # from here, once, as SIGINT, and ends through its own interrupt path.
        [ -n "$INTERRUPTED" ] || say "SIG$1: stopping pytest (SIGINT); it writes the evidence of the checks it finished"
        INTERRUPTED="$1"
        kill -INT "$PYTEST_PID" 2>/dev/null || true
        # 0 explicitly: a bare return in a trap gives the interrupted wait's status (>128),
        # which set -e would turn into an exit before pytest has finished.
        return 0
    fi
    INTERRUPTED="$1"
    say "SIG$1 during: $STEP; stopping"
    printf '%s: interrupted by SIG%s\n' "$STEP" "$1" >"$KEEP/failure.txt"
    exit $((128 + $(kill -l "$1")))
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

# shellcheck disable=SC2317  # reached through the EXIT trap (finish)
keep_evidence() {  # copy whatever exists; render the HTML report if pytest could not
    local f
    if [ -n "$PY" ] && [ -f "$REPORTS/evidence.json" ] &&
        { [ ! -f "$REPORTS/report.html" ] || [ "$REPORTS/evidence.json" -nt "$REPORTS/report.html" ]; }; then
        say "rendering report.html from evidence.json (pytest did not write it)"
        timeout 120 "$PY" -m claims report "$REPORTS/evidence.json" -o "$REPORTS/report.html" ||
            say "the report could not be rendered; evidence.json is kept"
    fi
    for f in evidence.json report.html benchmark.json; do
        if [ -f "$REPORTS/$f" ]; then cp "$REPORTS/$f" "$KEEP/$f"; fi
    done
}

# shellcheck disable=SC2317  # the EXIT trap
finish() {
    local status=$?
    trap - EXIT
    trap '' INT TERM HUP  # the evidence is being kept: a second Ctrl-C must not cut that short
    set +e
    keep_evidence
    if [ -f "$REPORTS/evidence.json" ]; then :
    elif [ "$DRY_RUN" != "1" ]; then
        say "no evidence.json was written (see failure.txt and the log for why)"
    fi
    echo "$status" >"$KEEP/exit-status.txt"
    say "exit status $status; log, evidence and copies in $KEEP"
    exec >&- 2>&-
    wait "$TEE_PID" 2>/dev/null  # the log is complete when the script ends
    exit "$status"
}
trap finish EXIT

python_ok() {  # $1: interpreter; true when it exists and is 3.11 or later
    command -v "$1" >/dev/null 2>&1 &&
        "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null
}

cuda_torch_ok() {  # $1: interpreter; true when its torch is a CUDA build that sees a GPU
    bounded 180 "$1" - <<'PYEOF' >/dev/null 2>&1
import sys
import torch
sys.exit(0 if torch.version.cuda and torch.cuda.is_available() else 1)
PYEOF
}

torch_of() {  # $1: interpreter; prints its torch's version and where it lives
    bounded 180 "$1" -c 'import torch; print(torch.__version__, torch.__file__)' 2>/dev/null
}

reuse_from() {  # $1: interpreter whose torch to reuse; creates $VENV seeing its site-packages
    local src="$1" pth venv_flags=()
    [ "$INSTALL_SUITE" = "1" ] || venv_flags=(--without-pip)
    bounded 300 "$src" -m venv "${venv_flags[@]}" "$VENV" || die "cannot create $VENV from $src"
    : >"$VENV/$OURS"
    # The site-packages directories the source imports from (its venv's own, a user
    # site, a conda environment's, the system's dist-packages), in its order; appended
    # after $VENV's own, so what is installed into $VENV takes precedence.
    pth="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    pth="$pth/_claims_reused_site.pth"
    bounded 60 "$src" - "$pth" <<'PYEOF' || die "cannot list $src's site-packages"
import sys

dirs = [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
with open(sys.argv[1], "w", encoding="utf-8") as fh:
    fh.write("# written by scripts/gpu-certify.sh: reuse the torch of " + sys.executable + "\n")
    fh.writelines(d + "\n" for d in dirs)
PYEOF
    cuda_torch_ok "$VENV/bin/python" ||
        die "$VENV does not see $src's CUDA torch through $pth (see the log)"
    say "reusing $(torch_of "$VENV/bin/python") (from $src, through $pth)"
}

# Stops the run (exit 4) when nvidia-smi cannot reach the driver, naming the state
# (driver/library version mismatch, no devices, nvidia-smi missing, ...) and its remedy:
# before anything is installed, and within seconds.
check_nvml() {
    local out status=0
    STEP="asking the driver (nvidia-smi)"
    out="$(bounded 60 "$PYTHON" -m "$WHEELS_MODULE" nvml 2>&1)" || status=$?
    case "$status" in
        0) say "driver: $out" ;;
        4)
            say "error: the GPU cannot be used: $out"
            say "nothing was installed; fix the driver state above and run this script again"
            printf '%s: %s\n' "$STEP" "$out" >"$KEEP/failure.txt"
            exit "$EXIT_NVML" ;;
        124|137) timed_out "nvidia-smi" ;;
        *) die "could not ask the driver (status $status): $out" ;;
    esac
}

# Sets TORCH_INDEX_URL (empty: PyPI) and CHOICE (why, several lines) from the one table.
choose_torch_index() {
    local out status=0 index
    if [ -n "$TORCH_INDEX_URL" ]; then
        CHOICE="TORCH_INDEX_URL=$TORCH_INDEX_URL, as set"
        return
    fi
    if [ "$TORCH_SPEC" != "$DEFAULT_TORCH_SPEC" ]; then
        CHOICE="PyPI (TORCH_SPEC='$TORCH_SPEC' is not the 2.13 series $WHEELS_MODULE describes; set TORCH_INDEX_URL for another build)"
        return
    fi
    STEP="choosing a torch build"
    # The wheel's CPU architecture is the machine's (uname -m), whatever $PYTHON runs as.
    out="$(bounded 60 "$PYTHON" -m "$WHEELS_MODULE" choose --arch "$(uname -m)" 2>&1)" || status=$?
    index="$(printf '%s\n' "$out" | sed -n 1p)"
    CHOICE="$(printf '%s\n' "$out" | sed -n '2,$p')"
    case "$status" in
        0) ;;
        3) die "$(printf '%s\n' "$CHOICE" | tr '\n' ' ')" ;;
        4) say "error: the GPU cannot be used: $out"
           printf '%s: %s\n' "$STEP" "$out" >"$KEEP/failure.txt"
           exit "$EXIT_NVML" ;;
        124|137) timed_out "choosing a torch build" ;;
        *) die "could not choose a torch build (status $status): $out" ;;
    esac
    if [ "$index" != pypi ]; then TORCH_INDEX_URL="$index"; fi
}

# One CUDA kernel in the installed torch, before the claims start: a wheel without this
# GPU's architecture installs fine and fails only here, so say so here.
smoke_test() {
    local out status=0
    STEP="running one CUDA kernel (smoke test)"
    out="$(bounded 300 "$PY" - 2>&1 <<'PYEOF'
import torch

if not torch.cuda.is_available():
    raise SystemExit(f"torch {torch.__version__} sees no CUDA device")
x = torch.arange(8, dtype=torch.float32, device="cuda")
total = float((x * 2).sum().item())
torch.cuda.synchronize()
if total != 56.0:
    raise SystemExit(f"a kernel on {torch.cuda.get_device_name(0)} computed {total}, not 56.0")
print(f"one kernel ran on {torch.cuda.get_device_name(0)} "
      f"(capability {torch.cuda.get_device_capability(0)}) with torch {torch.__version__}")
PYEOF
)" || status=$?
    case "$status" in
        0) say "smoke test: $out" ;;
        124|137) timed_out "the smoke test" ;;
        *) die "the installed torch cannot run a kernel on this GPU: $(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')" ;;
    esac
}

pip_install() {  # pip install with its output in the log and its own log beside it
    bounded 900 "$PY" -m pip install --disable-pip-version-check --progress-bar off \
        --log "$KEEP/pip.log" "$@"
}

# --- 1. interpreter and torch ------------------------------------------------------
STEP="finding python"
say "settings: PROFILE=$PROFILE VENV=$VENV PYTHON=$PYTHON TORCH_SPEC='$TORCH_SPEC'" \
    "REQUIRE_LIVE=$REQUIRE_LIVE SKIP_INSTALL=$SKIP_INSTALL PREPARE_ONLY=$PREPARE_ONLY" \
    "DRY_RUN=$DRY_RUN RUN_TIMEOUT=${RUN_TIMEOUT}s TEST_TIMEOUT=${TEST_TIMEOUT}s"
if ! python_ok "$PYTHON"; then
    for candidate in python3.13 python3.12 python3.11; do
        if python_ok "$candidate"; then PYTHON="$candidate"; break; fi
    done
fi
python_ok "$PYTHON" || die "no Python 3.11 or later found (set PYTHON=...)"
check_nvml

STEP="preparing $VENV"
if [ "$SKIP_INSTALL" = "1" ]; then
    [ -x "$VENV/bin/python" ] || die "SKIP_INSTALL=1 but $VENV/bin/python does not exist"
    say "SKIP_INSTALL=1: using $VENV as it is"
    PY="$VENV/bin/python"
    if [ "$DRY_RUN" = "1" ]; then say "dry run: would run the tests with $PY"; exit 0; fi
else
    CHOICE=""
    if [ -x "$VENV/bin/python" ] && cuda_torch_ok "$VENV/bin/python"; then
        [ "$DRY_RUN" = "1" ] && { say "dry run: would reuse $VENV (its torch has CUDA)"; exit 0; }
        say "reusing $VENV (its torch already has CUDA: $(torch_of "$VENV/bin/python"))"
    elif cuda_torch_ok "$PYTHON"; then
        [ "$DRY_RUN" = "1" ] && { say "dry run: would create $VENV reusing $PYTHON's CUDA torch"; exit 0; }
        say "$PYTHON already has a CUDA torch: creating $VENV to reuse it"
        # Only an environment this script made is replaced (a user's own is never removed).
        if [ -e "$VENV" ] && [ ! -f "$VENV/$OURS" ]; then
            die "$VENV exists and was not made by this script; remove it or set VENV=..."
        fi
        rm -rf "$VENV"
        reuse_from "$PYTHON"
    else
        choose_torch_index
        if [ "$DRY_RUN" = "1" ]; then
            say "dry run: would install '$TORCH_SPEC' as:"
            while IFS= read -r line; do say "  $line"; done <<<"$CHOICE"
            exit 0
        fi
        say "no CUDA torch found: creating $VENV and installing '$TORCH_SPEC' as:"
        while IFS= read -r line; do say "  $line"; done <<<"$CHOICE"
        bounded 300 "$PYTHON" -m venv "$VENV" || die "cannot create $VENV"
        : >"$VENV/$OURS"
        PY="$VENV/bin/python"
        STEP="installing torch"
        status=0
        if [ -n "$TORCH_INDEX_URL" ]; then
            pip_install --index-url "$TORCH_INDEX_URL" "$TORCH_SPEC" || status=$?
            check_status "$status" "pip install '$TORCH_SPEC' from $TORCH_INDEX_URL"
        else
            pip_install "$TORCH_SPEC" || status=$?
            check_status "$status" "pip install '$TORCH_SPEC' from PyPI"
        fi
        smoke_test
    fi
    PY="$VENV/bin/python"

    # --- 2. the suite ---------------------------------------------------------------------
    STEP="installing the suite"
    if [ "$INSTALL_SUITE" = "1" ]; then
        say "installing the suite (pip install -e .)"
        status=0
        pip_install -e . || status=$?
        check_status "$status" "pip install -e ."
    else
        say "INSTALL_SUITE=0: not installing the suite into $VENV"
    fi
fi

STEP="recording the environment"
bounded 120 "$PY" -m pip freeze >"$KEEP/pip-freeze.txt" 2>&1 || true
bounded 180 "$PY" - <<'PYEOF' 2>&1 | tee "$KEEP/torch.txt" || true
import torch
print(f"torch {torch.__version__} at {torch.__file__}, built for CUDA {torch.version.cuda}, "
      f"CUDA available: {torch.cuda.is_available()}")
for i in range(torch.cuda.device_count() if torch.cuda.is_available() else 0):
    print(f"device {i}: {torch.cuda.get_device_name(i)}, "
          f"capability {torch.cuda.get_device_capability(i)}")
PYEOF
if command -v nvidia-smi >/dev/null 2>&1; then
    bounded 30 nvidia-smi >"$KEEP/nvidia-smi.txt" 2>&1 || true
fi
if [ "$PREPARE_ONLY" = "1" ]; then
    say "PREPARE_ONLY=1: $VENV is ready ($PY); not running the tests (later, offline: SKIP_INSTALL=1)"
    exit 0
fi

# --- 3. the gpu tier and Week 1's offline checks ---------------------------------------
STEP="selecting the claims"
CLAIM_ARGS=()
while IFS= read -r id; do
    CLAIM_ARGS+=("--claim=$id")
done < <(bounded 120 "$PY" - <<'PYEOF'
from claims.catalog import load_catalog

for claim in load_catalog():
    if claim.testable and (claim.document == "W1" or "gpu" in claim.tiers):
        print(claim.id)
PYEOF
)
[ "${#CLAIM_ARGS[@]}" -gt 0 ] || die "the catalog lists no W1 or gpu-tier claim (is the suite installed in $VENV?)"

LIVE_ARGS=()
[ "$REQUIRE_LIVE" = "1" ] && LIVE_ARGS=(--claims-require-live)

# pytest runs as a job of its own (job control on for the launch): its process group is
# not the terminal's, so Ctrl-C and SIGTERM reach this script alone, whose trap passes
# one SIGINT to timeout(1), which passes it to pytest. (In the terminal's group pytest
# would get Ctrl-C twice, from the terminal and from timeout, and a second KeyboardInterrupt
# can cut its evidence writing short.) Its output goes to pytest.log and the log through a
# tee that ignores both signals.
run_pytest() {
    local left limit status=0
    left="$(remaining)"
    limit="$TEST_TIMEOUT"
    if [ "$left" -le 0 ]; then
        say "RUN_TIMEOUT=${RUN_TIMEOUT}s is used up before pytest"
        printf '%s: RUN_TIMEOUT used up\n' "$STEP" >"$KEEP/failure.txt"
        exit 124
    fi
    [ "$limit" -gt "$left" ] && limit="$left"
    # pytest.log's tee reads a named pipe, so this script can wait for its last line
    # before it writes its own (the log then ends in order).
    local pipe="$KEEP/.pytest-output" tee_pid
    mkfifo "$pipe"
    (trap '' INT TERM HUP; exec tee "$KEEP/pytest.log" <"$pipe") &
    tee_pid=$!
    set -m
    timeout --foreground --signal=INT --kill-after=20 "$limit" \
        "$PY" -m pytest tests/claims \
        -p no:xdist -p no:cacheprovider \
        -m "gpu or offline" "${CLAIM_ARGS[@]}" "${LIVE_ARGS[@]}" \
        --claims-profile="$PROFILE" \
        --claims-evidence="$REPORTS/evidence.json" \
        --claims-report-html="$REPORTS/report.html" \
        --benchmark-json="$REPORTS/benchmark.json" \
        "$@" </dev/null >"$pipe" 2>&1 &
    PYTEST_PID=$!
    set +m
    # wait returns early when a trapped signal arrives; the trap passed it on, so wait again.
    while :; do
        status=0
        wait "$PYTEST_PID" || status=$?
        kill -0 "$PYTEST_PID" 2>/dev/null || break
    done
    PYTEST_PID=""
    wait "$tee_pid" 2>/dev/null || true
    rm -f "$pipe"
    STATUS=$status
}

STEP="running pytest"
rm -f "$REPORTS/evidence.json" "$REPORTS/report.html" "$REPORTS/benchmark.json"
say "running pytest (profile $PROFILE, ${#CLAIM_ARGS[@]} claims, limit ${TEST_TIMEOUT}s)"
STATUS=0
run_pytest "$@"

# --- 4. keep the evidence (finish does the copying) ----------------------------------------
if [ -n "$INTERRUPTED" ]; then
    say "pytest was interrupted (SIG$INTERRUPTED) and exited with status $STATUS; the evidence of the checks it finished is kept"
    printf '%s: interrupted by SIG%s (pytest exit status %s)\n' "$STEP" "$INTERRUPTED" "$STATUS" >"$KEEP/failure.txt"
    exit $((128 + $(kill -l "$INTERRUPTED")))
fi
if [ "$STATUS" -eq 124 ] || [ "$STATUS" -eq 137 ]; then
    say "pytest ran past its limit and was stopped; the evidence written so far is kept"
fi
say "pytest exit status $STATUS; evidence: $REPORTS/evidence.json, report: $REPORTS/report.html"
exit "$STATUS"
