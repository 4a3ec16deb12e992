#!/usr/bin/env bash
# CI, called by .ci/run: the offline certification as a new user would run it, all at once:
# an unprivileged user, a checkout whose path has a space and non-ASCII letters, Debian's
# own python3.11 (3.11.2, the oldest patch the suite supports), a home folder that does not
# exist, and started in the background with nohup (no terminal, no standard input), its exit
# status checked.
#   1. with no cache folder named: the run must stop with one message naming the folder
#      and what to set (pytest's usage error, 4), not a traceback per test;
#   2. with CLAIMS_CACHE_DIR named: the certification must pass.
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
mkdir -p "$base/proj dir"
git clone --quiet "$PWD" "$checkout"
mkdir -p "$base/cache dir ü"
chown -R "$user" "$base/proj dir" "$base/cache dir ü"
say "user $user ($(su "$user" -s /bin/sh -c id)), checkout '$checkout', $("$python" --version) ($python), HOME=/nonexistent"

# Runs the certification as the user, in the background under nohup; sets $status, $log.
certify_as_user() {
  local name="$1" cache="$2"
  log="$base/$name.log"
  # env -i: only what is named here reaches the run (no root's variables, no terminal).
  nohup su "$user" -s /bin/bash -c "cd \"\$0\" && exec env -i PATH=/usr/bin:/bin \
      HOME=/nonexistent LANG=C.UTF-8 PYTHON=\"\$1\" ${cache:+CLAIMS_CACHE_DIR=\"\$2\"} \
      PIP_CACHE_DIR=\"\$0/../pip cache\" bash scripts/certify-offline.sh -p no:cacheprovider" \
      "$checkout" "$python" "$cache" </dev/null >"$log" 2>&1 &
  status=0
  wait $! || status=$?
}

start=$SECONDS
certify_as_user no-cache ""
messages=$(grep -c "cannot be used" "$log" || true)
if [ "$status" -ne 4 ] || [ "$messages" -ne 1 ] || grep -q "PermissionError" "$log"; then
  say "FAILED: with no writable cache the run should stop with one message (exit 4);" \
    "it exited $status with $messages such message(s). Its log:"
  tail -n 60 "$log"
  exit 1
fi
say "no writable cache: one message, exit 4, as expected ($((SECONDS - start)) s):"
grep "cannot be used" "$log"

start=$SECONDS
certify_as_user cache-named "$base/cache dir ü"
tail -n 6 "$log"
if [ "$status" -ne 0 ]; then
  say "FAILED: the certification as $user from '$checkout' exited $status. Its log:"
  tail -n 80 "$log"
  exit 1
fi
say "the offline certification passed as $user from '$checkout' in the background" \
  "($((SECONDS - start)) s)"
