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
#      (pytest -m "not slow"); an interpreter that is missing fails it
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
