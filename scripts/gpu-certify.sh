#!/usr/bin/env bash
# gpu-certify.sh - certify an NVIDIA machine against Week 1's claims, install included.
#
# Usage (from a fresh copy of the repository, on the machine to certify):
#
#     scripts/gpu-certify.sh                 # auto-detects the profile (dgx-spark on a Spark)
#     PROFILE=generic scripts/gpu-certify.sh # any other NVIDIA machine, named explicitly
#
# What it does, in order (about 1-3 minutes of install on a fresh machine with a
# normal network, then well under a minute of tests; the whole run is bounded):
#
#   1. Finds a Python >= 3.11 and a torch that already has CUDA (an NGC container,
#      a system install). If there is one, the virtual environment is created with
#      --system-site-packages so that torch, and the CUDA libraries it brought, are
#      reused as they are. Otherwise torch is installed from PyPI: on Linux x86_64
#      and aarch64 PyPI's default torch wheels are CUDA builds that bring their own
#      CUDA runtime as nvidia-* wheels (Week 1's point), so only the driver is needed.
#      If that build targets a CUDA above the driver's ceiling (nvidia-smi's "CUDA
#      Version"), torch is reinstalled from the newest PyTorch index the driver can run.
#   2. pip install -e . (the suite itself; torch is not one of its core dependencies,
#      so an existing CUDA torch is never replaced by a CPU one).
#   3. Runs the gpu tier and Week 1's offline tests in one pytest session, without
#      xdist (pytest-benchmark times the matmul series and switches itself off under
#      xdist), in certification mode (--require-live: a missing prerequisite fails
#      instead of skipping):
#          pytest tests/claims -p no:xdist -m "gpu or offline" --claim <W1 and gpu-tier ids>
#   4. Keeps reports/evidence.json, reports/report.html and reports/benchmark.json, and
#      copies them with the pytest log, nvidia-smi's output and pip freeze into
#      reports/gpu-certify-<host>-<UTC time>/ so later runs do not overwrite them.
#
# Environment knobs:
#   PROFILE=auto|dgx-spark|generic   machine profile (default auto)
#   VENV=.venv-gpu                   virtual environment to create or reuse
#   PYTHON=python3                   interpreter to start from (3.11 or later)
#   TORCH_SPEC=torch                 what to pip install when no CUDA torch exists
#   TORCH_INDEX_URL=<url>            a PyTorch wheel index for an older driver, e.g.
#                                    https://download.pytorch.org/whl/cu126
#   REQUIRE_LIVE=1                   0 to let missing prerequisites skip instead of fail
#   SKIP_INSTALL=0                   1 to run with $VENV exactly as it is (a second run)
#   TEST_TIMEOUT=240                 seconds for the whole pytest session
#   CLAIMS_MATMUL_N=4096             matrix size (the post's figures are for 4096)
#   Extra arguments are passed to pytest (e.g. -k speedup, -x).
#
# Exit status: pytest's (0: every claim decided and none refuted unexpectedly;
# 1: a refutation, or with REQUIRE_LIVE=1 a check that could not run); 3 when the
# environment could not be prepared.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PROFILE="${PROFILE:-auto}"
VENV="${VENV:-.venv-gpu}"
PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${TORCH_SPEC:-torch}"
TORCH_INDEX_URL="${TORCH_INDEX_URL:-}"
REQUIRE_LIVE="${REQUIRE_LIVE:-1}"
SKIP_INSTALL="${SKIP_INSTALL:-0}"
TEST_TIMEOUT="${TEST_TIMEOUT:-240}"
REPORTS="$ROOT/reports"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
KEEP="$REPORTS/gpu-certify-$(hostname -s 2>/dev/null || echo host)-$STAMP"
START=$SECONDS

say() { printf '[gpu-certify %3ds] %s\n' "$((SECONDS - START))" "$*"; }
die() { say "error: $*" >&2; exit 3; }

python_ok() {  # $1: interpreter; true when it exists and is 3.11 or later
    command -v "$1" >/dev/null 2>&1 &&
        "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null
}

cuda_torch_ok() {  # $1: interpreter; true when its torch is a CUDA build that sees a GPU
    "$1" - <<'EOF' >/dev/null 2>&1
import sys
import torch
sys.exit(0 if torch.version.cuda and torch.cuda.is_available() else 1)
EOF
}

matching_cuda_tag() {  # $1: interpreter with torch; prints a PyTorch index tag the driver can run
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    local ceiling
    ceiling="$(timeout 20 nvidia-smi 2>/dev/null |
        sed -n 's/.*CUDA Version: *\([0-9][0-9.]*\).*/\1/p' | head -n 1)"
    [ -n "$ceiling" ] || return 0
    "$1" - "$ceiling" <<'EOF' 2>/dev/null || true
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

# --- 1. interpreter and torch ------------------------------------------------------
if ! python_ok "$PYTHON"; then
    for candidate in python3.13 python3.12 python3.11; do
        if python_ok "$candidate"; then PYTHON="$candidate"; break; fi
    done
fi
python_ok "$PYTHON" || die "no Python 3.11 or later found (set PYTHON=...)"
command -v nvidia-smi >/dev/null 2>&1 || say "warning: nvidia-smi is not on PATH; the gpu tier will report it"

mkdir -p "$REPORTS" "$KEEP"
PIP_QUIET=(--disable-pip-version-check --progress-bar off)

if [ "$SKIP_INSTALL" = "1" ]; then
    [ -x "$VENV/bin/python" ] || die "SKIP_INSTALL=1 but $VENV/bin/python does not exist"
    say "SKIP_INSTALL=1: using $VENV as it is"
    PY="$VENV/bin/python"
else
    if [ -x "$VENV/bin/python" ] && cuda_torch_ok "$VENV/bin/python"; then
        say "reusing $VENV (its torch already has CUDA)"
    elif cuda_torch_ok "$PYTHON"; then
        say "$PYTHON already has a CUDA torch: creating $VENV with --system-site-packages to reuse it"
        "$PYTHON" -m venv --system-site-packages "$VENV" || die "cannot create $VENV"
    else
        say "no CUDA torch found: creating $VENV and installing $TORCH_SPEC from ${TORCH_INDEX_URL:-PyPI}"
        "$PYTHON" -m venv "$VENV" || die "cannot create $VENV"
        "$VENV/bin/python" -m pip install "${PIP_QUIET[@]}" --upgrade pip >/dev/null || die "pip upgrade failed"
        if [ -n "$TORCH_INDEX_URL" ]; then
            "$VENV/bin/python" -m pip install "${PIP_QUIET[@]}" --index-url "$TORCH_INDEX_URL" "$TORCH_SPEC" ||
                die "torch install from $TORCH_INDEX_URL failed"
        else
            "$VENV/bin/python" -m pip install "${PIP_QUIET[@]}" "$TORCH_SPEC" || die "torch install failed"
            # PyPI's torch targets one CUDA line; a driver with a lower ceiling cannot run it
            # (Week 1's point about the ceiling). Then take the newest build the driver can.
            if ! cuda_torch_ok "$VENV/bin/python"; then
                TAG="$(matching_cuda_tag "$VENV/bin/python")"
                if [ -n "$TAG" ]; then
                    say "PyPI's torch cannot use this driver; reinstalling from the $TAG index"
                    "$VENV/bin/python" -m pip uninstall -y -q torch >/dev/null 2>&1 || true
                    "$VENV/bin/python" -m pip install "${PIP_QUIET[@]}" \
                        --index-url "https://download.pytorch.org/whl/$TAG" "$TORCH_SPEC" ||
                        die "torch install from the $TAG index failed"
                fi
            fi
        fi
    fi
    PY="$VENV/bin/python"

    # --- 2. the suite ---------------------------------------------------------------------
    say "installing the suite (pip install -e .)"
    "$PY" -m pip install "${PIP_QUIET[@]}" -e . || die "pip install -e . failed"
fi
"$PY" -m pip freeze >"$KEEP/pip-freeze.txt" 2>/dev/null || true
"$PY" - <<'EOF' | tee "$KEEP/torch.txt" || true
import torch
print(f"torch {torch.__version__}, built for CUDA {torch.version.cuda}, "
      f"CUDA available: {torch.cuda.is_available()}")
if torch.cuda.is_available():
    print(f"device 0: {torch.cuda.get_device_name(0)}, capability {torch.cuda.get_device_capability(0)}")
EOF
if command -v nvidia-smi >/dev/null 2>&1; then
    timeout 20 nvidia-smi >"$KEEP/nvidia-smi.txt" 2>&1 || true
fi

# --- 3. the gpu tier and Week 1's offline checks ---------------------------------------
CLAIM_ARGS=()
while IFS= read -r id; do
    CLAIM_ARGS+=("--claim=$id")
done < <("$PY" - <<'EOF'
from claims.catalog import load_catalog

for claim in load_catalog():
    if claim.testable and (claim.document == "W1" or "gpu" in claim.tiers):
        print(claim.id)
EOF
)
[ "${#CLAIM_ARGS[@]}" -gt 0 ] || die "the catalog lists no W1 or gpu-tier claim"

LIVE_ARGS=()
[ "$REQUIRE_LIVE" = "1" ] && LIVE_ARGS=(--require-live)

say "running pytest (profile $PROFILE, ${#CLAIM_ARGS[@]} claims, limit ${TEST_TIMEOUT}s)"
set +e
timeout --kill-after=10 "$TEST_TIMEOUT" "$PY" -m pytest tests/claims \
    -p no:xdist -p no:cacheprovider \
    -m "gpu or offline" "${CLAIM_ARGS[@]}" "${LIVE_ARGS[@]}" \
    --profile="$PROFILE" \
    --evidence="$REPORTS/evidence.json" \
    --report-html="$REPORTS/report.html" \
    --benchmark-json="$REPORTS/benchmark.json" \
    "$@" 2>&1 | tee "$KEEP/pytest.log"
STATUS=${PIPESTATUS[0]}
set -e

# --- 4. keep the evidence -----------------------------------------------------------------
for f in evidence.json report.html benchmark.json; do
    [ -f "$REPORTS/$f" ] && cp "$REPORTS/$f" "$KEEP/$f"
done
if [ "$STATUS" -eq 124 ] || [ "$STATUS" -eq 137 ]; then
    say "pytest ran past ${TEST_TIMEOUT}s and was stopped; the evidence written so far is kept"
fi
say "pytest exit status $STATUS; evidence: $REPORTS/evidence.json, report: $REPORTS/report.html"
say "copies kept in $KEEP"
exit "$STATUS"
