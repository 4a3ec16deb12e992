#!/usr/bin/env bash
# CI, called by .ci/run: the suite as a new user would run it, all at once: an unprivileged
# user, a checkout whose path has a space and non-ASCII letters, Debian's own python3.11
# (3.11.2, the oldest patch the suite supports), a home folder that does not exist, each
# run started in the background with nohup (no terminal, no standard input) and its exit
# status checked:
#   1. the offline certification with no cache folder named: it must stop with one message
#      naming the folder and what to set (exit 4), not a traceback per test;
#   2. the same with CLAIMS_CACHE_DIR named: it must pass;
#   3. the quick loop (pytest -m "not slow", the dev extra, no engine or torch): it must pass.
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
mkdir -p "$base/proj dir" "$cache"
git clone --quiet "$PWD" "$checkout"
chown -R "$user" "$base/proj dir" "$cache"
# What the user runs: only what is named here reaches it (env -i: none of root's
# variables). $1 checkout, $2 python, $3 cache folder or "", $4 the command.
cat >"$base/inner.sh" <<'SH'
cd "$1"
named=()
[ -n "$3" ] && named=(CLAIMS_CACHE_DIR="$3")
exec env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 PYTHON="$2" "${named[@]}" \
  PIP_CACHE_DIR="$1/../pip cache" bash -c "$4"
SH
say "user $user ($(su "$user" -s /bin/sh -c id)), checkout '$checkout'," \
  "$("$python" --version) ($python), HOME=/nonexistent"

# Runs a command as the user, in the background under nohup; sets $status and $log.
as_user() {
  local name="$1" cache_dir="$2" command="$3"
  log="$base/$name.log"
  # shellcheck disable=SC2016  # "$0" and "$@" are the user's shell's
  nohup su "$user" -s /bin/bash -c 'exec bash "$0" "$@"' \
    "$base/inner.sh" "$checkout" "$python" "$cache_dir" "$command" </dev/null >"$log" 2>&1 &
  status=0
  wait $! || status=$?
}
failed() {
  say "FAILED: $*. Its log:"
  tail -n 80 "$log"
  exit 1
}

start=$SECONDS
as_user no-cache "" "bash scripts/certify-offline.sh -p no:cacheprovider"
messages=$(grep -c "cannot be used" "$log" || true)
if [ "$status" -ne 4 ] || [ "$messages" -ne 1 ] || grep -q "PermissionError" "$log"; then
  failed "with no writable cache the run should stop with one message (exit 4);" \
    "it exited $status with $messages such message(s)"
fi
say "no writable cache: one message, exit 4, as expected ($((SECONDS - start)) s):"
grep "cannot be used" "$log"

start=$SECONDS
as_user certify "$cache" "bash scripts/certify-offline.sh -p no:cacheprovider"
tail -n 4 "$log"
[ "$status" -eq 0 ] || failed "the offline certification as $user exited $status"
say "the offline certification passed as $user in the background ($((SECONDS - start)) s)"

start=$SECONDS
as_user quick "$cache" '.venv/bin/python -m pip install --quiet --editable ".[dev]" \
  && exec .venv/bin/python -m pytest -m "not slow" -n auto -q -p no:cacheprovider'
tail -n 3 "$log"
[ "$status" -eq 0 ] || failed "the quick loop as $user exited $status"
say "the quick loop passed as $user in the background ($((SECONDS - start)) s)"
