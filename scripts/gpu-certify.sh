#!/usr/bin/env bash
# gpu-certify.sh - certify an NVIDIA machine against Week 1's claims, install included.
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
#   1. Finds a Python >= 3.11 and a torch that already has CUDA: $VENV's own, else the
#      one $PYTHON imports (a virtual environment such as Week 1's ~/venvs/w1, a conda
#      environment, the system's python). To reuse it, $VENV is created from the same
#      interpreter and given a .pth file naming every site-packages directory that
#      interpreter imports from, so torch and the CUDA libraries it brought are used as
#      they are (venv --system-site-packages would see only the *base* interpreter's
#      packages, not a virtual environment's). Otherwise torch is installed from PyPI:
#      on Linux x86_64 and aarch64 PyPI's torch wheels are CUDA builds that bring their
#      own CUDA runtime as wheels (Week 1's point), so only the driver is needed. If that
#      build targets a CUDA above the driver's ceiling (nvidia-smi's "CUDA Version"),
#      torch is reinstalled from the newest PyTorch index the driver can run.
#   2. pip install -e . (the suite itself; torch is not one of its core dependencies,
#      so an existing CUDA torch is never replaced by a CPU one).
#   3. Runs the gpu tier and Week 1's offline tests in one pytest session, without
#      xdist (pytest-benchmark times the matmul series and switches itself off under
#      xdist), in certification mode (--claims-require-live: a missing prerequisite fails
#      instead of skipping):
#          pytest tests/claims -p no:xdist -m "gpu or offline" --claim <W1 and gpu-tier ids>
#   4. Keeps reports/evidence.json, reports/report.html and reports/benchmark.json, and
#      copies them with this script's log, pip's log, nvidia-smi's output and pip freeze
#      into reports/gpu-certify-<host>-<UTC time>/ so later runs do not overwrite them.
#
# Every exit, a failed step included, leaves that folder with gpu-certify.log (all this
# script and the tools it ran printed), exit-status.txt and whatever evidence exists; a
# pytest session stopped at its limit is interrupted (SIGINT) so it writes its evidence,
# and report.html is rendered from evidence.json when pytest could not write it.
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
#   TORCH_INDEX_URL=<url>            a PyTorch wheel index for an older driver, e.g.
#                                    https://download.pytorch.org/whl/cu126
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
# environment could not be prepared; 124 when a step ran past its limit (137 when it
# ignored SIGINT and had to be killed) or RUN_TIMEOUT ran out.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PROFILE="${PROFILE:-auto}"
VENV="${VENV:-.venv-gpu}"
PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${TORCH_SPEC:-torch>=2.13,<2.14}"
TORCH_INDEX_URL="${TORCH_INDEX_URL:-}"
REQUIRE_LIVE="${REQUIRE_LIVE:-1}"
SKIP_INSTALL="${SKIP_INSTALL:-0}"
INSTALL_SUITE="${INSTALL_SUITE:-1}"
PREPARE_ONLY="${PREPARE_ONLY:-0}"
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

mkdir -p "$REPORTS" "$KEEP"
# Everything printed from here on goes to the terminal and to the log.
exec > >(tee -a "$LOG") 2>&1
TEE_PID=$!

say() { printf '[gpu-certify %3ds] %s\n' "$((SECONDS - START))" "$*"; }
die() { say "error: $*"; printf '%s: %s\n' "$STEP" "$*" >"$KEEP/failure.txt"; exit 3; }

remaining() { echo $((DEADLINE - SECONDS)); }

bounded() {  # $1: at most this many seconds (capped by what is left of RUN_TIMEOUT); then a command
    local limit="$1" left
    shift
    left="$(remaining)"
    if [ "$left" -le 0 ]; then
        say "RUN_TIMEOUT=${RUN_TIMEOUT}s is used up before: $*"
        printf '%s: RUN_TIMEOUT used up\n' "$STEP" >"$KEEP/failure.txt"
        exit 124
    fi
    [ "$limit" -gt "$left" ] && limit="$left"
    # SIGINT first, so pytest ends its session and writes its evidence; KILL 20 s later.
    timeout --signal=INT --kill-after=20 "$limit" "$@"
}

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
    set +e
    keep_evidence
    [ -f "$REPORTS/evidence.json" ] ||
        say "no evidence.json was written (see failure.txt and the log for why)"
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
    bounded 180 "$1" - <<'EOF' >/dev/null 2>&1
import sys
import torch
sys.exit(0 if torch.version.cuda and torch.cuda.is_available() else 1)
EOF
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
    bounded 60 "$src" - "$pth" <<'EOF' || die "cannot list $src's site-packages"
import sys

dirs = [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
with open(sys.argv[1], "w", encoding="utf-8") as fh:
    fh.write("# written by scripts/gpu-certify.sh: reuse the torch of " + sys.executable + "\n")
    fh.writelines(d + "\n" for d in dirs)
EOF
    cuda_torch_ok "$VENV/bin/python" ||
        die "$VENV does not see $src's CUDA torch through $pth (see the log)"
    say "reusing $(torch_of "$VENV/bin/python") (from $src, through $pth)"
}

matching_cuda_tag() {  # $1: interpreter with torch; prints a PyTorch index tag the driver can run
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    local ceiling
    ceiling="$(bounded 30 nvidia-smi 2>/dev/null |
        sed -n 's/.*CUDA Version: *\([0-9][0-9.]*\).*/\1/p' | head -n 1)"
    [ -n "$ceiling" ] || return 0
    bounded 180 "$1" - "$ceiling" <<'EOF' 2>/dev/null || true
import sys
import torch

ceiling = tuple(int(p) for p in sys.argv[1].split(".")[:2])
built = tuple(int(p) for p in (torch.version.cuda or "0.0").split(".")[:2])
if built > ceiling:
    # PyTorch's wheel indexes, newest first (https://download.pytorch.org/whl/).
    for tag, version in (("cu130", (13, 0)), ("cu129", (12, 9)), ("cu128", (12, 8)),
                         ("cu126", (12, 6)), ("cu124", (12, 4)), ("cu121", (12, 1)),
                         ("cu118", (11, 8))):
        if version <= ceiling:
            print(tag)
            break
EOF
}

pip_install() {  # pip install with its output in the log and its own log beside it
    bounded 900 "$PY" -m pip install --disable-pip-version-check --progress-bar off \
        --log "$KEEP/pip.log" "$@"
}

# --- 1. interpreter and torch ------------------------------------------------------
STEP="finding python"
say "settings: PROFILE=$PROFILE VENV=$VENV PYTHON=$PYTHON TORCH_SPEC='$TORCH_SPEC'" \
    "REQUIRE_LIVE=$REQUIRE_LIVE SKIP_INSTALL=$SKIP_INSTALL RUN_TIMEOUT=${RUN_TIMEOUT}s" \
    "TEST_TIMEOUT=${TEST_TIMEOUT}s"
if ! python_ok "$PYTHON"; then
    for candidate in python3.13 python3.12 python3.11; do
        if python_ok "$candidate"; then PYTHON="$candidate"; break; fi
    done
fi
python_ok "$PYTHON" || die "no Python 3.11 or later found (set PYTHON=...)"
command -v nvidia-smi >/dev/null 2>&1 || say "warning: nvidia-smi is not on PATH; the gpu tier will report it"

STEP="preparing $VENV"
if [ "$SKIP_INSTALL" = "1" ]; then
    [ -x "$VENV/bin/python" ] || die "SKIP_INSTALL=1 but $VENV/bin/python does not exist"
    say "SKIP_INSTALL=1: using $VENV as it is"
    PY="$VENV/bin/python"
else
    if [ -x "$VENV/bin/python" ] && cuda_torch_ok "$VENV/bin/python"; then
        say "reusing $VENV (its torch already has CUDA: $(torch_of "$VENV/bin/python"))"
    elif cuda_torch_ok "$PYTHON"; then
        say "$PYTHON already has a CUDA torch: creating $VENV to reuse it"
        # Only an environment this script made is replaced (a user's own is never removed).
        if [ -e "$VENV" ] && [ ! -f "$VENV/$OURS" ]; then
            die "$VENV exists and was not made by this script; remove it or set VENV=..."
        fi
        rm -rf "$VENV"
        reuse_from "$PYTHON"
    else
        say "no CUDA torch found: creating $VENV and installing '$TORCH_SPEC' from ${TORCH_INDEX_URL:-PyPI}"
        bounded 300 "$PYTHON" -m venv "$VENV" || die "cannot create $VENV"
        : >"$VENV/$OURS"
        PY="$VENV/bin/python"
        STEP="installing torch"
        if [ -n "$TORCH_INDEX_URL" ]; then
            pip_install --index-url "$TORCH_INDEX_URL" "$TORCH_SPEC" ||
                die "torch install from $TORCH_INDEX_URL failed (pip's output is in the log)"
        else
            pip_install "$TORCH_SPEC" || die "torch install failed (pip's output is in the log)"
            # PyPI's torch targets one CUDA line; a driver with a lower ceiling cannot run it
            # (Week 1's point about the ceiling). Then take the newest build the driver can.
            if ! cuda_torch_ok "$PY"; then
                TAG="$(matching_cuda_tag "$PY")"
                if [ -n "$TAG" ]; then
                    say "PyPI's torch cannot use this driver; reinstalling from the $TAG index"
                    bounded 300 "$PY" -m pip uninstall -y torch || true
                    pip_install --index-url "https://download.pytorch.org/whl/$TAG" "$TORCH_SPEC" ||
                        die "torch install from the $TAG index failed (pip's output is in the log)"
                fi
            fi
        fi
    fi
    PY="$VENV/bin/python"

    # --- 2. the suite ---------------------------------------------------------------------
    STEP="installing the suite"
    if [ "$INSTALL_SUITE" = "1" ]; then
        say "installing the suite (pip install -e .)"
        pip_install -e . || die "pip install -e . failed (pip's output is in the log)"
    else
        say "INSTALL_SUITE=0: not installing the suite into $VENV"
    fi
fi

STEP="recording the environment"
bounded 120 "$PY" -m pip freeze >"$KEEP/pip-freeze.txt" 2>&1 || true
bounded 180 "$PY" - <<'EOF' 2>&1 | tee "$KEEP/torch.txt" || true
import torch
print(f"torch {torch.__version__} at {torch.__file__}, built for CUDA {torch.version.cuda}, "
      f"CUDA available: {torch.cuda.is_available()}")
for i in range(torch.cuda.device_count() if torch.cuda.is_available() else 0):
    print(f"device {i}: {torch.cuda.get_device_name(i)}, "
          f"capability {torch.cuda.get_device_capability(i)}")
EOF
if command -v nvidia-smi >/dev/null 2>&1; then
    bounded 30 nvidia-smi >"$KEEP/nvidia-smi.txt" 2>&1 || true
fi
if [ "$PREPARE_ONLY" = "1" ]; then
    say "PREPARE_ONLY=1: $VENV is ready ($PY); not running the tests"
    exit 0
fi

# --- 3. the gpu tier and Week 1's offline checks ---------------------------------------
STEP="selecting the claims"
CLAIM_ARGS=()
while IFS= read -r id; do
    CLAIM_ARGS+=("--claim=$id")
done < <(bounded 120 "$PY" - <<'EOF'
from claims.catalog import load_catalog

for claim in load_catalog():
    if claim.testable and (claim.document == "W1" or "gpu" in claim.tiers):
        print(claim.id)
EOF
)
[ "${#CLAIM_ARGS[@]}" -gt 0 ] || die "the catalog lists no W1 or gpu-tier claim (is the suite installed in $VENV?)"

LIVE_ARGS=()
[ "$REQUIRE_LIVE" = "1" ] && LIVE_ARGS=(--claims-require-live)

STEP="running pytest"
rm -f "$REPORTS/evidence.json" "$REPORTS/report.html" "$REPORTS/benchmark.json"
say "running pytest (profile $PROFILE, ${#CLAIM_ARGS[@]} claims, limit ${TEST_TIMEOUT}s)"
set +e
bounded "$TEST_TIMEOUT" "$PY" -m pytest tests/claims \
    -p no:xdist -p no:cacheprovider \
    -m "gpu or offline" "${CLAIM_ARGS[@]}" "${LIVE_ARGS[@]}" \
    --claims-profile="$PROFILE" \
    --claims-evidence="$REPORTS/evidence.json" \
    --claims-report-html="$REPORTS/report.html" \
    --benchmark-json="$REPORTS/benchmark.json" \
    "$@" 2>&1 | tee "$KEEP/pytest.log"
STATUS=${PIPESTATUS[0]}
set -e

# --- 4. keep the evidence (finish does the copying) ----------------------------------------
if [ "$STATUS" -eq 124 ] || [ "$STATUS" -eq 137 ]; then
    say "pytest ran past its limit and was stopped; the evidence written so far is kept"
fi
say "pytest exit status $STATUS; evidence: $REPORTS/evidence.json, report: $REPORTS/report.html"
exit "$STATUS"
