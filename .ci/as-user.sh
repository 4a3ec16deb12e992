#!/usr/bin/env bash
# CI, called by .ci/run: the suite as a new user would run it, all at once: an unprivileged
# user, a checkout whose path has a space and non-ASCII letters, a home folder that does
# not exist, each run started in the background with nohup (no terminal, no standard
# input) and its exit status checked:
#   1. the offline certification (Debian's python3.11, 3.11.2) with no cache folder named:
#      it must stop with one message naming the folder and what to set (exit 4), not a
#      traceback per test;
#   2. the version matrix (noxfile.py) with CLAIMS_CACHE_DIR named: on the oldest patch of
#      each supported Python found here, the offline certification and the quick loop
#      (pytest tests -m "not slow"); an interpreter that is missing fails it
#      (--error-on-missing-interpreters) instead of passing unseen.
# An interpreter the user cannot run (a pyenv build under root's mode-700 home, linked to
# a libpython there) is copied, without root's site-packages, to a folder the user can
# read, and named to nox (CLAIMS_PYTHON_3_12=...) with its lib folder on LD_LIBRARY_PATH:
# the interpreter is the same build; only where it lies differs.
# Needs root (useradd, su). USER_NAME (claimsuser) and PYTHON (python3.11) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
user="${USER_NAME:-claimsuser}"
python="${PYTHON:-$(command -v python3.11 || command -v python3)}"
# /usr/bin first: a pyenv shim on root's PATH names an interpreter the user cannot read.
[ -x /usr/bin/python3.11 ] && [ -z "${PYTHON:-}" ] && python=/usr/bin/python3.11
say() { printf 'as-user: %s\n' "$*"; }

id -u "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
chmod 755 "$base"
checkout="$base/proj dir/mäin"
cache="$base/cache dir ü"
mkdir -p "$base/proj dir" "$cache" "$base/pythons"
git clone --quiet "$PWD" "$checkout"
chown -R "$user" "$base/proj dir" "$cache"
# What the user runs: only what is named here reaches it (env -i: none of root's
# variables). $1 checkout, $2 the command, then NAME=value for each variable it gets.
cat >"$base/inner.sh" <<'SH'
cd "$1"
command=$2
shift 2
exec env -i "$@" bash -c "$command"
SH
# What every run of the user's gets. The machine's pip settings (PIP_FIND_LINKS: where
# the CPU torch wheel lies) are the machine's, not root's, so they pass; nothing else does.
common=(PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 PYTHON="$python"
        PIP_CACHE_DIR="$base/proj dir/pip cache")
while IFS= read -r pip_setting; do common+=("$pip_setting"); done < <(env | grep '^PIP_' || true)
say "user $user ($(su "$user" -s /bin/sh -c id)), checkout '$checkout'," \
  "$("$python" --version) ($python), HOME=/nonexistent"

# Runs a command as the user, in the background under nohup; sets $status and $log.
# $1 the log's name, $2 the command, then NAME=value for each variable beyond $common.
as_user() {
  local name="$1" command="$2"
  shift 2
  log="$base/$name.log"
  # shellcheck disable=SC2016  # "$0" and "$@" are the user's shell's
  nohup su "$user" -s /bin/bash -c 'exec bash "$0" "$@"' \
    "$base/inner.sh" "$checkout" "$command" "${common[@]}" "$@" </dev/null >"$log" 2>&1 &
  status=0
  wait $! || status=$?
}
failed() {
  # What failed, from the whole log (a session's summary may lie far above its end),
  # then the end of it.
  say "FAILED: $*. What failed, then the log's end:"
  grep -E "^(FAILED|ERROR) |^nox > (Session|Command|\*)" "$log" | tail -n 60 || true
  tail -n 40 "$log"
  exit 1
}

start=$SECONDS
as_user no-cache "bash scripts/certify-offline.sh -p no:cacheprovider"
messages=$(grep -c "cannot be used" "$log" || true)
if [ "$status" -ne 4 ] || [ "$messages" -ne 1 ] || grep -q "PermissionError" "$log"; then
  failed "with no writable cache the run should stop with one message (exit 4);" \
    "it exited $status with $messages such message(s)"
fi
say "no writable cache: one message, exit 4, as expected ($((SECONDS - start)) s):"
grep "cannot be used" "$log"

# The offline install, as the README's first command leaves it (issue 51): the run above
# made the checkout's .venv (pip install -e ., then stopped at the cache check): no torch,
# no llama-cpp, no extras. In it, as the user, with the cache named:
#   a. the suite's own tests, the quick loop (-m "not slow"), then two slow modules: the
#      gpu tier's dry runs (the tests that came back broken without torch) and the
#      read-only checkout's test (skipped as root): every test needing an extra must skip
#      with its reason. tests/audit is left out: its fixture reruns the whole mutation
#      audit (3 to 4 min), which needs no extra; its tests run in each matrix session's
#      quick loop and in scripts/test.sh;
#   b. the offline certification from a copy of the checkout nobody may write (chmod -R
#      a-w: a read-only mount, a container's layer), its evidence and report elsewhere,
#      run with this .venv from inside the copy (python -m puts the copy first on sys.path);
#   c. the same with a torch that raises on import first on PYTHONPATH (a CUDA wheel
#      missing a library): it must complete, with b's verdicts claim for claim.
# AS_USER_OFFLINE_ONLY=1 stops after these steps (to rerun them alone).
start=$SECONDS
offline="$base/offline install"
mkdir -p "$offline/torch"
printf '%s\n' 'raise ImportError("libcudnn.so.9: cannot open shared object file (a broken torch, planted by .ci/as-user.sh)")' \
  >"$offline/torch/__init__.py"
chown -R "$user" "$offline"
own_tests=".venv/bin/python -m pytest -p no:cacheprovider -q -rfEs -n ${WORKERS:-auto}"
as_user offline-own-tests "$own_tests tests -m 'not slow' --ignore=tests/audit \
    --claims-evidence '$offline/own/evidence.json' --claims-report-html '$offline/own/report.html' \
  && $own_tests tests/plugin/test_gpu_tier.py tests/test_read_only_checkout.py \
    --claims-evidence '$offline/gpu/evidence.json' --claims-report-html '$offline/gpu/report.html'" \
  CLAIMS_CACHE_DIR="$cache"
[ "$status" -eq 0 ] || failed "the suite's own tests in the offline install exited $status"
grep -E "^[0-9]+ (passed|failed)|[0-9]+ passed" "$log" | sed 's/^/as-user:   /'
say "the suite's own tests passed in the offline install ($((SECONDS - start)) s)"

start=$SECONDS
read_only="$base/read-only/$(basename "$checkout")"
mkdir -p "$base/read-only"
git clone --quiet "$PWD" "$read_only"
chown -R "$user" "$base/read-only"
chmod -R a-w "$read_only"
as_user read-only "cd '$read_only' && '$checkout/.venv/bin/python' -m pytest -m offline -q \
  -p no:cacheprovider --claims-evidence '$offline/read-only.json' \
  --claims-report-html '$offline/read-only.html'" CLAIMS_CACHE_DIR="$cache"
if [ "$status" -ne 0 ] || grep -q "PermissionError\|Read-only file system" "$log"; then
  failed "the offline certification of a read-only checkout exited $status"
fi
changed=$(git -C "$read_only" -c safe.directory="$read_only" status --porcelain --ignored)
[ -z "$changed" ] || failed "the read-only checkout was written: $changed"
say "a read-only checkout certified, evidence elsewhere ($((SECONDS - start)) s)"

start=$SECONDS
as_user broken-torch ".venv/bin/python -m pytest -m offline -q -p no:cacheprovider \
  --claims-evidence '$offline/broken-torch.json' \
  --claims-report-html '$offline/broken-torch.html'" \
  CLAIMS_CACHE_DIR="$cache" PYTHONPATH="$offline"
[ "$status" -eq 0 ] || failed "the offline certification with a torch that raises on import" \
  "exited $status"
if ! differences=$("$python" - "$offline/read-only.json" "$offline/broken-torch.json" <<'PY'
import json, sys
plain, broken = ({c["id"]: c["verdict"] for c in json.load(open(p, encoding="utf-8"))["claims"]}
                 for p in sys.argv[1:])
lines = [f"{cid}: {plain.get(cid)} without torch, {broken.get(cid)} with the broken one"
         for cid in sorted(plain.keys() | broken.keys()) if plain.get(cid) != broken.get(cid)]
print("\n".join(lines) or f"{len(plain)} claims, the same verdicts")
sys.exit(1 if lines else 0)
PY
); then
  failed "a torch that raises on import changed verdicts: $differences"
fi
say "a torch that raises on import: $differences ($((SECONDS - start)) s)"
[ "${AS_USER_OFFLINE_ONLY:-}" = 1 ] && exit 0

# nox, in a virtual environment of the user's, at the version the dev extra names.
start=$SECONDS
nox_requirement=$("$python" -c 'import tomllib, sys
extra = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["dev"]
print(next(r for r in extra if r.split(">")[0].split("=")[0].strip() == "nox"))')
as_user nox-venv "\"\$PYTHON\" -m venv '$base/proj dir/nox' \
  && '$base/proj dir/nox/bin/python' -m pip install --quiet '$nox_requirement'"
[ "$status" -eq 0 ] || failed "installing $nox_requirement as $user exited $status"

# Which interpreter the matrix runs for each version, as root sees the machine (the
# noxfile's own discovery); each the user cannot run is copied where the user can.
named=()
libraries=()
while read -r minor interpreter; do
  [ -n "$interpreter" ] || continue
  # shellcheck disable=SC2016  # "$0" is the user shell's
  su "$user" -s /bin/sh -c '"$0" -c ""' "$interpreter" 2>/dev/null && continue
  prefix=$("$interpreter" -c 'import sys; print(sys.base_prefix)')
  version=$("$interpreter" -c 'import platform; print(platform.python_version())')
  copy="$base/pythons/$version"
  mkdir -p "$copy"
  tar -C "$prefix" --exclude="./lib/python$minor/site-packages/*" -cf - . | tar -C "$copy" -xf -
  chmod -R a+rX "$copy"
  named+=("CLAIMS_PYTHON_${minor//./_}=$copy/bin/$(basename "$interpreter")")
  libraries+=("$copy/lib")
  say "Python $version ($interpreter) is not readable by $user: copied to $copy"
done < <(cd "$checkout" && NOX_QUIET_DISCOVERY=1 "$base/proj dir/nox/bin/python" -c '
import noxfile
for minor, hit in noxfile.FOUND.items():
    print(minor, hit[0] if hit else "")')
if [ ${#libraries[@]} -gt 0 ]; then
  named+=("LD_LIBRARY_PATH=$(IFS=:; echo "${libraries[*]}")")
fi
say "nox and the interpreters ready ($((SECONDS - start)) s)"

start=$SECONDS
as_user matrix "'$base/proj dir/nox/bin/nox' --error-on-missing-interpreters" \
  CLAIMS_CACHE_DIR="$cache" "${named[@]}"
grep -E "^nox > (Session|Ran)|claims-suite matrix" "$log" || true
say "what each interpreter's session took:"
sed 's/^/as-user:   /' "$checkout/.nox/matrix-timings.txt" 2>/dev/null || true
[ "$status" -eq 0 ] || failed "the version matrix as $user exited $status"
say "the version matrix passed as $user in the background ($((SECONDS - start)) s)"
